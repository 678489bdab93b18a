"""``BoardReader``: one camera frame in, the state of every cell out.

locate (board network + grid fit, or calibration / markers) -> rectify -> 193 crops ->
ONNX classifier -> prove (the fit against the board's print, ``print_proof``: a fit a
cell off is moved onto the grid it proves, one that proves none is no board) ->
doubtful cells read again a pixel away and turned (``steadied``) -> classical pip count
as a cross-check that vetoes however sure the network is -> cells, uncertain, occluded
(``decide``) -> uncertain cells read again from moved crops (``refine``: ``recentred``,
``beside_hand``). The tuned numbers are one ``ReaderConfig``. The models are loaded
once per reader; a reader holds no per-frame state (beyond remembering which saved
calibration has proved itself).

This module holds the decisions and their tuned thresholds; the evidence they weigh
(where a hand is, whether a crop could hold a tile, how sharp the photo is) is in
``cell_evidence.py``, the crops in ``cells.py`` and the result in ``read_result.py``.
"""

from __future__ import annotations

import json
import time
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path

import cv2
import numpy as np

from .board_net import DEFAULT_BOARD_MODEL
from .calibration import Calibration, board_moved
from .cell_evidence import (
    TOUCHING,
    at_hand,
    bare_board,
    looks_like_tiles,
    no_hand_near,
    sharpness,
    weakest_direction_sharpness,
)
from .cells import (
    ALL_CELLS,
    CROP,
    crops,
    model_maps,
    moved_crops,
    normalise,
    oriented,
    rectify_board,
)
from .classify import CLASSES, DEFAULT_MODEL, OCCLUDED, PipClassifier
from .find_board import BoardLocator
from .geometry import CELL_NAMES, IS_LIGHT, GridModel, reading_key
from .hires import HiresReader
from .markers import locate_with_markers
from .orient import by_print
from .pips import CANNOT_TELL, NOT_CHECKED, count_all
from .print_proof import Proof, ProofConfig, prove
from .prob_calibration import ProbabilityCalibration, band_of
from .read_result import ReadResult, settle
from .tile_adapt import TileAdaptation, attach

#: Frames are read at this longer side at most (larger ones are reduced first).
WORK_SIDE = 1280
#: mean |Laplacian| of the rectified board (bright level 1, 20 px a cell) below which a
#: photo counts as blurred: 1 of 193 photos rendered with the training ranges is below
#: it (the next 0.056); on the wide set 38 of 86 photos with blur beyond those ranges
#: are below it, and 4 of 201 within them. A property of the photo, not of the model:
#: it picks the calibration's band (``prob_calibration.BANDS``).
SHARP_ENOUGH = 0.05
#: a photo whose crops have a ``weakest_direction_sharpness`` below this is streaked or
#: blurred past reading its pips: 2 % of the photos whose pips are clear fall below it
#: and 96 % of those whose pips are blurred away (`bench.pip_contrast` under 0.05; wide
#: seeds 7001, 8101, 9001, 6101 and 6201), against 53 % below SHARP_ENOUGH of
#: ``sharpness``, which a streak leaves high: edges along it stay sharp.
STREAKED_BELOW = 0.048
#: ``sharpness`` from which a photo counts as clearly sharp (about half of the wide
#: benchmark's photos; SHARP_ENOUGH is the bar below which one is blurred)
CLEAR_SHARPNESS = 0.1

#: The decision's model-dependent numbers come from the pip model's card
#: (``reader_thresholds``), fitted by ``python -m zatre_vision.training.fit_reader`` on
#: a validation split of its own seed: the probability calibration (a temperature per
#: photo band, a class prior per band and cell kind), the one level below which a
#: cell is uncertain, and the few cross-check numbers that stay. These are used only
#: when a card has none (a model never fitted): the network's own probabilities and
#: the last hand-set values.
UNFITTED = {"min_confidence": 0.55, "veto_confidence": 0.95,
            "unconfirmed_confidence": 0.8, "uncounted_margin": 0.1,
            "light_empty_blurred": 0.9, "bright_empty_below": 0.7,
            "tile_face_bright": 0.85, "doubtful_frame": 10, "doubtful_frame_streaked": 3}


def card_thresholds(model_path: Path | str) -> tuple[dict, ProbabilityCalibration | None]:
    """The fitted values and probability calibration in the card beside
    ``model_path`` (``reader_thresholds``); ({}, None) where it has none or it does
    not fit (the reader then uses ``UNFITTED``)."""
    try:
        card = json.loads(Path(str(model_path) + ".json").read_text(encoding="utf-8"))
        entry = card["reader_thresholds"]
        values = {k: v for k, v in entry["values"].items() if k in UNFITTED}
        cal = entry.get("calibration")
        return values, ProbabilityCalibration.from_card(cal) if cal else None
    except (OSError, ValueError, KeyError, TypeError):
        return {}, None


_CARD_VALUES, _CARD_CALIBRATION = card_thresholds(DEFAULT_MODEL)


def _fitted(name: str, low: float, high: float, about: str):
    """A model-dependent field of ``ReaderConfig``: its default from the default
    model's card (else ``UNFITTED``), bounds and a one-line description."""
    return _knob(_CARD_VALUES.get(name, UNFITTED[name]), low, high, about)


