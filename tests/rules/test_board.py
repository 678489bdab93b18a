import pytest

from zatre_vision.rules.board import (
    CELLS,
    LIGHT,
    NEIGHBOURS,
    Board,
    CellNameError,
    all_cell_names,
    cell_index,
    cell_name,
    grid_index,
    is_light,
    lines_through,
)


def test_board_has_193_cells_and_33_light_cells():
    assert len(CELLS) == 193
    assert len(LIGHT) == 33
    assert len(set(all_cell_names())) == 193


def test_arms_and_gaps():
    names = set(all_cell_names())
    for arm in ("E1", "F1", "G1", "I1", "J1", "K1", "A5", "A11", "O9", "K15"):
        assert arm in names
    for gap in ("H1", "H15", "A8", "O8"):
        assert gap not in names
    for corner in ("A1", "D1", "A4", "O15", "L15", "O12", "B1", "A2"):
        assert corner not in names
    # the 13 x 13 square is complete
    assert all(f"{c}{r}" in names for c in "BCDEFGHIJKLMN" for r in range(2, 15))


def test_light_cells_are_the_diagonals_plus_eight_arm_cells():
    assert is_light("H8") and is_light("B2") and is_light("N14") and is_light("N2") and is_light("B14")
    for name in ("G1", "I1", "G15", "I15", "A7", "A9", "O7", "O9"):
        assert is_light(name)
    assert not is_light("H7") and not is_light("E1") and not is_light("A5")


def test_names_round_trip_and_bad_names():
    for i in CELLS:
        assert cell_index(cell_name(i)) == i
    with pytest.raises(CellNameError, match="not a cell name"):
        cell_index("Z99")
    with pytest.raises(CellNameError, match="not a cell of the board"):
        cell_index("H1")
    assert cell_name(grid_index("A1")) == "A1"
    with pytest.raises(CellNameError):
        grid_index("P3")


def test_neighbours_stop_at_gaps_and_edges():
    assert {cell_name(n) for n in NEIGHBOURS[cell_index("G1")]} == {"F1", "G2"}
    assert {cell_name(n) for n in NEIGHBOURS[cell_index("H8")]} == {"G8", "I8", "H7", "H9"}


def test_lines_are_runs_of_two_or_more_and_a_gap_ends_them():
    b = Board({"G1": 5, "I1": 6, "H8": 3, "H9": 4, "H10": 2, "I10": 6})
    found = {(tuple(cell_name(i) for i in cells), s) for cells, s in lines_through(b.values, CELLS)}
    # G1 and I1 are not a line: H1 is a gap; H8-H10 is one column line
    assert (("H8", "H9", "H10"), 9) in found
    assert (("H10", "I10"), 8) in found
    assert not any("G1" in cells or "I1" in cells for cells, _ in found)
    assert len(found) == 2


def test_frontier_of_empty_board_is_the_start_cell():
    assert Board().frontier() == {cell_index("H8")}
