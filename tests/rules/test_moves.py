"""Move generation against the rules oracle, hints, and the best-move evaluator."""

from zatre_vision.rules import (
    Board,
    ScoreSheet,
    best_move,
    cell_hints,
    check_turn,
    legal_placements,
)
from zatre_vision.rules.moves import ranked_moves, sheet_value
from zatre_vision.simulate import Simulation

from . import oracle


def test_move_generation_matches_the_rules_oracle_on_real_positions():
    """Positions of simulated games; the reference is ``oracle.py`` (written from the
    rules page, sharing no code with the engine). Random small boards: see
    ``test_against_oracle.py``."""
    for seed in (1, 2):
        sim = Simulation(["A", "B"], seed)
        for _ in range(4):
            sim.step()
        board = sim.game.board
        for hand in ([3, 4], [1, 6], [2, 2]):
            generated = {frozenset(p.items()) for p in legal_placements(board, hand)}
            assert generated == oracle.legal_turns(board.to_dict(), hand), (seed, hand)


def test_first_turn_placements_cover_h8_and_use_three_tiles():
    placements = legal_placements(Board(), [6, 5, 5])
    assert {"H8": 6, "H7": 5, "G7": 5} in placements
    assert all("H8" in p and len(p) == 3 for p in placements)


def test_nothing_placeable_gives_the_empty_turn():
    board = Board({"H8": 6, "H7": 5, "G7": 5, "G8": 5})
    assert legal_placements(board, [6, 6]) == [{}]
    assert check_turn(board, {}, hand=[6, 6]).legal


def test_hints_give_the_largest_value_each_cell_takes():
    board = Board({"H8": 6, "H7": 5, "G7": 5, "G8": 5})
    hints = cell_hints(board)
    assert hints["G6"] == 2 and hints["H6"] == 1 and hints["I8"] == 1
    assert cell_hints(Board()) == {"H8": 6}


def test_a_cross_outweighs_raw_points():
    """The evaluator values the sheet, not only raw points: a 10 and an 11 with a
    cross (3 points, row 1 doubled) ranks above a 10 and a 12 without one (5 points)."""
    board = Board({"H8": 6, "H7": 5, "G7": 5})
    sheet = ScoreSheet.from_columns(0, [], [2], [4])
    moves = ranked_moves(board, [5, 6], sheet)
    assert [m.value for m in moves] == sorted((m.value for m in moves), reverse=True)
    by_cells = {frozenset(m.placed.items()): m for m in moves}
    with_cross = by_cells[frozenset({"F6": 6, "G6": 5}.items())]
    without = by_cells[frozenset({"G6": 5, "I8": 6}.items())]
    assert with_cross.result.crosses == 1 and with_cross.result.total_points == 3
    assert without.result.crosses == 0 and without.result.total_points == 5
    assert with_cross.value > without.value
    best = best_move(board, [5, 6], sheet)
    assert best.result.crosses == 1 and best.value == moves[0].value


def test_completing_a_bonus_row_is_worth_more_than_the_same_points_elsewhere():
    completes = ScoreSheet.from_columns(0, [], [2], [4])
    opens = ScoreSheet.from_columns(0, [1], [], [])
    gain = {}
    for name, sheet in (("completes", completes), ("opens", opens)):
        after = sheet.copy()
        after.enter({10: 1, 11: 0, 12: 0})
        gain[name] = sheet_value(after) - sheet_value(sheet)
    assert gain["completes"] > gain["opens"]
