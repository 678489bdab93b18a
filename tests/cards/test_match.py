"""CardMatch: manual entry of a card game for the dashboard."""

import pytest

from zatre_vision.cards.match import CardMatch, CardMatchError, card_hints
from zatre_vision.cards.rules import CardLayout
from zatre_vision.cards.simulate import CardSimulation
from zatre_vision.variants import score_record


def test_manual_entry_scores_turn_by_turn():
    """Ann lays 6 4 (10: 1), Ben a zero after them (6 4 0 = 10 again: 1), Ann a 2
    under the 4 (4 + 2 = 6, nothing)."""
    m = CardMatch(["Ann", "Ben"])
    assert m.current_player == "Ann" and m.state()["first_turn"]
    assert m.propose({"0,0": 6, "1,0": 4}).legal
    assert m.current_player == "Ben"
    assert m.propose({"2,0": 0}).legal
    assert m.propose({"1,1": 2}).legal
    state = m.state()
    assert state["variant"] == "cards" and state["turn"] == "Ben"
    assert state["board"] == {"0,0": 6, "1,0": 4, "2,0": 0, "1,1": 2}
    assert state["round"] == 1 and state["rounds"] == 2 and state["cards_laid"] == 4
    assert m.totals() == {"Ann": 1, "Ben": 1}
    assert state["sheets"]["Ann"]["super_bonus"] == []
    assert state["hints"]["3,0"] == 2  # 6 4 0 + 2 = 12
    assert "-1,0" in state["hints"]


def test_illegal_turn_waits_as_pending_until_accepted_rejected_or_undone():
    m = CardMatch(["Ann", "Ben"])
    m.propose({"0,0": 6, "1,0": 4})
    r = m.propose({"2,0": 5})
    assert not r.legal and m.pending is not None
    assert m.state()["alerts"][0]["violations"][0]["code"] == "line-over-12"
    with pytest.raises(CardMatchError, match="flagged turn"):
        m.propose({"0,1": 1})
    m.reject_pending()
    assert m.propose({"0,1": 1}, player="Ben").legal
    m.propose({"3,3": 1})
    m.accept_pending()  # the operator overrides: the card stays, violations on record
    last = m.state()["last_turn"]
    assert last["override"] is True and last["violations"][0]["code"] == "not-connected"
    assert m.undo().placed == {"3,3": 1}
    assert m.undo().placed == {"0,1": 1}
    assert len(m.turns) == 1


def test_showing_the_hand_keeps_the_player_and_is_checked_with_the_hand():
    m = CardMatch(["Ann", "Ben"])
    m.propose({"0,0": 6, "1,0": 6})  # Ann 12: 5
    m.propose({"0,1": 6})  # Ben 12: 5
    m.propose({"1,1": 6})  # Ann two 12s: 10; a square of sixes: only zeros fit now
    assert m.current_player == "Ben"
    assert m.show_hand([1, 2, 3]).legal
    assert m.current_player == "Ben"
    assert not m.show_hand([0, 2, 3]).legal  # the zero fits
    m.reject_pending()
    assert m.propose({"2,0": 0}).legal  # 6 6 0: another 12
    assert m.totals() == {"Ann": 15, "Ben": 10}


def test_corrections_recompute_the_sheets():
    m = CardMatch(["Ann", "Ben"])
    m.propose({"0,0": 6, "1,0": 4})
    m.propose({"2,0": 1})  # 11
    assert m.totals()["Ben"] == 3
    m.set_card("2,0", 2)  # it was a 2: 12
    assert m.totals()["Ben"] == 5
    m.set_card("0,1", 4)  # a missed card joins the last turn: 6 + 4 = 10 for Ben
    assert m.turns[-1].placed == {"2,0": 2, "0,1": 4}
    assert m.state()["last_turn"]["violations"][0]["code"] == "wrong-card-count"
    m.set_card("0,1", None)
    assert m.totals()["Ben"] == 5
    with pytest.raises(CardMatchError, match="not a card position"):
        m.set_card("H8", 3)
    with pytest.raises(CardMatchError, match="not a card value"):
        m.propose({"0,-1": 9})


def test_rounds_advance_after_25_cards_and_the_record_round_trips():
    game = CardSimulation(["Ann", "Ben"], 7).run()
    record = game.to_record()
    m = CardMatch(["Ann", "Ben"])
    for t in record["turns"]:
        assert m.propose(t["placed"], t["hand"], t["player"]).legal
        if len(m.turns) == 30:
            mid = m.state()
    assert mid["round"] in (1, 2)
    assert m.over and m.state()["finished"] and m.state()["turn"] is None
    assert m.totals() == game.totals()
    with pytest.raises(CardMatchError, match="over"):
        m.propose({"0,0": 1, "1,0": 1})
    again = CardMatch.from_record(m.to_record())
    assert again.totals() == game.totals()
    assert score_record(m.to_record())["sheets"] == m.state()["sheets"]


def test_a_blocked_round_is_ended_by_hand_and_the_starter_moves_on():
    m = CardMatch(["Ann", "Ben"], starter="Ben")
    assert m.current_player == "Ben"
    m.propose({"0,0": 6, "1,0": 6})
    with pytest.raises(CardMatchError, match="cannot be blocked yet"):
        m.end_round()                    # a card under a 6 fits: 23 cards still to come
    m.propose({"0,1": 6})
    m.propose({"1,1": 6})                # rows and columns at 12: only a zero fits now
    m.end_round()                        # (the round's other 21 cards may be no zero)
    assert m.state()["board"] == {} and m.state()["round"] == 2
    assert m.current_player == "Ann"  # round 2 starts one seat on
    assert m.propose({"5,5": 3, "5,6": 3}).legal
    assert m.to_record()["turns"][-1]["round"] == 2
    assert len(m.state()["layouts"]) == 2
    with pytest.raises(CardMatchError, match="last round"):
        m.end_round()
    m.finish()
    assert m.state()["finished"] and m.winners() == ["Ben"]


def test_hints_and_bad_matches():
    assert card_hints(CardLayout({"0,0": 6, "1,0": 6}))["2,0"] == 0
    with pytest.raises(CardMatchError):
        CardMatch(["A", "B", "C", "D", "E"])
    with pytest.raises(CardMatchError):
        CardMatch(["A", "B"], starter="Z")
