"""The match analysis (rules/analysis.py): best moves, points missed, known hands."""

import random
from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zatre_vision.rules import Board, ScoreSheet, check_turn
from zatre_vision.rules.analysis import (
    KnownHand,
    analyse_record,
    analyse_turn,
    coach_line,
    legal_moves,
    turn_points,
)
from zatre_vision.rules.board import NAMES, cell_index
from zatre_vision.rules.moves import evaluate, legal_index_placements, sheet_value
from zatre_vision.rules.record import RecordTurn, ReplayedTurn, parse_record
from zatre_vision.rules.search import StepBudget
from zatre_vision.rules.tiles import TILE_SET
from zatre_vision.rules.turn import score_lines
from zatre_vision.simulate import Simulation

from . import oracle
from .bag_hands import hands_from_bag
from .positions import board_of, sheet_of

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@lru_cache(maxsize=128)
def position(seed: int, turns: int) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[int, ...], ...]]:
    """A board after ``turns`` turns of a simulated game and its sheets' columns."""
    sim = Simulation(["A", "B"], seed, ["random", "greedy"])
    game = sim.run(max_turns=turns)
    sheet = game.seats[0].sheet
    return (tuple(sorted(game.board.to_dict().items())),
            (sheet.crosses,) + tuple(tuple(sheet.columns[s]) for s in (10, 11, 12)))



def measures(board: Board, sheet: ScoreSheet, placed: dict[str, int]) -> tuple[int, float]:
    """Both measures of one move, the slow way: the engine's own scoring and sheet."""
    move = evaluate(board, tuple(sorted((cell_index(c), v) for c, v in placed.items())), sheet)
    after = sheet.copy()
    after.enter(move.result.points, move.result.crosses)
    return after.rows_total - sheet.rows_total, sheet_value(after) - sheet_value(sheet)


def played_turn(board: Board, placed: dict[str, int], hand) -> ReplayedTurn:
    result = check_turn(board, placed, hand=hand)
    return ReplayedTurn(RecordTurn("A", placed, tuple(hand)), result, result.legal)


@st.composite
def small_positions(draw):
    """An early board (1-5 turns), a sheet and a hand of 1-2 tiles from the bag."""
    cells, columns = position(draw(st.integers(0, 400)), draw(st.integers(1, 5)))
    hand = draw(hands_from_bag(TILE_SET, (v for _, v in cells)))
    return board_of(cells), sheet_of(columns), hand[:2]


@SETTINGS
@given(small_positions(), st.randoms(use_true_random=False))
def test_best_move_is_legal_and_nothing_legal_beats_it(case, rnd):
    board, sheet, hand = case
    legal = oracle.legal_turns(board.to_dict(), hand)  # every legal move, from rules.md
    if legal == {frozenset()}:
        return  # nothing placeable: a pass (covered below)
    played = dict(rnd.choice(sorted(sorted(m) for m in legal)))
    turn = analyse_turn(board, sheet, KnownHand(tuple(sorted(hand)), True, "declared"),
                        played_turn(board, played, hand), 1)
    for best in (turn.best_points, turn.best_value):
        assert check_turn(board, best.placed, hand=hand).legal
        assert frozenset(best.placed.items()) in legal
    # every legal move, valued the slow way, is no better
    valued = [measures(board, sheet, dict(m)) for m in legal]
    assert turn.best_points.points == max(p for p, _ in valued)
    assert turn.best_value.value == pytest.approx(max(v for _, v in valued), abs=1e-9)
    assert turn.missed_points >= 0 and turn.missed_value >= 0
    assert (turn.played.points, turn.played.value) == pytest.approx(measures(board, sheet, played))
    assert turn.missed_points == turn.best_points.points - turn.played.points


@SETTINGS
@given(st.integers(0, 3_000), st.sampled_from(["random", "greedy"]))
def test_points_missed_are_never_negative(seed, strategy):
    game = Simulation(["A", "B", "C"], seed, [strategy, "random", "greedy"]).run(max_turns=24)
    analysis = analyse_record(parse_record(game.to_record()), limit=300)
    for turn in analysis.turns:
        assert turn.counted
        assert turn.missed_points >= 0 and turn.missed_value >= 0
        assert turn.best_points.points >= turn.played.points
    for summary in analysis.summary.values():
        assert summary.points_missed >= 0 and summary.value_missed >= 0


