"""Issue 42: the records that got through `zatre score`, and the verdict each gets now.

The draws follow rules.md (start and rule 6): the turn that opens the board holds
three tiles, any other first hand two per member; then an empty hand draws two per
member, one tile (or tiles none of which fit) draws one, two or more of which one fits
draw nothing. A refused turn's tiles go back to the player's hand.
"""

import pytest

from zatre_vision.rules import RecordError, parse_record, score_record

OPEN = {"H8": 6, "H7": 5, "G7": 5}


def codes(turn: dict) -> list[str]:
    return [v["code"] for v in turn["violations"]]


# -- Found 1: the draw check after an illegal turn ----------------------------------------
FOUND_1 = {"players": ["A", "B"], "turns": [
    {"player": "A", "placed": {"H8": 6, "H7": 5, "G7": 5}, "hand": [6, 5, 5]},
    {"player": "B", "placed": {"J8": 1}, "hand": [1, 2, 3, 4]},
    {"player": "B", "placed": {"I8": 4, "H9": 1, "G8": 2, "G6": 3}, "hand": [1, 2, 3, 4]}]}


def test_found_1_four_new_tiles_after_a_refused_turn_do_not_score():
    out = score_record(FOUND_1)
    first, refused, retry = out["turns"]
    assert first["legal"] and out["sheets"]["A"]["total"] == 6
    # turn 2 breaks two rules, and both are reported (Found 5)
    assert codes(refused) == ["not-connected", "wrong-draw"]
    # turn 3 (it scored 9 before): B plays again with the tiles that went back to the
    # hand, and a first hand is two tiles
    assert not retry["legal"] and codes(retry) == ["wrong-draw"]
    assert "at most 2" in retry["violations"][0]["message"]
    assert retry["points"] == {"10": 0, "11": 0, "12": 0}
    assert out["sheets"]["B"]["total"] == 0


def test_found_1_without_the_refused_turn_the_move_gets_wrong_draw_too():
    record = {**FOUND_1, "turns": [FOUND_1["turns"][0], FOUND_1["turns"][2]]}
    assert codes(score_record(record)["turns"][1]) == ["wrong-draw"]


def test_a_refused_turn_keeps_its_tiles_in_the_hand_for_the_retry():
    record = {"players": ["A", "B"], "turns": [
        {"player": "A", "placed": OPEN, "hand": [6, 5, 5]},
        {"player": "B", "placed": {"J8": 1}, "hand": [1, 2]},       # not connected
        {"player": "B", "placed": {"I8": 1}, "hand": [1, 3]},       # not the same tiles
        {"player": "B", "placed": {"I8": 1, "I7": 2}, "hand": [1, 2]}]}
    turns = score_record(record)["turns"]
    assert codes(turns[1]) == ["not-connected"]
    assert "wrong-draw" in codes(turns[2])
    assert any("lacks the tiles kept back [1, 2]" in v["message"] for v in turns[2]["violations"])
    assert turns[3]["legal"]


def test_a_refused_turn_given_up_leaves_the_tiles_in_hand_for_the_next_turn():
    """After a refused turn the next seat may play (the turn given up): the refused
    player still holds the tiles and draws by rule 6 on the next turn."""
    record = {"players": ["A", "B"], "turns": [
        {"player": "A", "placed": OPEN, "hand": [6, 5, 5]},
        {"player": "B", "placed": {"J8": 1}, "hand": [1, 2]},       # refused, given up
        {"player": "A", "placed": {"I8": 1, "I7": 2}, "hand": [1, 2]},
        {"player": "B", "placed": {"G8": 1, "F8": 2, "E8": 1}, "hand": [1, 2, 1]},
        {"player": "B", "placed": {"G8": 1, "G6": 2}, "hand": [1, 2]}]}
    turns = score_record(record)["turns"]
    assert turns[2]["legal"]
    # B kept [1, 2]: two tiles of which one fits draw nothing
    assert codes(turns[3]) == ["wrong-draw"] and "at most 2" in turns[3]["violations"][0]["message"]
    assert turns[4]["legal"]


def test_without_hands_a_turn_cannot_place_more_tiles_than_the_player_can_hold():
    record = {"players": ["A", "B"], "turns": [
        {"player": "A", "placed": OPEN},
        {"player": "B", "placed": {"G8": 1, "F8": 1, "E8": 1}},     # first hand: two
        {"player": "B", "placed": {"G8": 1}},                        # one kept back
        {"player": "A", "placed": {"I8": 1, "I7": 1}},              # nothing kept: two
        {"player": "B", "placed": {"F8": 1, "E8": 1, "D8": 1}},     # one kept, one drawn
        {"player": "B", "placed": {"F8": 1, "E8": 1}}]}
    turns = score_record(record)["turns"]
    assert codes(turns[1]) == ["wrong-draw"] and "3 tiles placed" in turns[1]["violations"][0]["message"]
    assert [t["legal"] for t in turns] == [True, False, True, True, False, True]
    assert codes(turns[4]) == ["wrong-draw"]


