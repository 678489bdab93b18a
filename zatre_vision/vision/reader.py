"""``BoardReader``: one camera frame in, the state of every cell out, in three stages.

**locate** (board network + grid fit, or calibration / markers; rectify and classify
each candidate fit; prove it against the board's print, ``print_proof``: a fit a cell
off is moved onto the grid it proves, one that proves none is no board) ->
**measure** (``reading/measure.py``: doubtful cells read again a pixel away and turned,
``steadied``; optionally at the camera's resolution, ``hires``; the classical pip count,
brightness and sharpness; the cells the decision will ask about read again from moved
crops: re-centred, and moved away from a hand) -> **decide** (``reading/decide.py``: a
pure function of that ``Evidence`` and the ``ReaderConfig``, which ``fit_reader`` calls
too). Every tuned number is one ``ReaderConfig`` (``reading/reader_config.py``), the
only way to set them: ``BoardReader(..., config=ReaderConfig(...))``, or the pip model's
card. The models are loaded once per reader; a reader holds no per-frame state (beyond
remembering which saved calibration has proved itself).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..board_prints import PrintProfileError, load_prints
from .geometry import GridModel
from .location import (
    DEFAULT_BOARD_MODEL,
    Board,
    BoardLocator,
    BoardModelError,
    Calibration,
    PrintExpectation,
    ProofSetup,
    ProvedOnce,
    expectations,
    locate_board,
)
from .reading.cell_evidence import sharpness
from .reading.cells import ALL_CELLS, crops, model_maps, normalise, rectify_board
from .reading.classify import CLASSES, DEFAULT_MODEL, ModelError, PipClassifier
from .reading.decide import cells_to_reread, decide
from .reading.evidence import Evidence
from .reading.hires import HiresReader
from .reading.measure import evidence_of, steadied, with_rereads
from .reading.read_result import ReadResult
from .reading.reader_config import ReaderCardError, ReaderConfig
from .reading.tile_adapt import TileAdaptation, attach

log = logging.getLogger(__name__)

#: Frames are read at this longer side at most (larger ones are reduced first). Not a
#: ``ReaderConfig`` field: a saved calibration (``zatre calibrate board``, the live
#: reader's kept fit) holds its grid in pixels of the frame reduced to this side, so a
#: reader with another would misread every calibration made before.
WORK_SIDE = 1280


def work_image(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame as the reader works on it (longer side at most WORK_SIDE), and the
    scale factor applied."""
    h, w = image.shape[:2]
    f = min(1.0, WORK_SIDE / max(h, w))
    if f == 1.0:
        return image, f
    return cv2.resize(image, (int(round(w * f)), int(round(h * f))),
                      interpolation=cv2.INTER_AREA), f


@dataclass(frozen=True)
class CellReading:
    """The classifier's reading of one candidate fit: ``quality`` (mean log of each
    cell's top probability: how confidently its cells read), the rectified board, its
    193 crops and their probabilities."""
    quality: float
    board: np.ndarray
    crops: np.ndarray
    probs: np.ndarray


@dataclass(frozen=True)
class Location:
    """``BoardReader.locate``'s answer: the factor the frame was reduced by (the
    board's pixels are the reduced frame's), and the board found (``location.Board``)."""
    scale: float
    board: Board


