"""Issue 42 for the card game: turn order, `round` against the count, wrong-draw with
the other violations, and the zero rule as a club setting (docs/cards-notes.md)."""

import json

import pytest

from zatre_vision.cards.match import CardMatch, CardMatchError
from zatre_vision.cards.simulate import CardSimulation
from zatre_vision.rules import RecordError
from zatre_vision.variants import score_record


def codes(turn: dict) -> list[str]:
    return [v["code"] for v in turn["violations"]]


def cards(players, turns, **extra) -> dict:
    return {"variant": "cards", "players": players, "turns": turns, **extra}


# -- Found 2: turn order ------------------------------------------------------------------
FOUND_2 = cards(["Ann", "Ben", "Cy"], [
    {"player": "Ann", "placed": {"0,0": 1, "1,0": 1}, "hand": [1, 1, 2, 3]},
    {"player": "Ann", "placed": {"2,0": 1}, "hand": [1, 2, 3]},
    {"player": "Cy", "placed": {"3,0": 1}}])


def test_found_2_cards_twice_in_a_row_and_out_of_turn_are_refused():
    out = score_record(FOUND_2)
    assert [t["legal"] for t in out["turns"]] == [True, False, False]
    assert codes(out["turns"][1]) == ["out-of-turn"]
    assert codes(out["turns"][2]) == ["out-of-turn", "not-connected"]  # 2,0 was refused
    assert "it is Ben's turn" in out["turns"][2]["violations"][0]["message"]
    assert out["board"] == {"0,0": 1, "1,0": 1}
    assert all(s["total"] == 0 for s in out["sheets"].values())


def test_the_same_player_goes_on_after_showing_the_hand_and_the_next_after_a_pass():
    out = score_record(cards(["Ann", "Ben", "Cy"], [
        {"player": "Ann", "placed": {"0,0": 6, "1,0": 4}},
        {"player": "Ben", "placed": {}},                   # shows the hand: Ben goes on
        {"player": "Ben", "placed": {"2,0": 1}},
        {"player": "Cy", "placed": {}},                    # a pass: Ann plays
        {"player": "Ann", "placed": {"0,1": 4}},
        {"player": "Ann", "placed": {"0,2": 1}}]))         # but not after a card
    assert [t["legal"] for t in out["turns"]] == [True, True, True, True, True, False]
    assert codes(out["turns"][5]) == ["out-of-turn"]


def test_each_round_begins_with_the_next_starter():
    game = CardSimulation(["Ann", "Ben"], 3).run()
    record = game.to_record()
    first_of_2 = next(k for k, t in enumerate(record["turns"]) if t["round"] == 2)
    assert record["turns"][first_of_2]["player"] == "Ben"
    assert all(t["legal"] for t in score_record(record)["turns"])
    record["turns"][first_of_2] = {**record["turns"][first_of_2], "player": "Ann"}
    assert "out-of-turn" in codes(score_record(record)["turns"][first_of_2])


# -- Found 4: round against the count ------------------------------------------------------
def test_found_4_a_round_that_cannot_be_blocked_does_not_end_early():
    record = cards(["Ann", "Ben"], [
        {"player": "Ann", "placed": {"0,0": 6, "1,0": 4}},
        {"player": "Ben", "placed": {"0,0": 3, "1,0": 3}, "round": 2}])
    with pytest.raises(RecordError, match="turn 2: round 2 begins after 2 of round 1's 25 "
                                          "cards, but round 1 cannot be blocked yet"):
        score_record(record)


def test_a_round_can_end_early_once_only_cards_that_may_be_gone_fit():
    """6 6 over 6 6: every line sums to 12, only a zero fits; the round's 21 other cards
    may all be 1 to 6, so it may be blocked."""
    out = score_record(cards(["Ann", "Ben"], [
        {"player": "Ann", "placed": {"0,0": 6, "1,0": 6}},
        {"player": "Ben", "placed": {"0,1": 6}},
        {"player": "Ann", "placed": {"1,1": 6}},
        {"player": "Ben", "placed": {"5,5": 3, "5,6": 3}, "round": 2}]))
    assert out["turns"][3]["legal"] and out["turns"][3]["round"] == 2


def test_found_4_a_turn_marked_round_1_in_round_2_is_refused():
    game = CardSimulation(["Ann", "Ben"], 3).run()
    turns = [{k: v for k, v in t.items() if k != "round"} for t in game.to_record()["turns"]]
    in_round_2 = [k for k, t in enumerate(game.to_record()["turns"]) if t["round"] == 2]
    turns[in_round_2[1]]["round"] = 1
    with pytest.raises(RecordError, match=f"turn {in_round_2[1] + 1}: marked round 1, but "
                                          "round 2 has begun"):
        score_record(cards(["Ann", "Ben"], turns))


def test_a_skipped_round_is_refused():
    with pytest.raises(RecordError, match="round 2 was never played"):
        score_record(cards(["A", "B", "C"], [
            {"player": "A", "placed": {"0,0": 6, "1,0": 4}},
            {"player": "C", "placed": {"0,0": 6, "1,0": 4}, "round": 3}]))


