"""Invariants the board game and the card game share, as one test over both variants.

Each variant is wrapped in a small adapter (positions from simulated games, an
attempted turn, the checker, the move generator, the lines of a position); the
properties are written once. Kept small: a few dozen examples each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zatre_vision.cards.rules import (
    ADJACENT,
    CARD_RULES,
    CardLayout,
    CardSheet,
    card_lines_through,
    check_card_turn,
    legal_card_moves,
    position_name,
)
from zatre_vision.cards.simulate import CardSimulation
from zatre_vision.rules import Board, ScoreSheet, check_turn, legal_placements
from zatre_vision.rules.board import CELLS, NAMES, NEIGHBOURS, lines_through
from zatre_vision.rules.tiles import TILE_SET
from zatre_vision.simulate import Simulation
from zatre_vision.variants import score_record

from .bag_hands import hands_from_bag

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Variant:
    name: str
    position: Callable[[int, int, str], tuple]  # seed, turns, strategy -> frozen position
    build: Callable[[tuple], Any]  # frozen position -> board/layout
    near: Callable[[Any], list[str]]  # empty places a turn may try
    values: tuple[int, ...]
    max_cards: int  # most cards/tiles one attempted turn lays
    check: Callable[..., Any]  # (board, placed, hand=None) -> TurnResult
    moves: Callable[[Any, list[int]], list[dict[str, int]]]
    max_line: Callable[[Any, dict[str, int]], int]  # largest line after laying placed
    connected: Callable[[Any, dict[str, int]], bool]
    simulate: Callable[[int], tuple[Any, dict, dict[str, int]]]  # -> game, record, totals
    sheet: Callable[[], ScoreSheet]
    in_set: Mapping[int, int]  # value -> how many the set (or deck) holds


# -- board game ---------------------------------------------------------------------------------


@lru_cache(maxsize=128)
def _board_position(seed: int, turns: int, strategy: str) -> tuple:
    game = Simulation(["A", "B", "C"], seed, [strategy] * 3).run(max_turns=turns)
    return tuple(sorted(game.board.to_dict().items()))


def _board_near(board: Board) -> list[str]:
    front = board.frontier()
    near = front | {n for i in front for n in NEIGHBOURS[i] if not board.values[n]}
    return sorted(NAMES[i] for i in near)


def _board_after(board: Board, placed: dict[str, int]) -> Board:
    return Board({**board.to_dict(), **placed})


def _board_max_line(board: Board, placed: dict[str, int]) -> int:
    after = _board_after(board, placed)
    return max((s for _, s in lines_through(after.values, CELLS)), default=0)


def _board_connected(board: Board, placed: dict[str, int]) -> bool:
    after = _board_after(board, placed)
    cells = list(after.occupied())
    seen, stack = {cells[0]}, [cells[0]]
    while stack:
        for n in NEIGHBOURS[stack.pop()]:
            if after.values[n] and n not in seen:
                seen.add(n)
                stack.append(n)
    return len(seen) == len(cells)


def _board_simulate(seed: int):
    game = Simulation(["A", "B"], seed, ["greedy", "random"]).run()
    return game, game.to_record(), {s.name: s.sheet.total for s in game.seats}


BOARD = Variant(
    "board", _board_position, lambda pos: Board(dict(pos)), _board_near, (1, 2, 3, 4, 5, 6), 3,
    lambda b, placed, hand=None: check_turn(b, placed, hand=hand),
    lambda b, hand: legal_placements(b, hand),
    _board_max_line, _board_connected, _board_simulate, ScoreSheet, TILE_SET,
)


# -- card game -------------------------------------------------------------------------------------


@lru_cache(maxsize=128)
def _card_position(seed: int, turns: int, strategy: str) -> tuple:
    sim = CardSimulation(["A", "B", "C"], seed, [strategy] * 3)
    sim.run(max_turns=1 + turns % 24)  # stay inside the first round
    return tuple(sorted(sim.game.layout.to_dict().items()))


def _card_near(layout: CardLayout) -> list[str]:
    if not layout.cards:
        return [position_name((x, y)) for x in range(-1, 2) for y in range(-1, 2)]
    front = layout.frontier()
    near = front | {(x + dx, y + dy) for x, y in front for dx, dy in ADJACENT
                    if (x + dx, y + dy) not in layout.cards}
    return sorted(position_name(p) for p in near)


def _card_after(layout: CardLayout, placed: dict[str, int]) -> CardLayout:
    return CardLayout({**layout.to_dict(), **placed})


def _card_max_line(layout: CardLayout, placed: dict[str, int]) -> int:
    after = _card_after(layout, placed)
    lines = card_lines_through(after.cards, after.cards, CARD_RULES.line_directions)
    return max((s for _, s in lines), default=0)


def _card_connected(layout: CardLayout, placed: dict[str, int]) -> bool:
    after = _card_after(layout, placed).cards
    start = next(iter(after))
    seen, stack = {start}, [start]
    while stack:
        x, y = stack.pop()
        for dx, dy in ADJACENT:
            p = (x + dx, y + dy)
            if p in after and p not in seen:
                seen.add(p)
                stack.append(p)
    return len(seen) == len(after)


def _card_simulate(seed: int):
    game = CardSimulation(["A", "B"], seed, ["greedy", "random"]).run()
    return game, game.to_record(), game.totals()


CARDS = Variant(
    "cards", _card_position, lambda pos: CardLayout(dict(pos)), _card_near,
    tuple(CARD_RULES.values), 2,
    lambda lay, placed, hand=None: check_card_turn(lay, placed, hand=hand),
    lambda lay, hand: legal_card_moves(lay, hand),
    _card_max_line, _card_connected, _card_simulate, CardSheet, CARD_RULES.cards,
)

VARIANTS = [BOARD, CARDS]
variants = pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)

seeds = st.integers(0, 2_000)
turn_counts = st.integers(1, 40)
strategies = st.sampled_from(["random", "greedy"])


@st.composite
def attempts(draw, variant: Variant):
    """A position from a simulated game and a random attempt at a turn, legal or not."""
    board = variant.build(variant.position(draw(seeds), draw(turn_counts), draw(strategies)))
    cells = draw(st.lists(st.sampled_from(variant.near(board)), min_size=1,
                          max_size=variant.max_cards, unique=True))
    values = draw(st.lists(st.sampled_from(variant.values), min_size=len(cells),
                           max_size=len(cells)))
    return board, dict(zip(cells, values, strict=True))


@variants
@SETTINGS
@given(data=st.data())
def test_no_accepted_turn_leaves_a_line_over_12_or_a_loose_piece(variant, data):
    board, placed = data.draw(attempts(variant))
    result = variant.check(board, placed)
    if result.legal:
        assert variant.max_line(board, placed) <= 12
        assert variant.connected(board, placed)
    elif variant.max_line(board, placed) > 12:
        assert "line-over-12" in {v.code for v in result.violations}


@variants
@SETTINGS
@given(data=st.data())
def test_every_generated_move_is_accepted(variant, data):
    board = variant.build(variant.position(data.draw(seeds), data.draw(turn_counts),
                                           data.draw(strategies)))
    hand = data.draw(hands_from_bag(variant.in_set, board.to_dict().values(), variant.values))
    for placed in variant.moves(board, hand)[:40]:
        if placed:
            result = variant.check(board, placed, hand=hand)
            assert result.legal, (placed, result.violations)


@variants
@SETTINGS
@given(data=st.data())
def test_score_does_not_depend_on_the_order_of_the_pieces(variant, data):
    board, placed = data.draw(attempts(variant))
    items = list(placed.items())
    data.draw(st.randoms(use_true_random=False)).shuffle(items)
    a = variant.check(board, placed)
    b = variant.check(board, dict(items))
    assert a.legal == b.legal
    assert a.to_json()["points"] == b.to_json()["points"]
    assert a.to_json().get("super_bonus") == b.to_json().get("super_bonus")
    assert a.crosses == b.crosses and a.lines == b.lines
    assert sorted((v.code, v.cells) for v in a.violations) == sorted(
        (v.code, v.cells) for v in b.violations)


sheet_turns = st.lists(st.fixed_dictionaries({10: st.integers(0, 3), 11: st.integers(0, 9),
                                              12: st.integers(0, 15)}), max_size=30)


@variants
@SETTINGS
@given(turns=sheet_turns, bonus=st.lists(st.booleans(), max_size=30))
def test_sheet_total_is_its_rows_plus_extras(variant, turns, bonus):
    """Board game: rows minus the pips left in hand (none here). Card game: rows plus
    the super bonuses, no minus. Rows: entries plus the printed bonus when full."""
    sheet = variant.sheet()
    supers = 0
    for k, points in enumerate(turns):
        if isinstance(sheet, CardSheet) and k < len(bonus) and bonus[k]:
            sheet.enter(points, super_bonus=6)
            supers += 6
        else:
            sheet.enter(points)
    rows = sheet.rows()
    assert sheet.total == sum(r.total for r in rows) + supers
    for r in rows:
        assert r.bonus == (sheet.bonus_for(r.number) if r.complete else 0)
        assert r.total == sum(v for v in r.entries.values() if v is not None) + r.bonus
    for s in (10, 11, 12):
        assert [v for v in sheet.columns[s]] == [p[s] for p in turns if p[s]]


@variants
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_simulated_games_replay_legally_with_the_same_totals(variant, seed):
    game, record, totals = variant.simulate(seed)
    out = score_record(record)
    assert all(t["legal"] for t in out["turns"]), [t for t in out["turns"] if not t["legal"]][:1]
    assert {p: s["total"] for p, s in out["sheets"].items()} == totals
    assert variant.simulate(seed)[1] == record  # the seed alone decides the game
