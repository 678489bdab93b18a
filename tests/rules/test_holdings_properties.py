"""Property tests (hypothesis) for issue 42: the draw check holds after any sequence of
applied and refused turns, and no record that breaks turn order or team size scores.

Games come from the simulation (real draws from the bag by rule 6); refused turns are
inserted where hypothesis chooses: the player tries a tile on a cell that touches no
tile (refused), gets it back, and plays the real turn."""

from functools import lru_cache

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from zatre_vision.rules import RecordError, parse_record, score_record
from zatre_vision.rules.board import CELLS, NAMES, NEIGHBOURS, START, Board, cell_index
from zatre_vision.rules.record import run_replay
from zatre_vision.rules.seats import TEAM_PLAYERS, TEAM_SIZE
from zatre_vision.simulate import Simulation

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SEATS = ["A", "B", "C"]
TURNS = 12


@lru_cache(maxsize=64)
def played(seed: int) -> tuple[dict, ...]:
    """The first turns of a simulated game as record turns, hands included."""
    game = Simulation(SEATS, seed, ["random"] * 3).run(max_turns=TURNS)
    return tuple(game.to_record()["turns"])


def loose_cell(board: Board) -> str:
    """An empty cell that touches no tile (and is not the start cell)."""
    for i in CELLS:
        if (i != START and not board.values[i]
                and not any(board.values[n] for n in NEIGHBOURS[i])):
            return NAMES[i]
    raise AssertionError("no loose cell")


def with_refusals(turns: tuple[dict, ...], refuse: list[bool], declare: list[bool]) -> list[dict]:
    """The record with a refused try before each turn marked in ``refuse``; hands kept
    only where ``declare`` says."""
    board = Board()
    out = []
    for k, turn in enumerate(turns):
        hand = turn["hand"] if declare[k] else None
        if refuse[k] and turn["hand"]:
            out.append({"player": turn["player"], "placed": {loose_cell(board): turn["hand"][0]},
                        "hand": hand, "try": True})
        out.append({"player": turn["player"], "placed": turn["placed"], "hand": hand})
        for cell, value in turn["placed"].items():
            board.put(cell_index(cell), value)
    return out


def replay(turns: list[dict]) -> list[dict]:
    record = {"players": SEATS, "turns": [{k: v for k, v in t.items() if k != "try"}
                                          for t in turns]}
    return score_record(record)["turns"]


flags = st.lists(st.booleans(), min_size=TURNS, max_size=TURNS)


@SETTINGS
@given(st.integers(0, 500), flags, flags)
def test_real_draws_pass_the_draw_check_after_any_refused_turns(seed, refuse, declare):
    turns = with_refusals(played(seed), refuse, declare)
    verdicts = replay(turns)
    for turn, verdict in zip(turns, verdicts, strict=True):
        codes = [v["code"] for v in verdict["violations"]]
        assert "wrong-draw" not in codes and "out-of-turn" not in codes, (turn, codes)
        assert verdict["legal"] != bool(turn.get("try"))


@SETTINGS
@given(st.integers(0, 500), flags, st.integers(1, TURNS - 1), st.integers(1, 6))
def test_a_tile_more_than_was_drawn_is_wrong_draw_after_any_refused_turns(seed, refuse, at, extra):
    real = played(seed)
    assume(at < len(real))
    turns = with_refusals(real, refuse, [True] * TURNS)
    # the real turn ``at`` (after its refused try, if any) holds one tile more
    index = [k for k, t in enumerate(turns) if not t.get("try")][at]
    turns[index] = {**turns[index], "hand": [*turns[index]["hand"], extra]}
    verdict = replay(turns)[index]
    assert "wrong-draw" in [v["code"] for v in verdict["violations"]]
    assert not verdict["legal"] and sum(verdict["points"].values()) == 0


@SETTINGS
@given(st.integers(0, 500), st.integers(1, TURNS - 1), st.integers(1, 2), st.booleans())
def test_a_turn_out_of_turn_never_scores(seed, at, shift, declare):
    real = [dict(t) for t in played(seed)]
    assume(at < len(real))
    if not declare:
        real = [{**t, "hand": None} for t in real]
    k = SEATS.index(real[at]["player"])
    real[at] = {**real[at], "player": SEATS[(k + shift) % 3]}
    verdict = replay(real)[at]
    assert "out-of-turn" in [v["code"] for v in verdict["violations"]]
    assert not verdict["legal"] and sum(verdict["points"].values()) == 0


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.just(n), st.dictionaries(st.sampled_from("ABCDEF"[:n]), st.integers(1, 4)))))
def test_only_two_or_three_teams_of_two_partners_are_accepted(case):
    n, teams = case
    record = {"players": list("ABCDEF"[:n]), "teams": teams, "turns": []}
    valid = (not teams or (len(teams) == n and set(teams.values()) == {TEAM_SIZE}
                           and n * TEAM_SIZE in TEAM_PLAYERS))
    if valid:
        assert parse_record(record).teams == teams
    else:
        with pytest.raises(RecordError, match="'teams'"):
            parse_record(record)


# --- the draw check with no hand declared: the values placed (issue 42 follow-up) ---

@SETTINGS
@given(st.integers(0, 500), flags)
def test_real_games_with_no_hand_declared_get_no_draw_or_held_back_flag(seed, refuse):
    """Hands left out everywhere: the value check and the hands the rules make certain
    (judged as hands, so ``tile-not-placed`` applies) never flag a real turn."""
    turns = with_refusals(played(seed), refuse, [False] * TURNS)
    for turn, verdict in zip(turns, replay(turns), strict=True):
        codes = [v["code"] for v in verdict["violations"]]
        assert "wrong-draw" not in codes and "tile-not-placed" not in codes, (turn, codes)
        assert verdict["legal"] != bool(turn.get("try"))


@SETTINGS
@given(st.integers(0, 500), flags, flags, st.integers(0, 5))
def test_a_value_beyond_the_kept_tiles_and_the_draw_is_always_wrong_draw(seed, refuse, declare, pick):
    """Where the tiles kept back are known exactly, a turn (no hand declared) placing more
    new values than the seat may draw gets ``wrong-draw``, within the number it may hold."""
    turns = with_refusals(played(seed), refuse, declare)
    record = {"players": SEATS, "turns": [{k: v for k, v in t.items() if k != "try"}
                                          for t in turns]}
    checked = 0
    for k, turn in enumerate(turns):
        referee = run_replay(parse_record({**record, "turns": record["turns"][:k]})).referee
        if referee.next_player != turn["player"]:
            continue
        allow = referee.allowance(turn["player"])
        if not allow.kept:
            continue  # nothing kept (or not known): only the number can be wrong
        new = [v for v in range(1, 7) if v not in allow.kept]
        may = allow.most - len(allow.kept)
        value = new[pick % len(new)]
        cells = [NAMES[i] for i in CELLS if not referee.board.values[i]][:may + 1]
        bad = {"player": turn["player"], "placed": dict.fromkeys(cells, value)}
        verdict = replay([*turns[:k], bad])[k]
        codes = [v["code"] for v in verdict["violations"]]
        assert "wrong-draw" in codes, (allow, bad, codes)
        assert not verdict["legal"] and sum(verdict["points"].values()) == 0
        checked += 1
    assume(checked)
