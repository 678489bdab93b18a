"""Issue 42 on the live path: a Match (the tracker's and the dashboard's) judges each
turn as `zatre score` does: turn order, team sizes, and what the player can hold,
also when no hand is declared (issue 41: a tile borrowed from the next player)."""

import pytest

from zatre_vision.match import Match, MatchError
from zatre_vision.rules import score_record
from zatre_vision.tracking.sink import MatchSink

OPEN = {"H8": 6, "H7": 5, "G7": 5}


def codes(result) -> list[str]:
    return [v.code for v in result.violations]


def test_a_turn_with_a_tile_borrowed_from_the_next_player_is_flagged_without_a_hand():
    m = Match(["Ann", "Ben"])
    assert m.propose(OPEN).legal
    assert m.hand_limit() == 2                         # Ben's first hand
    # Ben's two tiles and one of Ann's: every line is legal (G8-F8-E8 and row 8 <= 12)
    result = m.propose({"G8": 1, "F8": 1, "E8": 1})
    assert not result.legal and codes(result) == ["wrong-draw"]
    assert m.pending is not None and m.state()["alerts"][0]["violations"][0]["code"] == "wrong-draw"
    m.reject_pending()
    assert m.propose({"G8": 1, "F8": 1}).legal          # the same turn without it
    assert m.hand_limit("Ann") == 2 and m.current_player == "Ann"
    assert not m.propose({"I8": 1, "I7": 1, "I6": 1}).legal


def test_a_player_who_kept_a_tile_back_holds_two_next_turn_not_three():
    m = Match(["Ann", "Ben"])
    m.propose(OPEN)
    assert m.propose({"G8": 1}).legal                  # one kept back
    m.propose({"I8": 1, "I7": 1})
    assert m.hand_limit() == 2                          # one kept, one drawn
    assert codes(m.propose({"F8": 1, "E8": 1, "D8": 1})) == ["wrong-draw"]
    m.reject_pending()
    assert m.propose({"F8": 1, "E8": 1}).legal


def test_the_tracker_commit_of_a_borrowed_tile_waits_as_a_flagged_turn():
    match = Match(["Ann", "Ben"])
    sink = MatchSink(match)
    assert sink.commit_turn(dict(OPEN), 1, "auto") is True
    assert sink.commit_turn({"G8": 1, "F8": 1, "E8": 1}, 2, "end_turn") is False
    assert match.pending.placed == {"G8": 1, "F8": 1, "E8": 1} and len(match.turns) == 1


def test_a_declared_hand_that_does_not_fit_the_history_is_flagged():
    m = Match(["Ann", "Ben"])
    m.propose(OPEN, hand=[6, 5, 5])
    m.propose({"G8": 1}, hand=[1, 2])                   # Ben keeps a 2 (it fitted:
    m.accept_pending()                                   # the operator lets it pass)
    m.propose({"I8": 1, "I7": 1}, hand=[1, 1])
    result = m.propose({"F8": 1, "E8": 3}, hand=[1, 3])  # where did the 2 go?
    assert codes(result) == ["wrong-draw"] and "lacks the tiles kept back [2]" in result.violations[0].message


def test_a_turn_entered_for_the_wrong_player_is_flagged_out_of_turn():
    m = Match(["Ann", "Ben", "Cy"])
    m.propose(OPEN)
    result = m.propose({"I8": 1}, player="Cy")
    assert codes(result) == ["out-of-turn"] and "it is Ben's turn" in result.violations[0].message
    m.accept_pending()                                   # the operator overrides: Cy played
    assert m.current_player == "Ann"                     # play goes on after Cy
    assert score_record(m.to_record())["turns"][1]["override"]


def test_a_correction_that_breaks_the_draw_is_shown_on_the_committed_turn():
    m = Match(["Ann", "Ben"])
    m.propose(OPEN)
    m.propose({"G8": 1, "F8": 1})
    m.add_to_turn(1, "E8", 1)                            # a third tile read late
    alert = m.state()["alerts"][0]
    assert alert["kind"] == "broken-turn" and alert["violations"][0]["code"] == "wrong-draw"


@pytest.mark.parametrize("players, teams", [
    (["A", "B"], {"A": 3, "B": 3}),
    (list("ABCDEF"), dict.fromkeys("ABCDEF", 3)),
    (["A", "B"], {"A": 2}),
])
def test_a_match_refuses_team_sizes_the_rules_do_not_have(players, teams):
    with pytest.raises(MatchError, match="'teams'"):
        Match(players, teams=teams)


def test_a_team_seat_may_place_four():
    m = Match(["Red", "Blue"], teams={"Red": 2, "Blue": 2})
    m.propose(OPEN)
    assert m.hand_limit() == 4
    assert m.propose({"G8": 1, "F8": 1, "E8": 1, "D8": 1}).legal


def test_the_live_table_flags_a_borrowed_tile_and_keeps_it_after_a_restart(tmp_path):
    from zatre_vision.store import open_store
    from zatre_vision.table import Table

    store = open_store(tmp_path / "d")
    table = Table(store, "t1")
    table.new_match(["Ann", "Ben"], "Ann")
    assert table.commit_turn(OPEN, source="camera")["legal"]
    verdict = table.commit_turn({"G8": 1, "F8": 1, "E8": 1}, source="camera")
    assert not verdict["legal"] and [v["code"] for v in verdict["violations"]] == ["wrong-draw"]
    assert table.state()["alerts"][0]["violations"][0]["code"] == "wrong-draw"
    store.close()
    store = open_store(tmp_path / "d")
    again = Table(store, "t1").state()
    assert again["pending"]["placed"] == {"G8": 1, "F8": 1, "E8": 1}
    assert again["alerts"][0]["violations"][0]["code"] == "wrong-draw"
    store.close()
