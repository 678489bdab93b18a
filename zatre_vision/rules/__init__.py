"""The Zatre rules engine: pure Python, no I/O, no numpy or OpenCV."""

from .board import Board, CellNameError, all_cell_names, cell_index, cell_name, is_light
from .game import Game, GameError, Seat
from .moves import best_move, cell_hints, legal_placements, ranked_moves
from .record import RecordError, parse_record, replay, score_record
from .sheet import ScoreSheet, printed_bonus
from .tiles import TILE_SET, Bag
from .turn import TurnResult, Violation, check_turn

__all__ = [
    "TILE_SET", "Bag", "Board", "CellNameError", "Game", "GameError", "RecordError",
    "ScoreSheet", "Seat", "TurnResult", "Violation", "all_cell_names", "best_move",
    "cell_hints", "cell_index", "cell_name", "check_turn", "is_light", "legal_placements",
    "parse_record", "printed_bonus", "ranked_moves", "replay", "score_record",
]