def test_a_blocked_round_cannot_be_ended_by_hand_too_early():
    m = CardMatch(["Ann", "Ben"])
    m.propose({"0,0": 6, "1,0": 4})
    with pytest.raises(CardMatchError, match="round 1 cannot be blocked yet"):
        m.end_round()


# -- Found 5: wrong-draw with the other violations ----------------------------------------
def test_card_wrong_draw_is_reported_with_the_other_violations():
    out = score_record(cards(["Ann", "Ben"], [
        {"player": "Ann", "placed": {"0,0": 6, "1,0": 6, "2,0": 6}, "hand": [6, 6, 6, 1, 2]}]))
    assert codes(out["turns"][0]) == ["wrong-card-count", "line-over-12", "wrong-draw"]


def test_a_card_match_flags_a_turn_out_of_turn():
    m = CardMatch(["Ann", "Ben", "Cy"])
    m.propose({"0,0": 6, "1,0": 4})
    result = m.propose({"2,0": 1}, player="Cy")
    assert [v.code for v in result.violations] == ["out-of-turn"] and m.pending is not None


# -- the zero rule --------------------------------------------------------------------------
ZERO = [{"player": "Ann", "placed": {"0,0": 6, "1,0": 6}},
        {"player": "Ben", "placed": {"2,0": 0}}]


@pytest.mark.parametrize("setting, ben", [(None, 5), ("on", 5), ("off", 0)])
def test_the_zero_rule_is_a_club_setting(setting, ben):
    extra = {} if setting is None else {"zero_rule": setting}
    out = score_record(cards(["Ann", "Ben"], ZERO, **extra))
    assert out["zero_rule"] == (setting or "on")
    assert out["sheets"]["Ben"]["total"] == ben and out["sheets"]["Ann"]["total"] == 5
    assert out["turns"][1]["legal"] and out["turns"][1]["lines"] == [
        {"cells": ["0,0", "1,0", "2,0"], "sum": 12}]


@pytest.mark.parametrize("setting", ["on", "off"])
def test_with_the_zero_rule_off_a_zero_that_joins_two_runs_still_scores(setting):
    """Row 0 holds 6 4 . 2; Ben's zero joins them into a new line of 12 (5 points either
    way). A zero after 6 4 (10) lengthens the old line: 1 point with the rule on only."""
    out = score_record(cards(["Ann", "Ben"], [
        {"player": "Ann", "placed": {"0,0": 6, "1,0": 4}},
        {"player": "Ben", "placed": {"1,1": 1}},
        {"player": "Ann", "placed": {"2,1": 1}},
        {"player": "Ben", "placed": {"3,1": 1}},
        {"player": "Ann", "placed": {"3,0": 2}},
        {"player": "Ben", "placed": {"2,0": 0}}], zero_rule=setting))
    assert all(t["legal"] for t in out["turns"])
    assert out["turns"][5]["points"] == {"10": 0, "11": 0, "12": 5}
    out = score_record(cards(["Ann", "Ben"], [
        {"player": "Ann", "placed": {"0,0": 6, "1,0": 4}},
        {"player": "Ben", "placed": {"2,0": 0}}], zero_rule=setting))
    assert out["turns"][1]["points"]["10"] == (1 if setting == "on" else 0)


def test_the_zero_rule_is_in_the_card_match_state_and_record():
    m = CardMatch(["Ann", "Ben"], zero_rule="off")
    m.propose(ZERO[0]["placed"])
    m.propose(ZERO[1]["placed"])
    assert m.state()["zero_rule"] == "off" and m.totals() == {"Ann": 5, "Ben": 0}
    again = CardMatch.from_record(json.loads(json.dumps(m.to_record())))
    assert again.state()["zero_rule"] == "off" and again.totals() == m.totals()
    assert CardMatch(["Ann", "Ben"]).state()["zero_rule"] == "on"
    with pytest.raises(CardMatchError, match="on.*off"):
        CardMatch(["Ann", "Ben"], zero_rule="maybe")
    with pytest.raises(RecordError, match="zero_rule"):
        score_record(cards(["Ann", "Ben"], [], zero_rule=True))


def test_a_stored_card_record_is_scored_as_recorded_with_a_note_per_round_check():
    from zatre_vision.variants import score_as_recorded

    # round 1 of three marked over after one turn, then round 3 with round 2 skipped
    rec = {"variant": "cards", "players": ["Ann", "Ben", "Cy"], "turns": [
        {"player": "Ann", "placed": {"0,0": 1, "1,0": 1}},
        {"player": "Cy", "placed": {"0,0": 2, "1,0": 3}, "round": 3}]}
    with pytest.raises(RecordError, match="never played"):
        score_record(rec)
    out = score_as_recorded(rec)
    assert len(out["rounds"]) == 3 and out["rounds"][1] == {}
    assert out["turns"][1]["round"] == 3
    assert len(out["notes"]) == 1 and "round 2 was never played" in out["notes"][0]
    # a record the rules accept: the same output, no notes
    clean = {**rec, "turns": rec["turns"][:1]}
    assert score_as_recorded(clean) == {**score_record(clean), "notes": []}
