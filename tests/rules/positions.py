"""Positions for the analysis tests: a board and a score sheet from their plain form
(cells as (name, value) pairs; a sheet as crosses plus its three columns)."""

from __future__ import annotations

from zatre_vision.rules import Board, ScoreSheet
from zatre_vision.rules.board import cell_index


def board_of(cells) -> Board:
    board = Board()
    for name, value in cells:
        board.put(cell_index(name), value)
    return board


def sheet_of(columns) -> ScoreSheet:
    crosses, tens, elevens, twelves = columns
    return ScoreSheet.from_columns(crosses, list(tens), list(elevens), list(twelves))
