"""Board location: one frame in, the proved board grid out.

The entry point is ``locate_board`` (``pipeline.py``), in four steps: **propose**
candidate fits (a saved calibration that still fits, ArUco markers, or the search of
``BoardLocator``: board network + grid fit, then its switchable fallbacks, see
``fallbacks.py``), **refine** them (the best few, read by the caller and ordered by
how confidently their cells read), **prove** each against the board prints
(``print_proof.prove``, with each print profile's ``expectations``; a fit one cell off
moved onto the grid it proves; ``closest_print`` names the print by its colours), and
**pick** the first that proves itself, or say "no board". Code outside this package
imports only from here (``tests/test_import_graph.py`` checks it); the names below are
the entry point and its steps, the types they take and return, and the companions a
caller needs around them: the saved calibration file, the corner labelling by the
print (``by_print``), and the board network's input for training.

Inside: ``find_board`` (``BoardLocator``: network first, fallbacks second),
``fallbacks`` (their switches, from the board model's card), ``board_net`` (the
learned outline), ``grid_fit`` (corners to grid lines), ``locate`` (classical search
and line evidence), ``border`` (a fit whole cells off), ``orient`` (which way round),
``quads``, ``markers``, ``calibration``, ``print_proof`` and ``print_colours``. The
shared vocabulary (``GridModel``, cell names) is ``vision/geometry.py``.
"""

from __future__ import annotations

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
    line_scores,
    make_calibration,
)
from .fallbacks import ABOUT as FALLBACKS_ABOUT
from .fallbacks import LAST_RESORT, FallbacksError, LocateFallbacks
from .find_board import BoardLocator, Located
from .locate import LocateResult
from .markers import locate_with_markers
from .orient import by_print
from .pipeline import (
    MAX_CANDIDATES,
    Board,
    ProofSetup,
    Proposals,
    ProvedOnce,
    locate_board,
    pick,
    propose,
    prove_fit,
    refine,
)
from .print_colours import closest as closest_print
from .print_colours import observed as print_colours_seen
from .print_proof import PrintExpectation, Proof, ProofConfig, expectations, prove

__all__ = [
    "DEFAULT_BOARD_MODEL", "FALLBACKS_ABOUT", "INPUT_H", "INPUT_W", "LAST_RESORT",
    "MAX_CANDIDATES",
    "OUT_STRIDE", "Board", "BoardFinder", "BoardLocator", "BoardModelError", "Calibration",
    "CalibrationError", "FallbacksError", "GridModel", "LocateFallbacks", "LocateResult",
    "Located", "PrintExpectation", "Proof", "ProofConfig", "ProofSetup", "Proposals",
    "ProvedOnce", "board_moved", "by_print", "closest_print", "decode", "expectations",
    "print_colours_seen", "line_contrast", "line_score", "line_scores", "locate_board",
    "locate_with_markers", "make_calibration", "net_input", "pick", "propose", "prove",
    "prove_fit", "refine",
]
