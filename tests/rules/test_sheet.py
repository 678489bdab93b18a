"""The score sheet, with the French rule book's final sheet."""

import pytest

from zatre_vision.rules import Board, ScoreSheet, check_turn, printed_bonus


def andreas_final_sheet() -> ScoreSheet:
    """French rules, "Exemple d'un score final": Andreas' columns as printed."""
    tens = [1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    elevens = [2, 2, 2, 2, 4, 2, 2, 2, 2, 2, 2, 2]
    twelves = [8, 4, 4, 8, 4, 8, 8, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]
    return ScoreSheet.from_columns(13, tens, elevens, twelves, minus=5)


def test_french_final_sheet_totals_324():
    """Rows 1-12 complete and crossed, row 13 crossed with 1 and 4, rows 14-17
    uncrossed; 5 pips left in hand: grand total 324."""
    sheet = andreas_final_sheet()
    totals = [r.total for r in sheet.rows()]
    assert totals == [28, 20, 20, 30, 26, 30, 30, 22, 24, 24, 24, 24, 10, 5, 4, 4, 4]
    assert sheet.rows_total == 329
    assert sheet.total == 324
    row13 = sheet.row(13).to_json()
    assert row13 == {"x2": True, "10": 1, "11": None, "12": 4, "bonus": 0, "total": 10}


def test_same_sheet_built_turn_by_turn_gives_324():
    sheet = ScoreSheet()
    target = andreas_final_sheet()
    for k in range(17):
        points = {s: (col[k] if k < len(col) else 0) for s, col in target.columns.items()}
        sheet.enter(points, crosses=1 if k < 13 else 0)
    sheet.minus = 5
    assert sheet.total == 324


def test_printed_bonus_by_row():
    assert [printed_bonus(r) for r in (1, 4, 5, 8, 9, 12, 13, 16, 17, 30)] == [3, 3, 4, 4, 5, 5, 6, 6, 0, 0]
    with pytest.raises(ValueError):
        printed_bonus(0)


def test_two_twelves_in_one_turn_go_into_one_box_as_8():
    """Peri rules, Abb. 4 and 5: an 11 and two 12s are written as 2 and 8 in the
    first free boxes, never 4 and 4 in two rows."""
    board = Board({"G8": 1, "H8": 5, "I8": 6})
    first = check_turn(Board(), {"G8": 1, "H8": 5, "I8": 6})
    turn = check_turn(board, {"H7": 6, "I7": 6})
    sheet = ScoreSheet()
    sheet.enter(turn.points, turn.crosses)
    assert sheet.columns == {10: [], 11: [2], 12: [8]}
    assert sheet.row_count == 1
    assert sheet.to_json()["rows"] == [
        {"x2": True, "10": None, "11": 2, "12": 8, "bonus": 0, "total": 20}]
    assert first.points[12] == 4  # the starter's own sheet: X and 4 (Abb. 3)


def test_columns_fill_independently_and_two_crosses_take_two_boxes():
    sheet = ScoreSheet()
    sheet.enter({10: 1, 11: 2, 12: 0}, crosses=2)  # French first turn
    sheet.enter({10: 0, 11: 0, 12: 4}, crosses=1)
    assert [r.to_json() for r in sheet.rows()] == [
        {"x2": True, "10": 1, "11": 2, "12": 4, "bonus": 3, "total": 20},
        {"x2": True, "10": None, "11": None, "12": None, "bonus": 0, "total": 0},
        {"x2": True, "10": None, "11": None, "12": None, "bonus": 0, "total": 0},
    ]


def test_an_uncrossed_incomplete_row_counts_single():
    sheet = ScoreSheet.from_columns(0, [1], [], [4])
    assert sheet.total == 5
