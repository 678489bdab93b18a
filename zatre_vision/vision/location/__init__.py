"""Board location: one frame in, candidate grid fits and their evidence out.

The entry point is ``locate_board(work, grey, locator, calibration, markers)``: the
grid fits for one frame, best first, and where they came from (a saved calibration
that still fits, ArUco markers, or the search of ``BoardLocator``: board network +
grid fit, classical search as fallback). Code outside this package imports only from
here (``tests/test_import_graph.py`` checks it); the names below are the entry point,
the types it takes and returns, and the companions a caller needs around it: the saved
calibration file, the check of a fit against the board's prints (``prove``, with
each print profile's ``expectations``; ``closest_print`` names the print by its
colours) and the corner labelling by the print (``by_print``), and the board network's
input for training.

Inside: ``find_board`` (``BoardLocator``: network first, classical second), ``board_net``
(the learned outline), ``grid_fit`` (corners to grid lines), ``locate`` (classical
search and line evidence), ``border`` (a fit whole cells off), ``orient`` (which way
round), ``quads``, ``markers``, ``calibration``, ``print_proof`` and ``print_colours``. The shared
vocabulary (``GridModel``, cell names) is ``vision/geometry.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..geometry import GridModel
from .board_net import (
    DEFAULT_BOARD_MODEL,
    INPUT_H,
    INPUT_W,
    OUT_STRIDE,
    BoardFinder,
    BoardModelError,
    decode,
    net_input,
)
from .calibration import (
    Calibration,
    CalibrationError,
    board_moved,
    line_contrast,
    line_score,
    make_calibration,
)
from .find_board import BoardLocator, Located
from .locate import LocateResult
from .markers import locate_with_markers
from .orient import by_print
from .print_colours import closest as closest_print
from .print_colours import observed as print_colours_seen
from .print_proof import PrintExpectation, Proof, ProofConfig, expectations, prove

__all__ = [
    "DEFAULT_BOARD_MODEL", "INPUT_H", "INPUT_W", "OUT_STRIDE", "BoardFinder",
    "BoardFits", "BoardLocator", "BoardModelError", "Calibration", "CalibrationError",
    "GridModel", "LocateResult", "Located", "PrintExpectation", "Proof", "ProofConfig",
    "board_moved", "by_print", "closest_print", "decode", "expectations",
    "print_colours_seen", "line_contrast", "line_score", "locate_board",
    "locate_with_markers", "make_calibration", "net_input", "prove",
]


class BoardFits(NamedTuple):
    """What ``locate_board`` found: ``candidates`` (grid model, line score), best
    first, empty when no board was found; ``source``: "calibration", "markers" or
    "locate:<method>" (``Located.method``: "net", "texture", "classical", "none")."""
    candidates: list[tuple[GridModel, float]]
    source: str


def locate_board(work: np.ndarray, grey: np.ndarray, locator: BoardLocator,
                 calibration: Calibration | None = None, markers: bool = False,
                 moved_contrast: bool = True) -> BoardFits:
    """The grid fits for one frame. ``work``: the frame as the reader works on it
    (already undistorted when ``calibration`` has lens intrinsics); ``grey``: ``work``
    in grey. A saved ``calibration`` is taken as it stands unless the board has moved
    (``board_moved``; ``moved_contrast`` adds its contrast test); then, with
    ``markers``, four ArUco markers; then ``locator``'s search."""
    h, w = work.shape[:2]
    if calibration is not None and not board_moved(
            work, calibration, contrast=moved_contrast):
        return BoardFits([(calibration.model_for(w, h), calibration.line_score)],
                         "calibration")
    if markers:
        r = locate_with_markers(work)
        if r.found:
            return BoardFits([(r.model, r.score)], "markers")
    found = locator.locate(work, grey)
    return BoardFits(list(found.result.candidates), f"locate:{found.method}")