def _knob(default: float, low: float, high: float, about: str):
    """A field of ``ReaderConfig``: its default, bounds and a one-line description."""
    return field(default=default, metadata={"bounds": (low, high), "about": about})


@dataclass(frozen=True)
class ReaderConfig:
    """Every number of the reader's decision, with its bounds and what it does, passed
    into ``BoardReader``. The model-dependent ones (``MODEL_DEPENDENT``) default to the
    default model's card, fitted by ``zatre_vision.training.fit_reader``
    (``for_model`` reads another model's); the photo bars (sharpness, streaks) are
    set by hand from the renderer's ranges. A value out of bounds is refused on
    construction (``ValueError``)."""

    calibration: ProbabilityCalibration = field(
        default_factory=lambda: _CARD_CALIBRATION or ProbabilityCalibration.identity(),
        metadata={"about": "temperature and class prior applied to the network's "
                           "probabilities before any rule (prob_calibration.py)"})
    min_confidence: float = _fitted(
        "min_confidence", 0.3, 0.999,
        "calibrated top-class probability below which a cell is uncertain (the one level)")
    veto_confidence: float = _fitted(
        "veto_confidence", 0.5, 1.0, "below it a tile the pip count cannot confirm is doubted")
    unconfirmed_confidence: float = _fitted(
        "unconfirmed_confidence", 0.5, 1.0, "bar for a reading no second cue supports")
    uncounted_margin: float = _fitted(
        "uncounted_margin", 0.0, 0.5, "over the level, for a tile whose pips cannot be told")
    light_empty_blurred: float = _fitted(
        "light_empty_blurred", 0.5, 1.0, "'empty' a light cell needs on a blurred photo")
    bright_empty_below: float = _fitted(
        "bright_empty_below", 0.0, 1.0, "'empty' a dark cell bright like a tile needs")
    tile_face_bright: float = _fitted(
        "tile_face_bright", 0.0, 1.0, "middle brightness of a tile's face on a sharp photo")
    doubtful_frame: int = _fitted(
        "doubtful_frame", 1, 193, "doubtful cells from which a frame reports nothing")
    doubtful_frame_streaked: int = _fitted(
        "doubtful_frame_streaked", 1, 193, "the same on a photo streaked past its pips")
    streaked_below: float = _knob(
        STREAKED_BELOW, 0.0, 1.0, "weakest-direction sharpness below which a photo is streaked")
    sharp_enough: float = _knob(
        SHARP_ENOUGH, 0.0, 1.0, "board sharpness below which a photo is blurred")
    clear_sharpness: float = _knob(
        CLEAR_SHARPNESS, 0.0, 1.0, "board sharpness from which a photo is clearly sharp")
    #: the print check every fit must pass (None: fits are taken as located)
    print_proof: ProofConfig | None = field(
        default_factory=ProofConfig,
        metadata={"about": "the print check every fit must pass (print_proof.py)"})

    def __post_init__(self) -> None:
        for f in fields(self):
            bounds = f.metadata.get("bounds")
            value = getattr(self, f.name)
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                raise ValueError(f"ReaderConfig.{f.name} = {value} is outside "
                                 f"{bounds[0]}..{bounds[1]} ({f.metadata['about']})")

    #: the fields whose values depend on the pip network (its calibration: how sure it
    #: is when right), fitted by ``training/fit_reader.py`` and listed in its model card
    MODEL_DEPENDENT = tuple(UNFITTED)

    @classmethod
    def for_model(cls, model_path: Path | str, **changes) -> ReaderConfig:
        """The defaults with the values fitted for the model at ``model_path`` (its
        card's ``reader_thresholds``; ``UNFITTED`` and the network's own probabilities
        where it has none), then ``changes``."""
        values, cal = card_thresholds(model_path)
        base = {**UNFITTED, **values,
                "calibration": cal or ProbabilityCalibration.identity()}
        return cls(**{**base, **changes})

    def band(self, sharp: float) -> int:
        """The calibration band (``prob_calibration.BANDS``) of a photo this sharp."""
        return band_of(sharp, self.sharp_enough, self.clear_sharpness)

    def model_card_entry(self, fitted_by: str) -> dict:
        """The model-dependent fields as the model card lists them."""
        return {"fitted_by": fitted_by,
                "values": {name: getattr(self, name) for name in self.MODEL_DEPENDENT},
                "calibration": self.calibration.to_card(),
                "described": [line for line in self.describe(self)
                              if line.split(" = ")[0] in self.MODEL_DEPENDENT]}

    @classmethod
    def describe(cls, values: ReaderConfig | None = None) -> list[str]:
        """One line per field: name, default (or the value in ``values``), bounds,
        what it does."""
        out = []
        for f in fields(cls):
            if f.name == "calibration" or f.name == "print_proof":
                shown = "(object)"
            elif values is not None:
                shown = getattr(values, f.name)
            else:
                shown = f.default if f.default is not MISSING else "(config)"
            bounds = f.metadata.get("bounds")
            span = f" [{bounds[0]}..{bounds[1]}]" if bounds else ""
            out.append(f"{f.name} = {shown}{span}: {f.metadata.get('about', '')}")
        return out


