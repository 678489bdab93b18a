"""Issue 42 follow-up: with no hand declared, the draw check sees the values placed.

B's first hand is declared [1, 3]; its turn is refused (J8 touches nothing), so both
tiles go back to the hand and B plays again drawing nothing. Undeclared, the retry's
hand is certain: [1, 3]. Before this check the retry below, a 4 on I8 (row 8: 6 + 4 =
10), was legal and scored 1 point: only the number of tiles was checked.
"""

from zatre_vision.rules import score_record
from zatre_vision.rules.holdings import Allowance, draw_violations

OPEN = {"player": "A", "placed": {"H8": 6, "H7": 5, "G7": 5}, "hand": [6, 5, 5]}
REFUSED = {"player": "B", "placed": {"J8": 1}, "hand": [1, 3]}


def retry(placed: dict) -> dict:
    record = {"players": ["A", "B"], "turns": [OPEN, REFUSED, {"player": "B", "placed": placed}]}
    return score_record(record)


def codes(turn: dict) -> list[str]:
    return [v["code"] for v in turn["violations"]]


def test_a_value_the_seat_cannot_hold_is_wrong_draw_and_scores_nothing():
    out = retry({"I8": 4})
    turn = out["turns"][2]
    assert codes(turn) == ["wrong-draw"] and not turn["legal"]
    assert "4 placed beyond the tiles kept back [1, 3]" in turn["violations"][0]["message"]
    assert turn["points"] == {"10": 0, "11": 0, "12": 0}
    assert out["sheets"]["B"]["total"] == 0


def test_the_kept_tiles_placed_are_legal():
    turn = retry({"I8": 1, "I9": 3})["turns"][2]
    assert "wrong-draw" not in codes(turn)  # I9 is judged on the board's rules alone


def test_a_hand_certain_by_the_rules_is_judged_as_the_hand():
    # the hand is [1, 3] for certain: placing the 1 alone holds back a 3 that fits
    turn = retry({"I8": 1})["turns"][2]
    assert codes(turn) == ["tile-not-placed"]
    assert "held back: 3" in turn["violations"][0]["message"]


def test_only_the_draw_may_add_values():
    # kept [1, 3], one tile drawn: one new value fits, two do not
    allow = Allowance((1, 3), 2, 3, "2 kept back [1, 3] and 1 drawn")
    assert draw_violations(allow, None, [1, 4]) == []
    assert draw_violations(allow, None, [4, 4])[0].code == "wrong-draw"
    assert draw_violations(allow, None, [4, 5])[0].code == "wrong-draw"
    # kept unknown (only a bound): values are not checked, the number is
    bound = Allowance(None, 2, 3, "at most 2 kept back")
    assert draw_violations(bound, None, [4, 5, 6]) == []
    assert draw_violations(bound, None, [4, 5, 6, 1])[0].code == "wrong-draw"