def best_by_points_player(board, hand, sheet, rng):
    """Always the move that adds most to the sheet's total now, valued through the
    engine's own ``evaluate`` (not the analysis's code)."""
    best, best_points = {}, -1
    for p in legal_index_placements(board, hand):
        placed = {NAMES[i]: v for i, v in p}
        points, _ = measures(board, sheet, placed) if p else (0, 0.0)
        if points > best_points:
            best, best_points = placed, points
    return best


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3_000))
def test_a_player_always_taking_the_best_move_misses_nothing_by_that_measure(seed):
    # by sheet value: the greedy player (moves.ranked_moves); by points: the player above
    sim = Simulation(["A", "B", "C"], seed, ["greedy", "random", "greedy"])
    sim._strategies[1] = best_by_points_player
    game = sim.run(max_turns=30)
    analysis = analyse_record(parse_record(game.to_record()))
    assert analysis.summary["A"].value_missed == 0 and analysis.summary["C"].value_missed == 0
    assert analysis.summary["B"].points_missed == 0
    assert analysis.summary["A"].best_by_value == analysis.summary["A"].counted > 0
    assert all(t.missed_value == 0 for t in analysis.turns if t.player in "AC")
    assert all(t.missed_points == 0 for t in analysis.turns if t.player == "B")


@SETTINGS
@given(small_positions())
def test_turn_points_agree_with_the_engine(case):
    board, _, hand = case
    for p in legal_index_placements(board, hand)[:50]:
        values = list(board.values)
        for i, v in p:
            values[i] = v
        _, points, crosses = score_lines(values, [i for i, _ in p])
        assert turn_points(values, p) == (points, crosses)


# -- hands ---------------------------------------------------------------------------------

FIRST = {"H8": 6, "H7": 5, "G7": 5}


def after_first() -> Board:
    return board_of(FIRST.items())


def hands(record: dict) -> list[tuple]:
    """(hand, source, most) of each turn as the analysis gives it."""
    return [(t["hand"], t["hand_source"], t["hand_most"])
            for t in analyse_record(parse_record(record)).to_json()["turns"]]


def test_a_declared_hand_is_the_hand():
    record = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": FIRST}, {"player": "Ben", "placed": {"I8": 4}, "hand": [4, 6]}]}
    assert hands(record)[1] == ([4, 6], "declared", 2)


def test_a_full_turn_from_an_empty_hand_is_the_whole_hand():
    record = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": FIRST}, {"player": "Ben", "placed": {"G8": 4, "G9": 2}}]}
    assert hands(record) == [([5, 5, 6], "rules", 3), ([2, 4], "rules", 2)]
    # a team seat draws four: two placed do not show its hand
    team = {**record, "teams": {"Ann": 2, "Ben": 2}}
    assert hands(team)[1] == (None, "placed-only", 4)


def test_tiles_kept_back_and_never_declared_leave_the_hand_unknown():
    record = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": FIRST}, {"player": "Ben", "placed": {"I8": 4}}]}
    turn = analyse_record(parse_record(record)).turns[1]
    assert turn.hand == KnownHand((4,), False, "placed-only", 2, turn.hand.why)
    assert "1 to 2 tiles held" in turn.notes[0]


def test_a_turn_with_tiles_kept_back_is_analysed_only_on_what_is_certain():
    record = parse_record({"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": FIRST},
        {"player": "Ben", "placed": {"I8": 4}},          # kept one back, undeclared
        {"player": "Ann", "placed": {"G6": 1, "G5": 3}},
        # one kept, one drawn (rule 6): two placed show the whole hand
        {"player": "Ben", "placed": {"H6": 1, "H5": 2}},
    ]})
    turns = analyse_record(record).turns
    assert [t.hand.complete for t in turns] == [True, False, True, True]
    assert turns[3].hand.source == "rules" and turns[3].hand.tiles == (1, 2)
    ben = turns[1].to_json()
    assert ben["legal"] and ben["hand"] is None and ben["hand_known"] is False
    assert ben["tiles_analysed"] == [4] and ben["lower_bound"] is True
    assert ben["hand_most"] == 2
    assert any("not fully known" in n and "at least" in n for n in ben["notes"])
    # only moves of the tiles placed are compared
    assert list(ben["best_by_value"]["placed"].values()) == [4]


