"""Turn legality and scoring, with the worked examples of the seed rule books."""

import pytest

from zatre_vision.rules import Board, CellNameError, cell_name, check_turn

# A real position from a simulated game (seed 0, turn 14): the only cell a single
# 3, 4, 5 or 6 fits is the light cell M3, and no line through it can score.
CROWDED = {
    "L4": 2, "M4": 3, "N4": 6, "E5": 6, "F5": 5, "J5": 1, "K5": 6, "L5": 5, "N5": 4,
    "O5": 6, "E6": 4, "F6": 3, "G6": 4, "J6": 3, "K6": 4, "L6": 5, "O6": 4, "E7": 2,
    "F7": 4, "G7": 6, "I7": 5, "J7": 4, "G8": 1, "H8": 6, "I8": 2, "J8": 3, "G9": 1,
    "H9": 6, "I9": 5,
}


def codes(result):
    return [v.code for v in result.violations]


def test_french_first_turn_six_on_h8_and_two_fives():
    """French rules: Andreas puts the 6 on the red cell and two fives so as to make a
    10 and an 11, and crosses x2 twice (H8 and the light cell G7)."""
    r = check_turn(Board(), {"H8": 6, "H7": 5, "G7": 5})
    assert r.legal and r.violations == []
    assert [(line.cells, line.sum) for line in r.lines] == [(("G7", "H7"), 10), (("H7", "H8"), 11)]
    assert r.points == {10: 1, 11: 2, 12: 0}
    assert r.crosses == 2


def test_beate_holds_back_a_tile_that_would_make_13():
    """French rules: after Andreas' 6-5-5, Beate places a 5 for a 10 and an 11; her
    other tile (here a 6) would make 13 or more wherever it went next to her 5, so she
    keeps it face down.

    rules.md is stricter than the French text here: with the hand known, rule 5
    counts every way of placing *both* tiles, and 5 on I8 with 6 on I9 takes both
    (11 and 11). So a recorded hand of [5, 6] with the 6 kept back is
    ``tile-not-placed``; without the hand the engine scores her turn as the book does.
    """
    board = Board({"H8": 6, "H7": 5, "G7": 5})
    kept = check_turn(board, {"G8": 5})
    assert kept.legal, kept.violations
    assert kept.points == {10: 1, 11: 2, 12: 0} and kept.crosses == 0
    after = Board({"H8": 6, "H7": 5, "G7": 5, "G8": 5})
    for cell in sorted(cell_name(i) for i in after.frontier()):
        r = check_turn(after, {cell: 6})
        assert codes(r) == ["line-over-12"], cell
        assert any(line.sum >= 13 for line in r.lines)
    both = check_turn(board, {"G8": 5, "G9": 6})
    assert codes(both) == ["line-over-12"]
    assert both.violations[0].cells == ("G7", "G8", "G9")
    assert "16" in both.violations[0].message
    assert both.points == {10: 0, 11: 0, 12: 0}
    assert codes(check_turn(board, {"G8": 5}, hand=[5, 6])) == ["tile-not-placed"]
    assert check_turn(board, {"I8": 5, "I9": 6}, hand=[5, 6]).legal


def test_must_place_every_tile_that_can_be_placed():
    board = Board({"H8": 6, "H7": 5, "G7": 5})
    r = check_turn(board, {"G8": 1}, hand=[1, 1])
    assert codes(r) == ["tile-not-placed"]
    assert check_turn(board, {"G8": 1, "F8": 1}, hand=[1, 1]).legal
    # without the hand the engine cannot know a tile was kept back
    assert check_turn(board, {"G8": 1}).legal


def test_two_twelves_in_one_turn():
    """Peri rules, Abb. 4: two sixes make an 11 and two 12s, and the light cell I7
    earns a cross."""
    board = Board({"G8": 1, "H8": 5, "I8": 6})
    r = check_turn(board, {"H7": 6, "I7": 6})
    assert r.legal
    assert r.points == {10: 0, 11: 2, 12: 8}
    assert r.crosses == 1


def test_first_turn_must_cover_h8_and_be_one_group():
    r = check_turn(Board(), {"G8": 4, "F8": 4, "E8": 4})
    assert "first-turn-not-on-start" in codes(r)
    r = check_turn(Board(), {"H8": 4, "H7": 4, "J7": 3})
    assert codes(r) == ["not-connected"] and r.violations[0].cells == ("J7",)


def test_later_tiles_must_touch_the_board():
    board = Board({"H8": 6, "H7": 5, "G7": 5})
    r = check_turn(board, {"K10": 2})
    assert codes(r) == ["not-connected"]
    # a tile may touch another tile of the same turn
    assert check_turn(board, {"G8": 1, "F8": 1}).legal