# -- Found 2: turn order -------------------------------------------------------------------
def test_found_2_board_a_player_twice_in_a_row_and_out_of_turn_is_refused():
    record = {"players": ["Ann", "Ben", "Cy"], "turns": [
        {"player": "Ann", "placed": OPEN},
        {"player": "Ann", "placed": {"I8": 1}},
        {"player": "Cy", "placed": {"I8": 1}},
        {"player": "Ben", "placed": {"I8": 1}},
        {"player": "Cy", "placed": {"I7": 1}}]}
    out = score_record(record)
    assert [t["legal"] for t in out["turns"]] == [True, False, False, True, True]
    assert codes(out["turns"][1]) == ["out-of-turn"]
    assert "it is Ben's turn" in out["turns"][2]["violations"][0]["message"]
    assert out["sheets"]["Ann"]["total"] == 6 and out["turns"][1]["points"]["10"] == 0


def test_the_record_starter_plays_first():
    record = {"players": ["Ann", "Ben"], "starter": "Ben", "turns": [
        {"player": "Ann", "placed": OPEN}, {"player": "Ben", "placed": OPEN}]}
    turns = score_record(record)["turns"]
    assert codes(turns[0]) == ["out-of-turn"] and turns[1]["legal"]
    with pytest.raises(RecordError, match="unknown starting player"):
        parse_record({**record, "starter": "Zed"})


# -- Found 3: team sizes -------------------------------------------------------------------
@pytest.mark.parametrize("players, teams, reason", [
    (["A", "B"], {"A": 3, "B": 3}, "a team has 2 partners"),
    (["A", "B", "C", "D", "E", "F"], dict.fromkeys("ABCDEF", 3), "a team has 2 partners"),
    (["A", "B"], {"A": 2}, "B in no team"),
    (["A", "B", "C", "D"], dict.fromkeys("ABCD", 2), "8 players, but the team game is for 4 or 6"),
    (["A"], {"A": 2}, "2 players, but the team game is for 4 or 6"),
])
def test_found_3_team_sizes_are_refused(players, teams, reason):
    with pytest.raises(RecordError, match=reason):
        parse_record({"players": players, "teams": teams, "turns": []})


@pytest.mark.parametrize("seats", [["Red", "Blue"], ["Red", "Blue", "Green"]])
def test_two_or_three_teams_of_two_are_a_team_game_that_draws_four(seats):
    record = {"players": seats, "teams": dict.fromkeys(seats, 2), "turns": [
        {"player": "Red", "placed": OPEN, "hand": [6, 5, 5]},
        {"player": "Blue", "placed": {"G8": 1, "F8": 1, "E8": 1, "D8": 1}},
        {"player": seats[2] if len(seats) == 3 else "Red",
         "placed": {"I8": 1, "I7": 1, "I6": 1, "I5": 1, "I4": 1}}]}
    turns = score_record(record)["turns"]
    assert turns[1]["legal"]
    assert codes(turns[2]) == ["wrong-draw"]  # four a turn, not five


# -- Found 5: wrong-draw with the turn's other violations ----------------------------------
def test_wrong_draw_is_reported_with_the_other_violations():
    record = {"players": ["A", "B"], "turns": [
        {"player": "A", "placed": OPEN, "hand": [6, 5, 5]},
        {"player": "B", "placed": {"I8": 6, "I7": 6, "H9": 6}, "hand": [6, 6, 6]}]}
    assert set(codes(score_record(record)["turns"][1])) == {"line-over-12", "wrong-draw"}


def test_a_stored_record_with_teams_of_three_is_scored_as_recorded_with_a_note():
    from zatre_vision.rules.record import score_as_recorded

    rec = {"players": ["A", "B"], "teams": {"A": 3, "B": 1}, "turns": [
        {"player": "A", "placed": {"H8": 6, "H7": 5, "G7": 5}},
        {"player": "B", "placed": {"J8": 1}, "override": True}]}
    with pytest.raises(RecordError, match="a team has 2 partners"):
        score_record(rec)
    out = score_as_recorded(rec)
    # the teams note only: the operator's override is no note
    assert len(out["notes"]) == 1 and "A has 3 members" in out["notes"][0]
    assert out["turns"][1]["override"] and not out["turns"][1]["legal"]
    clean = {k: v for k, v in rec.items() if k != "teams"}
    assert score_as_recorded(clean) == {**score_record(clean), "notes": []}


@pytest.mark.parametrize("starter", [[[[]]], [0, 1], {"name": "A"}, 3, True, "Cleo"])
@pytest.mark.parametrize("variant", [None, "cards"])
def test_a_starter_that_is_not_a_player_is_refused_in_one_line(starter, variant):
    """Found by `zatre bench bad-input`: a list as the starter crashed the referee."""
    from zatre_vision.variants import score_record as score_any

    record = {"players": ["A", "B"], "starter": starter, "turns": []}
    if variant:
        record["variant"] = variant
    with pytest.raises(RecordError, match="unknown starting player"):
        score_any(record)