#: at most this many of the locator's fits are read and compared
MAX_CANDIDATES = 3
#: cells read below this top-class probability are read again from crops moved by one
#: pixel (0.05 cell) in each direction, and the nine readings averaged (``steadied``).
#: (Training smooths the labels by 0.02, so a sure reading tops out near 0.98: at 0.97
#: most cells of a board would be read again; at 0.96 about 38 a wide photo, 22 at 0.95.)
RECHECK_BELOW = 0.96
#: the eight moves of one pixel (``steadied``)
SHIFTS = np.array([(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy], np.int32)
#: an uncertain tile is read again from crops moved this many pixels (0.15 cell) in
#: each of eight directions (``recentred``). A tile lies up to 0.1 cell off its cell's
#: middle on the wide benchmark set (0.06 in training) and the locator adds a few
#: hundredths: a one-pip tile then shows its pip off centre, where a two's pips sit,
#: and the network hesitates (1 against 2 on most of the clear, hand-free photos of the
#: tuning seeds that were not exact). One of the moved crops brings the tile back to
#: the middle, and there the network is sure.
RECENTRE_SHIFT = 3
#: ... a moved crop settles the cell when it reads a tile class with this probability,
#: no moved crop reads another class with RECENTRE_RIVAL or more, and the class was one
#: of the two the cell's own (steadied) reading ranked first. Only cells with no
#: occluded call touching them are read again: next to a hand a moved crop can look
#: past the hand's edge and be sure of the pips it still sees. Chosen on wide seeds
#: 7001, 6101 and 6201 (781 boards), with RECENTRE_EMPTY_BELOW: exact boards 438 -> 447,
#: wrong cells 16 -> 16, hidden cells read wrong 11 -> 11, 29 cells settled. Without the
#: hand rule (and the empty bar): 455 / 17 / 12 (60 settled), and on the benchmark set
#: two hidden cells more read wrong. Offline on the 166 uncertain visible cells of
#: those seeds (no hand rule): moves of 3 pixels 53 cells right, 1 wrong; of 2 and 3:
#: 57 / 4; all 56 moves of 2 to 4: 53 / 7; a bar of 0.98: 29 / 0. Vetoing by the
#: classical count lost 15 of the 53.
RECENTRE_SURE = 0.95
RECENTRE_RIVAL = 0.9
#: ... and only where the cell's own reading gives "empty" less than this: moving the
#: crop tells tile classes apart, not whether a tile is there. Added after the first
#: benchmark run (seed 9001) settled two empty cells of one photo as fives (their own
#: "empty" 0.43 and 0.21); on the tuning seeds it changes nothing but one wrong cell
#: (an empty cell at 0.23 settled as a three), which it removes.
RECENTRE_EMPTY_BELOW = 0.2
RECENTRE_SHIFTS = RECENTRE_SHIFT * SHIFTS
#: an uncertain cell at a hand's edge (in or touching a patch of occluded calls,
#: ``at_hand``) is read again from crops moved 4, 5 and 6 pixels (0.2-0.3 cell) in each
#: of eight directions (``beside_hand``). A cell the hand covers only in part is
#: visible (its value is the truth), yet the network calls most of them occluded: on
#: the tuning seeds' clear photos with a hand, half the boards that were not exact had
#: no other fault. A crop moved away from the hand no longer shows it, and there the
#: network reads the cell.
BESIDE_HAND_SHIFTS = np.concatenate([k * SHIFTS for k in (4, 5, 6)])
#: A cell deep under the hand (every cell touching it an occluded call) is not read
#: again: no move clears it (on the tuning seeds 942 of the 3,072 cells tried, one of
#: them settled; one board fewer exact, 27 % less time in ``beside_hand``). The moves
#: of 5 and 6 pixels are read first; those of 4 pixels only for a cell that one of them
#: saw clear of the hand (2,666 of the 3,072 cells are seen by none, and none of those
#: was settled with all 24 moves read).
BESIDE_HAND_FAR = 2 * len(SHIFTS)
#: A moved crop is clear of the hand when its "occluded" is below
#: BESIDE_HAND_CLEAR_BELOW. The cell is settled as the best visible class of its own
#: (steadied) reading when at least BESIDE_HAND_AGREE clear moved crops read that class
#: with BESIDE_HAND_SURE or more and no clear one reads another class that surely (a
#: two with one pip under the hand shows one pip from every move clear of it). Not on
#: blurred photos (``SHARP_ENOUGH``) nor frames held back, and a light x2 cell is
#: settled empty only on a clearly sharp photo (``CLEAR_SHARPNESS``; a blurred tile
#: there looks like the bare cell). Chosen on wide seeds 7001, 6101 and 6201, offline on their 186
#: photos with a hand and a board not blurred nor held back, cells settled right /
#: wrong / hidden cells read wrong / boards made exact: moves of 4-6 px, three
#: agreeing at 0.8, 77 / 0 / 0 / 39; two agreeing 91 / 0 / 5 / 47; one at 0.95 13 / 0
#: / 2 / 6; 5 px alone 21 / 0 / 0 / 10. In the reader, tuning seeds, exact boards /
#: wrong cells / hidden cells read wrong: 457 / 16 / 11 -> 492 / 16 / 11 when every
#: clear crop had to agree; 497 / 16 / 11 with unsure ones left out (a move that
#: shows mostly the empty cell beside a tile is not sure of "empty").
BESIDE_HAND_CLEAR_BELOW = 0.05
BESIDE_HAND_AGREE = 3
BESIDE_HAND_SURE = 0.8
#: the orientation (``oriented``) each moved crop is read in: the seven turns and
#: mirrors of a square, then the crop as it is
ORIENTATIONS = (1, 2, 3, 4, 5, 6, 7, 0)


def sure_count_disagrees(counts: np.ndarray, cls: np.ndarray, blurred: bool) -> np.ndarray:
    """Per cell: the classical pip count is sure and contradicts the network's class,
    however sure the network is (the veto). Sure: on a photo not blurred, two pips or
    more counted, two or more away from the class. Its errors are a pip too many or
    too few (a speck, two pips merged) and, on blurred photos, all pips merged into
    one (wide set, seed 9001, first 40 photos: 53 disagreements with a sure network,
    50 of them the count's error, every one of those within a pip on a sharp photo or
    on a blurred one). Sixes read as fours with a highlight in each hollow pip are two
    pips away."""
    if blurred:
        return np.zeros(len(counts), bool)
    return (counts >= 2) & (np.abs(counts - cls) >= 2)


def vetoed(result: ReadResult, i: int, c: int) -> bool:
    """Does the sure pip count (``sure_count_disagrees``) that vetoed cell ``i``
    contradict class ``c`` too? A second reading never settles such a cell as ``c``."""
    counts = result.pip_counts
    return (counts is not None and CELL_NAMES[i] in result.vetoed
            and abs(int(counts[i]) - c) >= 2)


def work_image(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame as the reader works on it (longer side at most WORK_SIDE), and the
    scale factor applied."""
    h, w = image.shape[:2]
    f = min(1.0, WORK_SIDE / max(h, w))
    if f == 1.0:
        return image, f
    return cv2.resize(image, (int(round(w * f)), int(round(h * f))),
                      interpolation=cv2.INTER_AREA), f


@dataclass
class SeenBoard:
    """What ``BoardReader.look`` saw of one frame: the fit that proved itself (None:
    no board), its top view, crops and (steadied) network probabilities, and the
    photo's sharpness bands. ``decide`` and ``refine`` need nothing else; the reader's
    fitting script (``training/fit_reader.py``) keeps these per photo."""

    model: GridModel | None = None
    score: float = 0.0
    board: np.ndarray | None = None
    crops: np.ndarray | None = None
    probs: np.ndarray | None = None
    proof: Proof | None = None
    source: str = "locate"
    scale: float = 1.0
    sharpness: float = 0.0
    blurred: bool = False
    clear: bool = False


class BoardReader:
    def __init__(self, model_path: Path | str = DEFAULT_MODEL, threads: int = 1,
                 calibration: Calibration | None = None, markers: bool = False,
                 board_model_path: Path | str | None = DEFAULT_BOARD_MODEL,
                 config: ReaderConfig | None = None,
                 tiles: TileAdaptation | None = None):
        """``config``: every number of the decision (``ReaderConfig``); without it, the
        values fitted for the model at ``model_path`` (``ReaderConfig.for_model``).
        ``tiles``: a table's own tiles (``zatre calibrate tiles``)."""
        self.classifier = PipClassifier(model_path, threads)
        #: a table's own tiles (``zatre calibrate tiles``): the classifier's probabilities
        #: come from it, every decision below weighs them as it would the network's
        attach(self.classifier, tiles)
        #: without the board model (None, or its file missing) the classical search runs
        self.locator = BoardLocator(board_model_path, threads)
        self.calibration = calibration
        self.markers = markers
        self.config = config or ReaderConfig.for_model(model_path)
        #: the calibration whose grid last proved itself (a fixed camera's grid is
        #: checked once, not every frame)
        self._proved_calibration: Calibration | None = None
        #: ``board_moved``'s contrast test on a calibrated read (photos that may show
        #: another set-up); the live pipeline turns it off
        self.moved_contrast = True
        #: doubtful cells read again from the original frame at its own resolution
        #: (``hires.HiresReader``); None: off
        self.hires: HiresReader | None = None

    # the older attributes, kept: each reads (and sets) the config's field
    def _setting(name: str):  # noqa: N805 - a property factory, used in the class body
        def get(self):
            return getattr(self.config, name)

        def put(self, value):
            self.config = replace(self.config, **{name: value})
        return property(get, put)

    min_confidence = _setting("min_confidence")
    veto_confidence = _setting("veto_confidence")
    unconfirmed_confidence = _setting("unconfirmed_confidence")
    print_proof = _setting("print_proof")

    # -- geometry ----------------------------------------------------------------------
    def _models(self, work: np.ndarray, grey: np.ndarray
                ) -> tuple[list[tuple[GridModel, float]], str]:
        """Candidate grid models (best first) and where they came from. ``work`` is
        already undistorted when the calibration has lens intrinsics (``read``);
        ``grey`` is ``work`` in grey."""
        h, w = work.shape[:2]
        if self.calibration is not None and not board_moved(
                work, self.calibration, contrast=self.moved_contrast):
            return [(self.calibration.model_for(w, h), self.calibration.line_score)], \
                "calibration"
        if self.markers:
            r = locate_with_markers(work)
            if r.found:
                return [(r.model, r.score)], "markers"
        found = self.locator.locate(work, grey)
        return list(found.result.candidates[:MAX_CANDIDATES]), f"locate:{found.method}"

    def _proved_reading(self, work: np.ndarray, grey: np.ndarray,
                        candidates: list[tuple[GridModel, float]], source: str
                        ) -> tuple[tuple | None, Proof | None]:
        """Rectify and classify each candidate fit, then take the one whose cells the
        classifier reads most confidently among those that prove themselves against
        the print (``print_proof.prove``, tried in that order; a fit one cell off is
        moved onto the grid it proves, its corners labelled again by the print
        (``orient.by_print``: the label and logo were looked for where the fit put
        them), and read again there). Returns (model, locate
        score, rectified board, crops, probabilities, proof), or None and the last
        proof that failed. A saved calibration's grid is proved once, not every
        frame."""
        readings = []
        for model, score in candidates:
            board, cr, probs = self._read_cells(grey, model)
            quality = float(np.mean(np.log(probs.max(axis=1) + 1e-6)))
            readings.append((quality, model, score, board, cr, probs))
        readings.sort(key=lambda r: -r[0])
        unchecked = self.print_proof is None or (
            source == "calibration" and self._proved_calibration is self.calibration)
        failed = None
        for _, model, score, board, cr, probs in readings:
            if unchecked:
                return (model, score, board, cr, probs, None), None
            proof = prove(grey, model, self.print_proof)
            if not proof.proved:
                failed = proof
                continue
            if proof.moved != (0, 0):
                model = by_print(work, proof.model)
                board, cr, probs = self._read_cells(grey, model)
            if source == "calibration":
                self._proved_calibration = self.calibration
            return (model, score, board, cr, probs, proof), None
        return None, failed

    def _read_cells(self, grey: np.ndarray, model: GridModel
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        board = normalise(rectify_board(grey, model_maps(model), model.cell_size_px()))
        cr = crops(board)
        return board, cr, self.classifier.probabilities(cr, ALL_CELLS)

    def steadied(self, board: np.ndarray, probs: np.ndarray,
                 cr: np.ndarray | None = None) -> np.ndarray:
        """``probs`` with each doubtful cell's row replaced by the mean over its crop and
        the eight crops one pixel away, each of those shown to the network turned or
        mirrored (``ORIENTATIONS``). A single reading of a small network jumps with
        sub-pixel shifts and with the crop's orientation (it was trained on all eight);
        the mean of nine differing readings is steadier, both in its class and in how
        sure it is. (Wide benchmark set: turning the moved crops cut the wrong cells
        108 -> 90 at the same cost; training ranges: uncertain 105 -> 95.)

        With the crops ``cr``, a dark cell read empty whose middle is too dark for a tile
        (``too_dark_for_a_tile``) is not read again: ``decide`` takes such a cell as bare
        board however sure the network is. (First 100 wide photos: 1,489 of 4,050
        doubtful cells, 37 % of the re-reading; the nine readings changed the class of
        8 of them.)"""
        doubt = probs.max(axis=1) < RECHECK_BELOW
        if cr is not None:
            doubt &= ~bare_board(probs.argmax(axis=1), cr, doubt)
        doubtful = np.flatnonzero(doubt)
        if len(doubtful) == 0:
            return probs
        moved = moved_crops(board, doubtful, SHIFTS)
        turned = np.concatenate([oriented(m, k) for m, k in
                                 zip(moved, ORIENTATIONS, strict=True)])
        readings = self.classifier.probabilities(turned, np.tile(doubtful, len(SHIFTS)))
        out = probs.copy()
        out[doubtful] = (probs[doubtful] + readings.reshape(len(SHIFTS), len(doubtful), -1)
                         .sum(axis=0)) / (len(SHIFTS) + 1)
        return out

    def recentred(self, board: np.ndarray, result: ReadResult, blurred: bool = False,
                  clear: bool = False) -> ReadResult:
        """``result`` with the uncertain cells that a re-centred reading settles taken
        as read (see RECENTRE_SHIFT): each uncertain cell not called occluded, and with
        no occluded call touching it, is read from crops moved RECENTRE_SHIFT pixels in
        eight directions; where one of them is RECENTRE_SURE of a tile class that no
        moved crop rivals (RECENTRE_RIVAL), that was among the cell's two best classes,
        and where the cell's "empty" was below RECENTRE_EMPTY_BELOW, the cell takes that
        class. A frame held back (``doubtful_frame``) stays held back. ``result`` is
        changed in place; its ``classes`` keep the network's own reading (the benchmark's
        confusion matrix is the network's)."""
        if result.doubtful_frame or result.probabilities is None or result.classes is None:
            return result
        doubted = set(result.uncertain) - set(result.occluded)
        near_hand = ~no_hand_near(result.classes)
        index = np.array([i for i, n in enumerate(CELL_NAMES)
                          if n in doubted and not near_hand[i]], np.intp)
        if len(index) == 0:
            return result
        names = [CELL_NAMES[i] for i in index]
        best = self._moved_readings(board, index, RECENTRE_SHIFTS)[:, :, :OCCLUDED].max(axis=0)
        top_two = np.argsort(result.probabilities[index], axis=1)[:, -2:]
        settled = []
        for k, name in enumerate(names):
            c = int(best[k].argmax())
            rival = float(np.partition(best[k], -2)[-2])
            if (c > 0 and best[k, c] >= RECENTRE_SURE and rival < RECENTRE_RIVAL
                    and c in top_two[k] and not vetoed(result, index[k], c)
                    and result.probabilities[index[k], 0] < RECENTRE_EMPTY_BELOW):
                result.cells[name] = c
                settled.append(name)
        settle(result, settled)
        result.recentred = sorted(settled, key=reading_key)
        return result

    def _moved_readings(self, board: np.ndarray, index: np.ndarray, shifts: np.ndarray
                        ) -> np.ndarray:
        """(len(shifts), len(index), 8): the network's readings of the cells ``index``
        from crops moved by each of ``shifts``."""
        moved = moved_crops(board, index, shifts).reshape(-1, CROP, CROP)
        return self.classifier.probabilities(moved, np.tile(index, len(shifts))
                                             ).reshape(len(shifts), len(index), -1)

    def beside_hand(self, board: np.ndarray, result: ReadResult, blurred: bool = False,
                    clear: bool = False) -> ReadResult:
        """``result`` with the uncertain cells at a hand's edge that crops moved away
        from the hand settle taken as read (see BESIDE_HAND_SHIFTS): each uncertain cell
        in or touching a patch of occluded calls (``at_hand``), but not deep under it, is
        read from crops moved 4 to 6 pixels in eight directions; at least
        BESIDE_HAND_AGREE readings clear of the hand (BESIDE_HAND_CLEAR_BELOW) must read
        the best visible class of the cell's own reading with BESIDE_HAND_SURE or more,
        and none another class so surely (a light x2 cell is taken as empty only when
        ``clear``). A settled cell leaves ``uncertain`` and ``occluded`` (a tile
        goes into ``cells``). Not on a ``blurred`` photo nor a frame held back.
        ``result`` is changed in place; its ``classes`` keep the network's own
        reading."""
        if (blurred or result.doubtful_frame or result.probabilities is None
                or result.classes is None):
            return result
        doubted = set(result.uncertain)
        # a cell deep under the hand (every cell touching it an occluded call): no move
        # clears it
        deep = ~TOUCHING[:, result.classes != OCCLUDED].any(axis=1)
        near_hand = at_hand(result.classes) & ~deep
        index = np.array([i for i, n in enumerate(CELL_NAMES)
                          if n in doubted and near_hand[i]], np.intp)
        if len(index) == 0:
            return result
        readings = self._moved_readings(board, index, BESIDE_HAND_SHIFTS[-BESIDE_HAND_FAR:])
        seen = np.flatnonzero((readings[:, :, OCCLUDED] < BESIDE_HAND_CLEAR_BELOW).any(axis=0))
        near = np.full((len(BESIDE_HAND_SHIFTS) - BESIDE_HAND_FAR,) + readings.shape[1:], 1.0,
                       readings.dtype)  # not read: as if on the hand
        if len(seen):
            near[:, seen] = self._moved_readings(board, index[seen],
                                                 BESIDE_HAND_SHIFTS[:-BESIDE_HAND_FAR])
        readings = np.concatenate([near, readings])
        own_best = result.probabilities[index, :OCCLUDED].argmax(axis=1)
        settled = []
        for k, i in enumerate(index):
            free = readings[:, k][readings[:, k, OCCLUDED] < BESIDE_HAND_CLEAR_BELOW]
            c = int(own_best[k])
            if c == 0 and IS_LIGHT[i] and not clear:
                continue  # a blurred tile on a light cell looks like the bare cell
            calls = free[:, :OCCLUDED].argmax(axis=1)
            sure = free[:, :OCCLUDED].max(axis=1) >= BESIDE_HAND_SURE
            agree, rival = sure & (calls == c), sure & (calls != c)
            if agree.sum() >= BESIDE_HAND_AGREE and not rival.any() and not vetoed(result, i, c):
                if c > 0:
                    result.cells[CELL_NAMES[i]] = c
                settled.append(CELL_NAMES[i])
        settle(result, settled)
        result.beside_hand = sorted(settled, key=reading_key)
        return result

    # -- reading -----------------------------------------------------------------------
    def read(self, image: np.ndarray) -> ReadResult:
        """One frame, in named stages: ``look`` (locate the fits; rectify and classify
        each; keep the one that proves itself against the print; read its doubtful
        cells again, steadied), ``decide`` (calibrated probabilities, one level, the
        cross-checks), ``refine`` (the re-reading passes on the cells left
        uncertain)."""
        t0 = time.perf_counter()
        seen = self.look(image)                                  # locate .. classify
        if seen.model is None:
            return ReadResult(False, elapsed_ms=(time.perf_counter() - t0) * 1000,
                              source=seen.source, print_proof=seen.proof)
        result = self.decide(seen.crops, seen.probs, blurred=seen.blurred,
                             clear=seen.clear)                   # decide
        self.refine(seen.board, result, blurred=seen.blurred, clear=seen.clear)
        result.sharpness = seen.sharpness
        result.corners = [[round(float(x) / seen.scale, 2), round(float(y) / seen.scale, 2)]
                          for x, y in seen.model.corners()]
        result.model = seen.model
        result.locate_score = seen.score
        result.source = seen.source
        result.print_proof = seen.proof
        result.elapsed_ms = (time.perf_counter() - t0) * 1000
        return result

    def look(self, image: np.ndarray) -> SeenBoard:
        """Everything ``decide`` weighs, from one frame: locate (candidate fits),
        rectify and classify each, prove the best against the print
        (``_proved_reading``), and read its doubtful cells again (``steadied``).
        ``SeenBoard.model`` is None where no fit proved itself."""
        work, f = work_image(image)
        if self.calibration is not None and self.calibration.camera_matrix is not None:
            work = self.calibration.undistort(work)
        grey = work if work.ndim == 2 else cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        candidates, source = self._models(work, grey)                        # locate
        chosen, failed = self._proved_reading(work, grey, candidates, source)  # rectify,
        if chosen is None:                                                    # classify
            return SeenBoard(source=source, proof=failed, scale=f)
        model, score, board, cr, probs, proof = chosen
        sharp = sharpness(board)
        probs = self.steadied(board, probs, cr)
        if self.hires is not None and (self.calibration is None
                                       or self.calibration.camera_matrix is None):
            probs = self.hires.reread(self.classifier, image, model, f, probs, cr)
        return SeenBoard(model=model, score=score, board=board, crops=cr,
                         probs=probs, proof=proof,
                         source=source, scale=f, sharpness=sharp,
                         blurred=sharp < self.config.sharp_enough,
                         clear=sharp >= self.config.clear_sharpness)

    #: the re-reading passes that ``refine`` runs, in order. Each is a method
    #: ``(board, result, blurred, clear) -> result`` that reads some of ``result``'s
    #: uncertain cells again from crops of ``board`` moved about them and settles those
    #: it can (in place, ``read_result.settle``); none settles a cell against a sure pip
    #: count (``vetoed``) nor touches a frame held back. (``steadied``, the re-reading
    #: of doubtful cells before ``decide``, is part of classifying.)
    REFINE_PASSES = ("recentred", "beside_hand")

    def refine(self, board: np.ndarray, result: ReadResult, blurred: bool,
               clear: bool) -> ReadResult:
        """The re-reading passes (``REFINE_PASSES``), in order, on ``result`` (in
        place): ``recentred`` (a tile off its cell's middle), then ``beside_hand`` (a
        cell at a hand's edge)."""
        for name in self.REFINE_PASSES:
            getattr(self, name)(board, result, blurred=blurred, clear=clear)
        return result

    def decide(self, cr: np.ndarray, probs: np.ndarray, blurred: bool = False,
               clear: bool = False, counts: np.ndarray | None = None) -> ReadResult:
        """Cells, uncertain and occluded lists from crops and the network's class
        probabilities (``counts``: the classical pip counts of every crop, if already
        made).

        The probabilities are first calibrated (``ReaderConfig.calibration``: the
        temperature of the photo's band, ``blurred`` / sharp / ``clear``, and the prior
        of its band and each cell's kind; fitted on a validation split). That is the
        base network's calibration: the probabilities of a table's own head (``zatre
        calibrate tiles``, ``tile_adapt``), fitted on a couple of photos and never
        validated, are weighed as they are (no sharpening they were not fitted for). Then one level:
        a cell whose calibrated top class is below ``min_confidence`` is uncertain. A
        cell with no hand near (``no_hand_near``) is read without the occluded class
        (a lone "occluded" call is a marble vein or a glint): its share goes to the
        other classes in proportion; a cell only this makes sure needs
        ``unconfirmed_confidence``, and a lone occluded call that stays unsure stays
        occluded.

        The cross-checks, each able to make a cell uncertain: the classical pip count
        (``pips.py``) on every tile, whose sure disagreement vetoes however sure the
        network is (``sure_count_disagrees``) and below ``veto_confidence`` any
        disagreement, or a count that cannot confirm the tile and a probability of the
        class below ``unconfirmed_confidence`` (the level plus ``uncounted_margin``
        where it sees a tile's brightness but cannot count its pips); a dark cell read
        empty whose middle is bright like a tile (``looks_like_tiles``; on a ``clear``
        photo like a tile's face, ``tile_face_bright``) below ``bright_empty_below`` of
        "empty" (from it on it is empty, but counts as a doubt about the frame); on a
        ``blurred`` photo, a light x2 cell read empty below ``light_empty_blurred`` (a
        blurred tile there looks like the bare cell). A cell the network reads empty
        and too dark for a tile is bare board however unsure (``bare_board``). A frame
        with ``doubtful_frame`` doubtful cells or more (``doubtful_frame_streaked`` on
        a photo streaked past its pips, ``weakest_direction_sharpness`` below
        ``streaked_below``) reports no cell as read: every cell is left uncertain.
        The result reports the network's own probabilities."""
        cfg = self.config
        network = probs
        band = 0 if blurred else 2 if clear else 1
        if self.classifier.adaptation is None:   # a table's own head is weighed as it is
            probs = cfg.calibration.apply(probs, IS_LIGHT, band)
        else:
            probs = np.asarray(probs, np.float64)
        floor = cfg.min_confidence
        uncounted = min(floor + cfg.uncounted_margin, cfg.unconfirmed_confidence)
        given = probs
        raw = given.argmax(axis=1)
        alone = no_hand_near(raw)
        lone = alone & (raw == OCCLUDED)
        lifted = np.zeros(len(probs), bool)
        if alone.any():
            probs = probs.copy()
            lifted[alone] = probs[alone, :OCCLUDED].max(axis=1) < floor
            probs[alone, OCCLUDED] = 0.0
            probs[alone] /= probs[alone].sum(axis=1, keepdims=True)
        cls = probs.argmax(axis=1)
        conf = probs.max(axis=1)
        #: the chosen class's own probability, before the occluded share was given away
        own = given[np.arange(len(cls)), cls]
        bright_empty = (cls == 0) & ~IS_LIGHT
        bright_empty[bright_empty] = looks_like_tiles(cr[bright_empty])
        #: of those, the ones doubted on their own: on a clearly sharp photo only a
        #: middle bright like a tile's face (tile_face_bright), not bright marble
        tile_face = bright_empty.copy()
        if clear:
            tile_face[tile_face] = looks_like_tiles(cr[tile_face], cfg.tile_face_bright)
        bare = bare_board(raw, cr)   # read empty by the network itself
        # every tile is counted. Below ``veto_confidence`` any disagreement, or a count
        # that cannot confirm the tile, makes it uncertain; above it a sure count does
        # (the veto, ``sure_count_disagrees``)
        checked = (cls > 0) & (cls != OCCLUDED)
        unsure_tile = checked & (conf < cfg.veto_confidence)
        if counts is None:
            counts = count_all(cr, checked)
        else:
            counts = np.where(checked, counts, NOT_CHECKED)
        if self.classifier.adaptation is not None:  # a table's own tiles: its counter
            counts = self.classifier.adaptation.counts_for(counts, cls)
        veto = checked & sure_count_disagrees(counts, cls, blurred)
        cells: dict[str, int] = {}
        uncertain: list[str] = []
        occluded: list[str] = []
        taken_in_doubt = 0
        for i, name in enumerate(CELL_NAMES):
            c = int(cls[i])
            if c == OCCLUDED:
                occluded.append(name)
                uncertain.append(name)
                continue
            doubt = conf[i] < (max(cfg.unconfirmed_confidence, floor) if lifted[i] else floor)
            if bare[i]:
                doubt = False  # "empty", and too dark for a tile: bare board
            if tile_face[i] and own[i] < cfg.bright_empty_below:
                doubt = True  # "empty", yet a bright square fills the cell (blur, glare)
            if blurred and c == 0 and IS_LIGHT[i] and own[i] < cfg.light_empty_blurred:
                doubt = True  # a blurred tile on a light cell looks like the bare cell
            # the classical count disagrees, or cannot confirm the tile and the CNN is
            # not quite sure either
            if unsure_tile[i] and counts[i] > 0 and counts[i] != c:
                doubt = True
            if veto[i]:
                doubt = True  # a sure count, two pips or more away: however sure the CNN
            if unsure_tile[i] and counts[i] <= 0 and own[i] < (
                    uncounted if counts[i] == CANNOT_TELL else cfg.unconfirmed_confidence):
                doubt = True
            if bright_empty[i] and not doubt:
                taken_in_doubt += 1  # taken as empty, but still a doubt about the frame
            if doubt:
                uncertain.append(name)
                if lone[i]:
                    occluded.append(name)
                    cls[i] = OCCLUDED
            elif c > 0:
                cells[name] = c
        # the cells in doubt: uncertain ones that are not occluded calls, and dark
        # cells bright like a tile taken as empty
        doubts = len(uncertain) - len(occluded) + taken_in_doubt
        doubtful_frame = doubts >= cfg.doubtful_frame or (
            doubts >= cfg.doubtful_frame_streaked
            and weakest_direction_sharpness(cr) < cfg.streaked_below)
        if doubtful_frame:
            cells = {}
            uncertain = list(CELL_NAMES)
        order = sorted(cells, key=reading_key)
        return ReadResult(True, cells={n: cells[n] for n in order},
                          uncertain=sorted(uncertain, key=reading_key),
                          occluded=sorted(occluded, key=reading_key),
                          classes=cls, probabilities=network, pip_counts=counts,
                          doubtful_frame=doubtful_frame,
                          vetoed=[n for n, v in zip(CELL_NAMES, veto, strict=True) if v])


__all__ = ["BoardReader", "CLASSES", "ReadResult", "ReaderConfig", "SeenBoard"]
