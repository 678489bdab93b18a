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


def test_correcting_a_flagged_tile_keeps_its_hand_consistent():
    m = started()
    m.propose({"H6": 4, "G8": 1}, hand=[4, 1])
    assert m.pending is not None
    m.set_cell("H6", 1)  # it was a 1: column H6-H8 = 12, legal now
    assert m.pending is None
    assert m.to_record()["turns"][-1]["hand"] == [1, 1]


def test_a_correction_under_a_flagged_turn_judges_it_again():
    m = started()
    m.propose({"H6": 1})  # column H6-H8 = 12: legal
    m.propose({"G6": 6})  # Ben: row G6-H6 = 7, column G6-G7 = 11: legal
    m.propose({"I7": 2})  # Ann: row G7-H7-I7 = 12: legal
    m.propose({"I6": 6})  # Ben: row G6-H6-I6 = 13: flagged
    assert m.pending is not None
    m.set_cell("G6", 4)  # the camera misread G6: G6-H6-I6 = 11 now
    assert m.pending is None
    assert m.state()["board"]["I6"] == 6


def test_record_replays_exactly_as_the_table_scored_after_a_correction():
    from zatre_vision.rules.record import score_record

    m = started()
    m.propose({"G8": 5})
    m.propose({"I8": 1})  # Ben: row G8-H8-I8 = 12
    m.set_cell("G8", 6)  # the camera misread G8: the row is 13, but Ben's 1 stays on the table
    assert m.state()["board"]["I8"] == 1
    record = m.to_record()
    assert record["turns"][-1].get("override") is True
    assert score_record(record)["sheets"] == m.state()["sheets"]


def test_undo_after_the_end_reopens_the_match_and_keeps_its_turns():
    m = started()
    m.propose({"G8": 5})
    turns = m.to_record()["turns"]
    m.finish({"Ann": 3, "Ben": 9})
    assert m.undo() is None
    assert not m.state()["finished"] and m.minus == {}
    assert m.to_record()["turns"] == turns         # the last turn is still there
    before = m.totals()
    m.finish({"Ann": 3, "Ben": 2})                 # so a wrong minus entry can be redone
    assert m.state()["finished"] and m.minus == {"Ann": 3, "Ben": 2}
    assert m.totals() == {"Ann": before["Ann"] - 3, "Ben": before["Ben"] - 2}


def test_a_correction_that_breaks_a_committed_turn_raises_an_alert():
    m = started()                                   # Ben: H8 6, H7 5, G7 5
    assert m.propose({"G8": 1, "G9": 6}).legal      # Ann: G7-G8-G9 = 12
    assert m.state()["alerts"] == []
    m.set_cell("G8", 2)                             # a misread: G8 shows a two, 13
    alerts = m.state()["alerts"]
    assert [(a["kind"], a["turn"], a["player"]) for a in alerts] == [("broken-turn", 2, "Ann")]
    assert [v["code"] for v in alerts[0]["violations"]] == ["line-over-12"]
    assert m.to_record()["turns"][1]["override"] is True   # still scored as placed
    m.set_cell("G8", 1)
    assert m.state()["alerts"] == []
