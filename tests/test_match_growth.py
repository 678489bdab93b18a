"""A turn costs the same at turn 500 as at turn 50: the match's replay goes on from
where it stood, the record's text is kept per turn, and a failed write rolls back
without a deep copy. What the views show is exactly what a whole replay shows."""

import json
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zatre_vision.match import Match, MatchError
from zatre_vision.simulate import Simulation
from zatre_vision.store import open_store
from zatre_vision.table import Table

PLAYERS = ["Ann", "Ben", "Cleo"]


def _replayed_anew(m: Match) -> Match:
    return m.rollback_copy()          # no cached replay: built from the record


def _same_as_a_whole_replay(m: Match) -> None:
    anew = _replayed_anew(m)
    assert m.state() == anew.state()
    assert m.held_tiles() == anew.held_tiles() and m.turn_players() == anew.turn_players()
    assert m.record_text() == json.dumps(m.to_record()) == json.dumps(anew.to_record())
    assert m.totals() == anew.totals()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), ops=st.lists(st.sampled_from(
    ["sim", "sim", "sim", "pass", "bad", "accept", "reject", "undo", "fix"]), max_size=40))
def test_a_match_grown_turn_by_turn_is_the_match_replayed_whole(seed, ops):
    sim = Simulation(PLAYERS, seed)
    turns = iter(sim)
    m = Match(list(PLAYERS), sim.game.seat.name)
    rng = random.Random(seed)
    for op in ops:
        try:
            if op == "sim" and m.pending is None:
                turn = next(turns, None)
                if turn is not None:
                    m.propose(turn.result.placed, list(turn.hand))
            elif op == "pass":
                m.propose({})
            elif op == "bad":          # out of turn or off the rules: flagged
                m.propose({"A1": 6}, None, rng.choice(PLAYERS))
            elif op == "accept":
                m.accept_pending()
            elif op == "reject":
                m.reject_pending()
            elif op == "undo":
                m.undo()
            elif op == "fix" and m.board.to_dict():
                cell = rng.choice(sorted(m.board.to_dict()))
                m.set_cell(cell, rng.randint(1, 6))
        except MatchError:
            pass
        _same_as_a_whole_replay(m)


def _work(fn) -> int:
    """Function calls (Python and C) made by ``fn()``: work counted, not timed."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


@pytest.fixture
def table(tmp_path):
    store = open_store(tmp_path / "data")
    t = Table(store, "table-1")
    yield t
    t.close()
    store.close()


def test_a_write_at_turn_500_costs_what_it_costs_at_turn_50(table):
    """Passes (a match kept open for days, a long card evening's board) grow a match
    without bound; the write of turn 500 does the work of turn 50 (the row's record
    text is longer, written in one piece)."""
    sim = Simulation(PLAYERS, 3)
    table.new_match(PLAYERS, sim.game.seat.name, source="manual")
    first = next(iter(sim))
    table.commit_turn(first.result.placed, list(first.hand), source="manual")
    work = {}
    while len(table.match.turns) < 501:
        n = len(table.match.turns) + 1
        if n in (50, 500):
            work[n] = _work(lambda: table.commit_turn({}, source="manual"))
        else:
            table.commit_turn({}, source="manual")
    assert work[500] <= 1.5 * work[50], work
    stored = table.store.get_match(table.match_id)["record"]
    assert stored == table.match.to_record() and len(stored["turns"]) == 501
    # a failed write goes back to the match as it was, whole
    before = table.state()

    def full(*a, **k):
        from zatre_vision.store import StoreError
        raise StoreError("the database failed (disk full)")

    table.store.save_match, saved = full, table.store.save_match
    with pytest.raises(Exception, match="disk full"):
        table.commit_turn({}, source="manual")
    table.store.save_match = saved
    assert table.state() == before
    _same_as_a_whole_replay(table.match)
