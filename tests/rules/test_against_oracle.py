"""``check_turn`` and ``legal_placements`` held against the slow reference in
``oracle.py`` (written from the rules page alone) on random small boards.

Boards are connected groups of up to seven tiles grown from a random cell (H8 for a
first turn or a real game's start; elsewhere to reach the arms, their gaps and the
light cells there), with no line over 12. Hands: one to three tiles, a team seat's
four (two partners, two tiles each), and the unknown hand (``hand=None``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from zatre_vision.rules import Board, check_turn, legal_placements

from . import oracle

SLOW = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.filter_too_much])


@st.composite
def boards(draw, most: int = 7) -> dict[str, int]:
    """A connected group of tiles, no line over 12."""
    size = draw(st.integers(1, most))
    tiles: dict[str, int] = {}
    root = draw(st.sampled_from([oracle.START, *sorted(oracle.POS)]))
    for _ in range(3 * size):
        if len(tiles) == size:
            break
        free = sorted({n for c in tiles for n in oracle.neighbours(c) if n not in tiles}
                      if tiles else {root})
        cell = draw(st.sampled_from(free))
        trial = {**tiles, cell: draw(st.integers(1, 6))}
        if all(s <= 12 for _, s in oracle.lines_through(trial, cell)):
            tiles = trial
    return tiles


hands = st.lists(st.integers(1, 6), min_size=1, max_size=3)


def as_set(placements: list[dict[str, int]]) -> set[frozenset]:
    return {frozenset(p.items()) for p in placements}


@settings(SLOW, max_examples=40)
@given(board=boards(), hand=hands)
@example(board={"J6": 5, "K6": 4, "K5": 5, "K4": 3, "J5": 5, "J7": 1}, hand=[5])
@example(board={"K14": 5, "J14": 6, "J15": 1, "K13": 5, "I15": 5}, hand=[5, 4])
def test_legal_placements_are_the_rules_placements(board, hand):
    assert as_set(legal_placements(Board(board), hand)) == oracle.legal_turns(board, hand)


@settings(SLOW, max_examples=12)
@given(board=boards(most=4), hand=st.lists(st.integers(1, 6), min_size=4, max_size=4))
def test_a_team_seats_four_tiles(board, hand):
    assert as_set(legal_placements(Board(board), hand)) == oracle.legal_turns(board, hand)


@settings(SLOW, max_examples=15)
@given(hand=st.lists(st.integers(1, 6), min_size=3, max_size=3))
def test_the_first_turn(hand):
    assert as_set(legal_placements(Board(), hand)) == oracle.legal_turns({}, hand)


def _turns_to_judge(board, hand_values):
    """Every placement of part of the hand that keeps rules 1-3, legal or not by rules
    4 and 5 (too few tiles, a bare light cell too many)."""
    return sorted(oracle.placements(board, hand_values), key=lambda p: sorted(p))


@settings(SLOW, max_examples=40)
@given(board=boards(), hand=hands, data=st.data())
def test_check_turn_gives_the_rules_verdict_and_score(board, hand, data):
    turns = _turns_to_judge(board, hand)
    placed = dict(data.draw(st.sampled_from(turns)))
    result = check_turn(Board(board), placed, hand=hand)
    assert result.legal == oracle.is_legal(board, placed, hand), result.violations
    if result.legal:
        assert (result.points, result.crosses) == oracle.score(board, placed)


@settings(SLOW, max_examples=40)
@given(board=boards(), hand=hands, data=st.data())
def test_check_turn_with_the_hand_unknown(board, hand, data):
    turns = [p for p in _turns_to_judge(board, hand) if p]
    assume(turns)
    placed = dict(data.draw(st.sampled_from(turns)))
    result = check_turn(Board(board), placed)
    assert result.legal == oracle.is_legal(board, placed, None), result.violations


@settings(SLOW, max_examples=40)
@given(board=boards(), cells=st.lists(st.sampled_from(sorted(oracle.POS)), min_size=1,
                                      max_size=3, unique=True),
       values=st.lists(st.integers(1, 6), min_size=3, max_size=3))
def test_check_turn_refuses_what_breaks_rules_1_to_3(board, cells, values):
    placed = {c: v for c, v in zip(cells, values, strict=False) if c not in board}
    assume(placed)
    expected = oracle.is_legal(board, placed, None)
    assert check_turn(Board(board), placed).legal == expected


def test_a_light_cell_scores_through_the_perpendicular_line():
    """G7 is a light cell. Its row G7-H7 sums to 8, but its column G6-G7 sums to 11: the
    tile lies in a scoring line, earns its cross and is no bare light cell."""
    board = {"H8": 6, "H7": 3, "H6": 1, "G6": 6}
    placed = {"G7": 5}
    assert oracle.bare_light(board, placed) == 0
    assert oracle.score(board, placed) == ({10: 0, 11: 2, 12: 0}, 1)
    assert oracle.is_legal(board, placed, [5])
    result = check_turn(Board(board), placed, hand=[5])
    assert result.legal and result.crosses == 1 and result.points == {10: 0, 11: 2, 12: 0}
    assert frozenset(placed.items()) in as_set(legal_placements(Board(board), [5]))


def test_a_bare_light_cell_is_refused_when_another_cell_takes_the_tile():
    """A 1 on G7 (light): its row with H7 sums to 6, no column: bare. On I8 (not light)
    it breaks no rule, so G7 is refused."""
    board = {"H8": 6, "H7": 5}
    assert not oracle.is_legal(board, {"G7": 1}, [1])
    assert not check_turn(Board(board), {"G7": 1}, hand=[1]).legal
    assert oracle.is_legal(board, {"I8": 1}, [1])
    assert check_turn(Board(board), {"I8": 1}, hand=[1]).legal


#: positions where every way of placing as many tiles covers a bare light cell (found
#: with the oracle; about one random position in 600 is one)
FORCED = [
    ({"K6": 6, "K5": 5, "J6": 5, "J5": 5, "L5": 2}, [4], [{"L4": 4}]),
    ({"C2": 5, "B2": 6, "B3": 5, "C3": 6, "D3": 1}, [6], [{"D4": 6}]),
]


@pytest.mark.parametrize("board, hand, expected", FORCED)
def test_a_bare_light_cell_is_allowed_when_every_way_covers_one(board, hand, expected):
    assert oracle.legal_turns(board, hand) == as_set(expected)
    (placed,) = expected
    assert oracle.bare_light(board, placed) == 1
    assert as_set(legal_placements(Board(board), hand)) == as_set(expected)
    result = check_turn(Board(board), placed, hand=hand)
    assert result.legal and result.crosses == 0
