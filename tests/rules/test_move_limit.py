"""The cap on how many legal placements are listed, and the simulation's use of it.

A hand of many carried-over tiles can have millions of legal placements (a greedy
two-player game of seed 324 holds nine tiles on 95 by turn 68); listing them all
took minutes and gigabytes and could hang the simulated-games property test.
"""

from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zatre_vision.rules.moves as moves
import zatre_vision.simulate as simulate
from zatre_vision.rules import Board, ScoreSheet, cell_index, check_turn
from zatre_vision.rules.board import NAMES
from zatre_vision.rules.moves import (
    evaluate,
    legal_index_placements,
    placement_nonscoring_light,
    ranked_moves,
)
from zatre_vision.rules.tiles import TILE_SET
from zatre_vision.simulate import Simulation


@lru_cache(maxsize=64)
def _position(seed: int, turns: int) -> tuple[tuple[str, int], ...]:
    game = Simulation(["A", "B"], seed, ["random", "greedy"]).run(max_turns=turns)
    return tuple(sorted(game.board.to_dict().items()))


def _names(placement) -> dict[str, int]:
    return {NAMES[i]: v for i, v in placement}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 500), turns=st.integers(0, 30),
       hand=st.lists(st.integers(1, 6), min_size=1, max_size=3),
       limit=st.integers(1, 400))
def test_a_limited_list_is_the_start_of_the_whole_list(seed, turns, hand, limit):
    board = Board(dict(_position(seed, turns)))
    whole = legal_index_placements(board, hand)
    limited = legal_index_placements(board, hand, limit=limit)
    assert limited == whole[:limit]


def test_a_large_carried_over_hand_is_listed_up_to_the_limit_and_every_one_is_legal():
    board = Board(dict(_position(5, 40)))
    left = Counter(TILE_SET)
    left.subtract(board.to_dict().values())
    hand = []
    for wanted in (3, 5, 4, 4, 5, 2, 3, 4, 1):  # seed 324's hand, as far as the bag allows
        value = wanted if left[wanted] > 0 else max(left, key=left.get)
        hand.append(value)
        left[value] -= 1
    listed = legal_index_placements(board, hand, limit=150)
    assert len(listed) == 150
    assert len({p for p in listed}) == 150
    sizes = {len(p) for p in listed}
    assert len(sizes) == 1 and sizes.pop() >= 3
    for placement in listed[::10]:
        result = check_turn(board, _names(placement), hand=hand)
        assert result.legal, result.violations
    # all of them cover the fewest bare light cells, like the whole list would
    assert len({placement_nonscoring_light(board, p) for p in listed}) == 1


def test_the_limit_must_be_at_least_one():
    with pytest.raises(ValueError, match="at least 1"):
        legal_index_placements(Board(), [1, 2, 3], limit=0)


def test_ranked_moves_value_each_move_as_evaluate_does():
    """ranked_moves values the sheet before the move once and shares the value of the
    same entries between moves; the values must be evaluate's, move by move."""
    board = Board(dict(_position(7, 12)))
    sheet = ScoreSheet.from_columns(2, [1, 1], [2], [4, 4, 4])
    moves = ranked_moves(board, [2, 5, 6], sheet)
    assert len(moves) > 20
    for move in moves:
        placement = tuple(sorted((cell_index(n), v) for n, v in move.placed.items()))
        again = evaluate(board, placement, sheet)
        assert again.value == move.value
        assert again.result.points == move.result.points
        assert again.result.crosses == move.result.crosses


def _counting_listings(lengths: list[int]):
    """``legal_index_placements`` that also notes the length of every list it gives."""
    def counting(board, hand, first_turn=None, limit=None):
        out = legal_index_placements(board, hand, first_turn, limit)
        lengths.append(len(out))
        return out

    return counting


def test_simulated_players_look_at_no_more_than_the_limit(monkeypatch):
    seen: list[int] = []
    monkeypatch.setattr(simulate, "MOVE_LIMIT", 4)
    monkeypatch.setattr(simulate, "legal_index_placements", _counting_listings(seen))
    game = Simulation(["A", "B"], 3, ["random", "random"]).run()
    assert game.over
    assert seen and max(seen) == 4
    # the game the capped players left is a legal game: the rules engine accepted it
    assert sum(len(t.result.placed) for t in game.history) == game.board.count


def test_the_game_that_hung_the_property_test_now_ends(monkeypatch):
    """Greedy seed 324 holds nine tiles by turn 68, where listing every placement took
    minutes and gigabytes; with the cap the whole game takes about 25 s."""
    listed: list[int] = []
    # behind ranked_moves, which the greedy players call
    monkeypatch.setattr(moves, "legal_index_placements", _counting_listings(listed))
    sim = Simulation(["A", "B"], 324, ["greedy", "greedy"])
    hands = [len(turn.hand) for turn in sim]
    assert sim.game.over
    assert max(hands) >= 9
    assert max(listed) == simulate.MOVE_LIMIT
