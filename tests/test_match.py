"""The table's match state: commits, flagged turns, corrections, undo, the end."""

import pytest

from zatre_vision.match import Match, MatchError


def started() -> Match:
    m = Match(["Ann", "Ben"], starter="Ben")
    assert m.propose({"H8": 6, "H7": 5, "G7": 5}).legal
    return m


def test_turns_alternate_from_the_starter_and_sheets_fill():
    m = started()
    assert m.current_player == "Ann"
    state = m.state()
    assert state["sheets"]["Ben"]["total"] == 6 and state["turn"] == "Ann"
    assert state["bag"] == 121 - 3
    assert state["last_turn"]["points"] == {"10": 1, "11": 2, "12": 0}


def test_illegal_turn_waits_with_an_alert_until_rejected_or_accepted():
    m = started()
    r = m.propose({"H6": 4})
    assert not r.legal and m.pending is not None
    alert = m.state()["alerts"][0]
    assert alert["kind"] == "illegal-turn" and "more than 12" in alert["reasons"][0]
    assert "H6" not in m.state()["board"]
    with pytest.raises(MatchError):
        m.propose({"G6": 1})
    m.reject_pending()
    assert m.state()["alerts"] == [] and m.current_player == "Ann"
    m.propose({"H6": 4})
    m.accept_pending()  # operator override: applied as placed, violation on record
    assert m.state()["board"]["H6"] == 4
    assert m.to_record()["turns"][-1]["override"] is True
    assert m.current_player == "Ben"


def test_correcting_a_misread_cell_recomputes_the_sheets():
    m = started()
    m.propose({"G8": 5})  # 10 + 11 for Ann
    assert m.totals()["Ann"] == 3
    m.set_cell("G8", 4)  # it was a 4: G7-G8 = 9, G8-H8 = 10
    assert m.totals()["Ann"] == 1
    m.set_cell("G8", None)
    assert m.totals()["Ann"] == 0 and "G8" not in m.state()["board"]
    m.set_cell("I8", 4)  # a tile the camera missed goes to the last turn
    assert m.totals()["Ann"] == 1
    assert m.to_record()["turns"][-1]["placed"] == {"I8": 4}


def test_correcting_the_flagged_turn_can_make_it_legal():
    m = started()
    m.propose({"H6": 4})
    m.set_cell("H6", 1)
    assert m.pending is None and m.state()["board"]["H6"] == 1


def test_undo_and_finish():
    m = started()
    m.propose({"G8": 5})
    m.undo()
    assert m.current_player == "Ann" and "G8" not in m.state()["board"]
    m.finish({"Ann": 3, "Ben": 0})
    assert m.state()["finished"] and m.state()["winners"] == ["Ben"]
    assert m.totals() == {"Ann": -3, "Ben": 6}
    with pytest.raises(MatchError):
        m.propose({"G8": 5})
    with pytest.raises(MatchError):
        Match(["Ann", "Ann"])


def test_declared_held_tiles_count_against_the_bag_and_rules():
    m = started()
    m.propose({"G8": 5})
    m.declare_held([6])
    assert m.to_record()["turns"][-1]["hand"] == [5, 6]
    assert m.bag_count == 121 - 4 - 1
    # 5 on I8 and 6 on I9 would have placed both: the turn stays, flagged on record
    last = m.state()["last_turn"]
    assert [v["code"] for v in last["violations"]] == ["tile-not-placed"]
    assert m.state()["board"]["G8"] == 5


def test_bad_input_is_a_match_error():
    m = started()
    for placed in ({"Z99": 1}, {"G8": 0}, {"G8": "5"}):
        with pytest.raises(MatchError):
            m.propose(placed)
    with pytest.raises(MatchError):
        m.set_cell("G8", 9)


def test_round_trip_through_the_record():
    m = started()
    m.propose({"G8": 5})
    again = Match.from_record(m.to_record())
    assert again.state() == m.state()
