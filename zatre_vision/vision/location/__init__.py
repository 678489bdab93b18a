"""Board location: one frame in, the proved board grid out.

The entry point is ``locate_board`` (``pipeline.py``): the proposers (``proposers.py``:
a saved calibration that still fits, ArUco markers, the board network's outline fitted
to the grid lines, then the fallbacks switched on in ``fallbacks.py``: the classical
line search, one corner moved, the mirrored frame, the textured region) each propose
candidate grids, in turn; each candidate gets the one shared ``refine`` (moved onto the
board, refitted from its corners), its cells are read by the caller, and it is
**proved** against the board prints (``print_proof.prove``); the first that proves
itself is the board, and a later proposer runs only where none before it proved. Code
outside this package imports only from here (``tests/test_import_graph.py`` checks it);
the names below are the entry point and its steps, the types they take and return, and
the companions a caller needs around them: the saved calibration file, the corner
labelling by the print (``by_print``), and the board network's input for training.

Inside: ``proposers`` (the ways of proposing), ``pipeline`` (the chain: propose,
refine, prove, pick; ``BoardLocator``), ``fallbacks`` (which proposers and refine steps
run, from the board model's card), ``find_board`` (grid fits from start corners, shared
by the proposers), ``board_net`` (the learned outline), ``grid_fit`` (corners to grid
lines), ``locate`` (classical search and line evidence), ``border`` (a fit whole cells
off), ``orient`` (which way round), ``quads``, ``markers``, ``calibration``,
``print_proof`` and ``print_colours``. The shared vocabulary (``GridModel``, cell
names) is ``vision/geometry.py``.
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
from .locate import LocateResult
from .markers import locate_with_markers
from .orient import by_print
from .pipeline import (
    MAX_CANDIDATES,
    Board,
    BoardLocator,
    Located,
    ProofSetup,
    Proposals,
    ProvedOnce,
    by_reading,
    locate_board,
    pick,
    propose,
    prove_fit,
    refine,
)
from .print_colours import closest as closest_print
from .print_colours import observed as print_colours_seen
from .print_proof import PrintExpectation, Proof, ProofConfig, expectations, prove
from .proposers import MARKERLESS, Candidate, Frame

__all__ = [
    "DEFAULT_BOARD_MODEL", "FALLBACKS_ABOUT", "INPUT_H", "INPUT_W", "LAST_RESORT",
    "MAX_CANDIDATES",
    "OUT_STRIDE", "Board", "BoardFinder", "BoardLocator", "BoardModelError", "Calibration",
    "CalibrationError", "FallbacksError", "GridModel", "LocateFallbacks", "LocateResult",
    "Located", "PrintExpectation", "Proof", "ProofConfig", "ProofSetup", "Proposals",
    "ProvedOnce", "board_moved", "by_print", "closest_print", "decode", "expectations",
    "print_colours_seen", "line_contrast", "line_score", "line_scores", "locate_board",
    "locate_with_markers", "make_calibration", "net_input", "pick", "propose", "prove",
    "prove_fit", "refine", "by_reading", "Candidate", "Frame", "MARKERLESS",
]