def test_an_illegal_turn_is_not_counted_nor_searched():
    record = parse_record({"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": FIRST},
        {"player": "Ben", "placed": {"H6": 4}, "hand": [4, 6]},  # line H6-H8 = 15
    ]})
    analysis = analyse_record(record)
    ben = analysis.turns[1]
    assert not ben.counted and ben.missed_points is None
    assert ben.best_value is None and ben.placements == 0 and not ben.capped
    assert any("not searched" in note for note in ben.notes)
    assert analysis.summary["Ben"].counted == 0 and analysis.summary["Ben"].points_missed == 0


def test_a_capped_turn_says_so_and_still_compares_the_move_played():
    sim = Simulation(["A", "B"], 3, ["random", "random"])
    game = sim.run(max_turns=20)
    record = parse_record(game.to_record())
    capped = analyse_record(record, limit=1)
    full = analyse_record(record)
    assert any(t.capped for t in capped.turns)
    for c, f in zip(capped.turns, full.turns, strict=True):
        assert c.missed_points >= 0
        assert c.missed_points <= f.missed_points  # a floor of the full figure
        if c.capped:
            assert c.lower_bound and any("reached its bound" in n for n in c.notes)


def test_a_pass_with_nothing_placeable_misses_nothing():
    # seed 118: late in the game players hold tiles that fit nowhere and pass
    game = Simulation(["A", "B", "C"], 118, ["greedy", "random", "random"]).run(max_turns=52)
    turns = analyse_record(parse_record(game.to_record())).turns
    passes = [t for t in turns if not t.played.placed]
    assert passes
    for t in passes:
        assert t.hand.complete and t.best_points.placed == {} and t.missed_points == 0
        assert "no tile of the hand could be placed" in t.notes


def test_summary_lists_the_costliest_turns_first():
    rng = random.Random(5)
    game = Simulation(["A", "B"], rng.randrange(1000), ["random", "random"]).run(max_turns=30)
    summary = analyse_record(parse_record(game.to_record())).summary["A"].to_json()
    missed = [c["missed_points"] for c in summary["costliest"]]
    assert missed == sorted(missed, reverse=True) and len(missed) <= 3
    assert summary["turns"] == 15 and summary["points_missed"] >= sum(missed)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2_000), st.integers(6, 20), st.integers(1, 40), st.integers(1, 300),
       st.randoms(use_true_random=False))
def test_every_move_the_bounded_search_returns_is_legal(seed, turns, limit, budget, rnd):
    cells, _ = position(seed, turns)
    board = board_of(cells)
    left = Counter(TILE_SET)
    left.subtract(v for _, v in cells)
    hand = sorted(rnd.sample(sorted(left.elements()), rnd.randint(2, 3)))
    moves, capped = legal_moves(board, hand, limit, StepBudget(budget * 20))
    every = legal_index_placements(board, hand)
    assert len(moves) <= limit and set(moves) <= set(every)
    assert moves or capped  # nothing certified only when the budget ran out
    # a search that was not capped found every move; one whose budget ran out may
    # still have found them all (it cannot know), so it claims nothing then
    assert capped or set(moves) == set(every)
    for p in moves[:5]:
        assert check_turn(board, {NAMES[i]: v for i, v in p}, hand=hand).legal


def test_coach_line_says_what_is_certain_only():
    record = parse_record({"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": FIRST},
        {"player": "Ben", "placed": {"G8": 4, "G9": 2}, "hand": [2, 4]},
        {"player": "Ann", "placed": {"I8": 1}},  # kept a tile back, never declared
    ]})
    turns = analyse_record(record).turns
    assert coach_line(turns[1]) == "Ben: best was I7=2 G8=4 for 10 (you scored 6)"
    ann = coach_line(turns[2])
    assert ann.startswith("Ann: with the tiles placed (the rest of the hand is not known), ")
    assert coach_line(analyse_record(record, only={2}).turns[0]) == coach_line(turns[1])