def test_occupied_missing_and_bad_cells():
    board = Board({"H8": 6, "H7": 5, "G7": 5})
    assert codes(check_turn(board, {"H8": 1})) == ["cell-occupied"]
    assert codes(check_turn(board, {"H1": 1})) == ["cell-missing"]
    assert codes(check_turn(board, {"G8": 0})) == ["bad-tile"]
    assert codes(check_turn(board, {"G8": 7})) == ["bad-tile"]
    with pytest.raises(CellNameError):
        check_turn(board, {"Z99": 1})


def test_a_cell_gets_every_code_that_applies():
    """Issue 54: a non-tile value on a cell that touches nothing was only bad-tile, while
    a valid tile beside it got not-connected too. Both are judged the same way now."""
    board = Board({"H8": 6, "H7": 5, "G7": 5})
    r = check_turn(board, {"K12": 9, "K13": 2})
    assert sorted((v.code, v.cells) for v in r.violations) == [
        ("bad-tile", ("K12",)), ("not-connected", ("K12", "K13"))]
    # a bad value on an occupied cell, on a missing one
    assert sorted(codes(check_turn(board, {"H8": 0}))) == ["bad-tile", "cell-occupied"]
    assert sorted(codes(check_turn(board, {"H1": 7}))) == ["bad-tile", "cell-missing"]
    # a bad value that touches the board is not-connected for no one
    assert codes(check_turn(board, {"G8": 7, "F8": 1})) == ["bad-tile"]


def test_too_many_tiles_of_one_value():
    sixes = {f"{c}{r}": 6 for c in "BDFHJLN" for r in (2, 4, 6)}  # 21 sixes
    r = check_turn(Board(), sixes)
    assert "too-many-tiles" in codes(r)


def test_light_cell_without_score_is_illegal_when_avoidable():
    board = Board({"H8": 6, "H7": 5, "G7": 5})
    # G6 is not light, F6 is: a 1 on F6 next to nothing scoring is avoidable
    r = check_turn(board, {"G8": 1, "F8": 1})
    assert r.legal
    r = check_turn(Board({"H8": 2, "H7": 2, "G7": 2}), {"F6": 1, "F7": 1})
    assert codes(r) == ["light-cell-without-score"]
    assert r.violations[0].cells == ("F6",)


def test_light_cell_exception_when_no_other_cell_takes_the_tile():
    """Rules.md rule 4: a 5 that fits nowhere but the light cell M3 must go there,
    and earns no cross."""
    board = Board(CROWDED)
    r = check_turn(board, {"M3": 5}, hand=[5])
    assert r.legal, r.violations
    assert r.crosses == 0 and r.points == {10: 0, 11: 0, 12: 0}
    # holding it back instead is a tile-not-placed
    assert codes(check_turn(board, {}, hand=[5])) == ["tile-not-placed"]


def test_light_cell_exception_counts_fewest_bare_light_cells():
    """On the first turn H8 is light: three ones can never score, so one bare light
    cell (H8) is unavoidable, but a second one (G7) is not."""
    assert check_turn(Board(), {"H8": 1, "H7": 1, "H6": 1}).legal
    r = check_turn(Board(), {"H8": 1, "H7": 1, "G7": 1})
    assert codes(r) == ["light-cell-without-score"]


def test_a_light_cell_scores_when_another_tile_of_the_turn_completes_its_line():
    board = Board({"H8": 6, "H7": 5, "G7": 5})
    # I7 is light; the 1 on I7 alone makes row G7-H7-I7 = 11, scoring
    r = check_turn(board, {"I7": 1})
    assert r.legal and r.crosses == 1 and r.points[11] == 2


def test_extending_an_old_line_scores_the_new_sum_once():
    board = Board({"H8": 6, "H7": 5, "G7": 5})
    r = check_turn(board, {"G8": 1, "F8": 1})
    assert r.legal  # row F8-G8-H8 = 8, column G7-G8 = 6: nothing scores
    assert r.points == {10: 0, 11: 0, 12: 0} and r.crosses == 0
    r = check_turn(board, {"G8": 1, "G9": 4})
    assert r.legal
    # column G7-G8-G9 = 10 holds both new tiles and counts once; G9 is light: a cross
    assert r.points == {10: 1, 11: 0, 12: 0} and r.crosses == 1
    assert [(line.cells, line.sum) for line in r.lines] == [
        (("G7", "G8", "G9"), 10), (("G8", "H8"), 7)]


def test_result_json_matches_the_contract_shape():
    r = check_turn(Board(), {"H8": 6, "H7": 5, "G7": 5}).to_json()
    assert r == {
        "placed": {"H8": 6, "H7": 5, "G7": 5}, "legal": True, "violations": [],
        "lines": [{"cells": ["G7", "H7"], "sum": 10}, {"cells": ["H7", "H8"], "sum": 11}],
        "points": {"10": 1, "11": 2, "12": 0}, "crosses": 2,
    }