class BoardReader:
    def __init__(self, model_path: Path | str = DEFAULT_MODEL, threads: int = 1,
                 calibration: Calibration | None = None, markers: bool = False,
                 board_model_path: Path | str | None = DEFAULT_BOARD_MODEL,
                 config: ReaderConfig | None = None,
                 tiles: TileAdaptation | None = None):
        """``config``: every tuned number of the reader (``ReaderConfig``); without it,
        the one the pip model's card gives (``ReaderConfig.from_card``: fitted for that
        network by ``training/fit_reader.py``). ``tiles``: a table's own tiles
        (``zatre calibrate tiles``)."""
        self.classifier = PipClassifier(model_path, threads)
        #: a table's own tiles (``zatre calibrate tiles``): the classifier's probabilities
        #: come from it, and the decision weighs its pip counts as the set has them
        attach(self.classifier, tiles)
        #: without the board model (None, or its file missing) the classical search runs
        try:
            self.locator = BoardLocator(board_model_path, threads)
        except BoardModelError as exc:   # a card whose search switches are unusable
            raise ModelError(str(exc)) from None
        self.calibration = calibration
        self.markers = markers
        if config is None:
            try:
                config = ReaderConfig.from_card(self.classifier.card.data)
            except ReaderCardError as exc:
                raise ModelError(f"{self.classifier.path}.json: {exc}") from None
        self.config = config
        #: the calibration whose grid last proved itself (a fixed camera's grid is
        #: checked once, not every frame), and the print it proved
        self._proved = ProvedOnce()
        #: the board prints a fit may prove itself against (``calibration/prints/``),
        #: Peri's first; without the profiles, Peri's expectation alone
        try:
            self.prints = load_prints()
        except PrintProfileError as exc:
            log.warning("%s: the print proof knows the Peri print only", exc)
            self.prints = {}
        self.print_expectations: tuple[PrintExpectation, ...] = (
            expectations(self.prints) or (PrintExpectation(),))
        #: ``board_moved``'s contrast test on a calibrated read (photos that may show
        #: another set-up); the live pipeline turns it off
        self.moved_contrast = True
        #: doubtful cells read again from the original frame at its own resolution
        #: (``hires.HiresReader``); None: off
        self.hires: HiresReader | None = None

    # -- locate ------------------------------------------------------------------------
    def locate(self, image: np.ndarray) -> Location:
        """Where the board is in ``image``: the factor the frame was reduced by (it is
        undistorted too where the calibration has lens intrinsics), and the board the four
        steps of ``location.locate_board`` found there (propose, refine by the
        classifier's reading, prove against the prints, pick)."""
        work, f = work_image(image)
        if self.calibration is not None and self.calibration.camera_matrix is not None:
            work = self.calibration.undistort(work)
        grey = work if work.ndim == 2 else cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        proof = self.config.print_proof
        setup = (None if proof is None else
                 ProofSetup(proof, self.print_expectations, self.prints))
        board = locate_board(work, grey, self.locator,
                             lambda model: self._read_cells(grey, model), setup,
                             self.calibration, self.markers, self.moved_contrast,
                             self._proved)
        return Location(f, board)

    def _read_cells(self, grey: np.ndarray, model: GridModel) -> CellReading:
        board = normalise(rectify_board(grey, model_maps(model), model.cell_size_px()))
        cr = crops(board)
        probs = self.classifier.probabilities(cr, ALL_CELLS)
        return CellReading(float(np.mean(np.log(probs.max(axis=1) + 1e-6))), board, cr,
                           probs)

    # -- measure -----------------------------------------------------------------------
    def measure(self, image: np.ndarray, located: Location) -> Evidence:
        """The evidence of the board ``located`` in ``image`` (found): its cells'
        readings steadied (``pass_steadied``) and, with ``hires``, read again at the
        frame's resolution (not on a frame undistorted by a calibration's lens: its grid
        lives in undistorted pixels); the crops' measures (``measure.evidence_of``); and
        the readings from moved crops of the cells the decision will ask about
        (``decide.cells_to_reread``)."""
        found, cfg = located.board, self.config
        board, cr, probs = found.reading.board, found.reading.crops, found.reading.probs
        if cfg.pass_steadied:
            probs = steadied(self.classifier, board, probs, cr, cfg.recheck_below)
        if self.hires is not None and (self.calibration is None
                                       or self.calibration.camera_matrix is None):
            probs = self.hires.reread(self.classifier, image, found.model, located.scale,
                                      probs, cr)
        evidence = evidence_of(cr, probs, sharpness(board), found.orientation_known,
                               self.classifier.adaptation)
        recentre, beside_hand = cells_to_reread(evidence, cfg)
        return with_rereads(evidence, self.classifier, board, recentre, beside_hand, cfg)

    # -- read --------------------------------------------------------------------------
    def read(self, image: np.ndarray) -> ReadResult:
        """One frame: locate, measure, decide. A board whose orientation is a guess
        (``Board.orientation_known`` False) is found but held back: no cell is read."""
        t0 = time.perf_counter()
        located = self.locate(image)
        found, f = located.board, located.scale
        if not found.found:
            return ReadResult(False, elapsed_ms=(time.perf_counter() - t0) * 1000,
                              source=found.source, print_proof=found.proof)
        result = decide(self.measure(image, located), self.config)
        result.corners = [[round(float(x) / f, 2), round(float(y) / f, 2)]
                          for x, y in found.model.corners()]
        result.model = found.model
        result.locate_score = found.score
        result.source = found.source
        result.print_proof = found.proof
        result.board_print = found.board_print
        result.elapsed_ms = (time.perf_counter() - t0) * 1000
        return result


__all__ = ["BoardReader", "CLASSES", "Location", "ReadResult", "ReaderCardError",
           "ReaderConfig", "WORK_SIDE", "work_image"]
