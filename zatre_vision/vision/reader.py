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

import logging
import time
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path

import cv2
import numpy as np

from ..board_prints import PrintProfileError, load_prints
from .geometry import CELL_NAMES, IS_LIGHT, GridModel, reading_key
from .location import (
    DEFAULT_BOARD_MODEL,
    Board,
    BoardLocator,
    BoardModelError,
    Calibration,
    PrintExpectation,
    ProofConfig,
    ProofSetup,
    ProvedOnce,
    expectations,
    locate_board,
)
from .reading.cell_evidence import (
    TOUCHING,
    at_hand,
    bare_board,
    empty_odds_raised,
    looks_like_tiles,
    no_hand_near,
    sharpness,
    weakest_direction_sharpness,
)
from .reading.cells import (
    ALL_CELLS,
    CROP,
    crops,
    model_maps,
    moved_crops,
    normalise,
    oriented,
    rectify_board,
)
from .reading.classify import CLASSES, DEFAULT_MODEL, OCCLUDED, ModelError, PipClassifier
from .reading.hires import HiresReader
from .reading.pips import CANNOT_TELL, count_all
from .reading.read_result import ReadResult, settle
from .reading.tile_adapt import TileAdaptation, attach

log = logging.getLogger(__name__)

#: Frames are read at this longer side at most (larger ones are reduced first).
WORK_SIDE = 1280
#: Below this top-class probability a cell is uncertain (on a sharp enough photo).
MIN_CONFIDENCE = 0.55
#: ... and on a photo more blurred than nearly all training photos (``sharpness`` below
#: SHARP_ENOUGH), where the network is out of its depth and more often sure and wrong
BLURRED_CONFIDENCE = 0.7
#: mean |Laplacian| of the rectified board (bright level 1, 20 px a cell) below which a
#: photo counts as blurred: 1 of 193 photos rendered with the training ranges is below
#: it (the next 0.056); on the wide set 38 of 86 photos with blur beyond those ranges
#: are below it, and 4 of 201 within them
SHARP_ENOUGH = 0.05
#: Below this probability a tile that the classical pip count cannot confirm (no tile
#: seen, or pips it cannot make out: blurred, streaked) is uncertain (see
#: UNCONFIRMED_CONFIDENCE). A count that is sure and disagrees makes any tile uncertain,
#: however sure the network is (the veto: sixes with a highlight in each hollow pip
#: were read as fours at 0.975 with the count never asked).
VETO_CONFIDENCE = 0.95
#: a tile that the classical count cannot confirm (it sees no tile, or cannot make out
#: the pips: blurred, streaked) needs this top-class probability, not MIN_CONFIDENCE
UNCONFIRMED_CONFIDENCE = 0.8
#: ... except that where the count finds a middle bright like a tile but cannot make
#: out its pips (pips.CANNOT_TELL: blurred, streaked), the floor plus this margin is
#: enough (0.65 on a sharp photo; still 0.8 on a blurred one). Wide benchmark set, with
#: the floor at 0.6 then: uncertain 1,613 -> 1,568, exact boards 119 -> 120 of 287, no
#: more wrong cells (the floor itself there: 6 more wrong); training ranges unchanged.
UNCOUNTED_MARGIN = 0.1
#: on a blurred photo (``sharpness`` below SHARP_ENOUGH) a light x2 cell is empty only
#: from this probability of "empty" on: a blurred tile and a bare light cell are both a
#: plain bright square, and the network that knows the cell's kind calls such tiles
#: empty less often but more surely. Chosen on wide seed 7001 (first 150
#: photos: wrong cells 464 -> 454, uncertain 680 -> 754, exact boards 81 -> 81 of 147;
#: 0.8: 461 / 704 / 81; 0.95: 452 / 808 / 79), then seen on the benchmark sets.
LIGHT_EMPTY_BLURRED = 0.9
#: a frame on which the network doubts this many cells (left uncertain, not called
#: occluded; or dark, bright like a tile, and taken as empty: BRIGHT_EMPTY_BELOW) is one
#: it cannot read well (blur or light beyond what it learnt): there one in twenty of
#: the tiles and light x2 cells it is sure of is wrong, against one in a thousand or
#: fewer elsewhere (wide seeds 7001, 8101 and 9001: 2 to 8 % of those readings wrong
#: from 10 doubtful cells on, 1.2 % at 8-9, 0.02 % at 0-1). Such a ``doubtful_frame``
#: reports no cell as read: all 193 are uncertain (a live table keeps their settled
#: values and waits for a better frame). Chosen on seed 7001 (wrong cells on the boards
#: found 103 -> 43, 8 and 12 give 40 and 43); docs/vision-reading.md. The dark cells read
#: empty count as doubts there too: left as read, they held most of the wrong cells
#: left (wide seeds 7001 / 6201: 29 of 43 / 50 of 140, boards fitted a cell or two off
#: under heavy blur), and two such frames in a row could tell the live tracker that a
#: tile had been lifted.
DOUBTFUL_FRAME = 10
#: a photo whose crops have a ``weakest_direction_sharpness`` below this is streaked or
#: blurred past reading its pips: 2 % of the photos whose pips are clear fall below it
#: and 96 % of those whose pips are blurred away (`bench.pip_contrast` under 0.05; wide
#: seeds 7001, 8101, 9001, 6101 and 6201), against 53 % below SHARP_ENOUGH of
#: ``sharpness``, which a streak leaves high: edges along it stay sharp.
STREAKED_BELOW = 0.048
#: on such a photo a frame is doubtful from this many doubtful cells: the network is
#: sure of tiles it cannot see there (tiles on light x2 cells read empty, boards fitted
#: a cell off). Chosen on seed 7001: wrong cells 14 -> 7 (2 to 4 give 7); over the five
#: seeds 135 -> 29, exact boards unchanged (a frame with a doubtful cell is never exact).
DOUBTFUL_FRAME_STREAKED = 3
#: a dark cell the network reads empty but whose middle is bright like a tile
#: (``looks_like_tiles``: blur, glare, or bright marble on an overexposed photo) is left
#: uncertain when the network's own probability of "empty" is below this; from it on the
#: cell is empty, but still counts as a doubt towards DOUBTFUL_FRAME. Against "always
#: uncertain": no change on seed 7001 (the tuning set), exact boards 142 -> 145
#: on seed 8101 and 134 -> 147 on 9001, no more wrong cells on any (0.6: 7001 one more
#: wrong cell; 0.0: four); many such cells are bright marble on photos exposed beyond
#: the training ranges.
BRIGHT_EMPTY_BELOW = 0.7
#: on a clearly sharp photo (``sharpness`` from CLEAR_SHARPNESS on) a dark cell's odds of
#: "empty" are multiplied by this before anything is decided. Training shows the network
#: few empty cells (30 % of them kept) and weights the classes by 1/sqrt(count), so its
#: "empty" is about 7 times too unlikely against a real board (6.8 on the benchmark's
#: cells): bare cells at a hand's edge are called occluded, dark marble doubted. Not on
#: light x2 cells, where a tile under a hand then reads as empty (raised there too, 7
#: hidden cells were read wrongly on seeds 7001, 8101 and 9001), nor on blurred photos,
#: where a blurred tile does. Chosen on seed 7001 (exact boards 109 -> 118, no more
#: wrong cells; 7: 120 there, but 4 and 1 more wrong cells on 9001 and 8101);
#: docs/vision-reading.md.
EMPTY_ODDS_SHARP = 4.0
#: on a photo that is not blurred, a light x2 cell with no hand near (``no_hand_near``)
#: has its odds of "empty" multiplied by this; such a cell is then read empty only from
#: UNCONFIRMED_CONFIDENCE on, and one that the raise alone made sure still counts as a
#: doubt towards DOUBTFUL_FRAME. The light cells' marble streaks look like pips to the
#: network (a bare light cell at 0.4-0.6 "empty", the rest on 3 or 5), which left boards
#: short of exact on one cell. Chosen on the tuning seeds 7001, 6101 and 6201: exact
#: boards 497 without the raise, 504 at 4, 508 at 6, 509 at 8, with wrong cells 16 and
#: hidden cells read wrong 11 at each; checked on 9001, 8101, 6301 and 6401: 700 -> 722
#: exact, wrong 21 -> 21, hidden read wrong 19 -> 20. Not near a hand, where a tile
#: under the hand's edge then reads empty, nor on blurred photos (LIGHT_EMPTY_BLURRED).
#: docs/vision-reading.md.
LIGHT_EMPTY_ODDS = 6.0
#: ``sharpness`` from which a photo counts as clearly sharp (about half of the wide
#: benchmark's photos; SHARP_ENOUGH is the bar below which one is blurred)
CLEAR_SHARPNESS = 0.1
#: on a clearly sharp photo (``clear``) a dark cell read empty is doubted as "bright like
#: a tile" (BRIGHT_EMPTY_BELOW) only when three quarters of its middle pass this, like a
#: tile's face (0.88-0.99 on such photos); bright marble with darker veins (0.66-0.86)
#: is taken as empty. It still counts towards a doubtful frame from the bar of
#: ``looks_like_tiles`` (cell_evidence.TILE_BRIGHT) on: a frame with many such cells is
#: one the reader cannot trust (wide seeds 9001 and 8101 held back one frame fewer and
#: got 25 more wrong cells when the count used this bar too). Chosen on the tuning
#: seeds 7001, 6101 and 6201 (exact boards 447 -> 457, wrong cells 16 -> 16; 0.8: 454,
#: 0.9: 459); checked on 9001 and 8101 (317 -> 325, wrong 11 -> 11, hidden cells read
#: wrong 8 -> 8).
TILE_FACE_BRIGHT = 0.85
def _knob(default: float, low: float, high: float, about: str):
    """A field of ``ReaderConfig``: its default, bounds and a one-line description."""
    return field(default=default, metadata={"bounds": (low, high), "about": about})


def _switch(about: str):
    """A pass of the decision that ``fit_reader`` may switch off (default on)."""
    return field(default=True, metadata={"about": about, "switch": True})


class ReaderCardError(ValueError):
    """A model card's ``reader_thresholds`` that cannot make a ``ReaderConfig``."""


@dataclass(frozen=True)
class ReaderConfig:
    """Every tuned number of the reader's decision, with its bounds and what it does,
    passed into ``BoardReader`` (the defaults are the module's constants above, whose
    comments say how each was chosen). A value out of bounds is refused on
    construction (``ValueError``)."""

    min_confidence: float = _knob(
        MIN_CONFIDENCE, 0.3, 0.99, "top-class probability below which a cell is uncertain")
    blurred_confidence: float = _knob(
        BLURRED_CONFIDENCE, 0.3, 0.99, "the same bar on a blurred photo")
    veto_confidence: float = _knob(
        VETO_CONFIDENCE, 0.5, 1.0, "below it a tile the pip count cannot confirm is doubted")
    unconfirmed_confidence: float = _knob(
        UNCONFIRMED_CONFIDENCE, 0.5, 1.0, "bar for a reading no second cue supports")
    uncounted_margin: float = _knob(
        UNCOUNTED_MARGIN, 0.0, 0.5, "over the floor, for a tile whose pips cannot be told")
    light_empty_blurred: float = _knob(
        LIGHT_EMPTY_BLURRED, 0.5, 1.0, "'empty' a light cell needs on a blurred photo")
    doubtful_frame: int = _knob(
        DOUBTFUL_FRAME, 1, 193, "doubtful cells from which a frame reports nothing")
    doubtful_frame_streaked: int = _knob(
        DOUBTFUL_FRAME_STREAKED, 1, 193, "the same on a photo streaked past its pips")
    streaked_below: float = _knob(
        STREAKED_BELOW, 0.0, 1.0, "weakest-direction sharpness below which a photo is streaked")
    bright_empty_below: float = _knob(
        BRIGHT_EMPTY_BELOW, 0.0, 1.0, "'empty' a dark cell bright like a tile needs")
    empty_odds_sharp: float = _knob(
        EMPTY_ODDS_SHARP, 1.0, 20.0, "odds of 'empty' raised on dark cells of sharp photos")
    light_empty_odds: float = _knob(
        LIGHT_EMPTY_ODDS, 1.0, 20.0, "odds of 'empty' raised on light cells with no hand near")
    sharp_enough: float = _knob(
        SHARP_ENOUGH, 0.0, 1.0, "board sharpness below which a photo is blurred")
    clear_sharpness: float = _knob(
        CLEAR_SHARPNESS, 0.0, 1.0, "board sharpness from which a photo is clearly sharp")
    tile_face_bright: float = _knob(
        TILE_FACE_BRIGHT, 0.0, 1.0, "middle brightness of a tile's face on a sharp photo")
    # -- the passes, each on or off (``training/fit_reader.py`` keeps a pass only where
    # its ablation on the fitting split shows that it pays)
    pass_steadied: bool = _switch("doubtful cells read again a pixel away, turned (steadied)")
    pass_recentred: bool = _switch("uncertain tiles read again from re-centred crops")
    pass_beside_hand: bool = _switch("uncertain cells at a hand's edge read from crops "
                                     "moved away from it")
    count_veto: bool = _switch("a sure classical pip count vetoes however sure the network")
    unconfirmed_bar: bool = _switch("a reading no second cue supports needs "
                                    "unconfirmed_confidence")
    blurred_bar: bool = _switch("blurred photos use blurred_confidence as their floor")
    light_blurred_bar: bool = _switch("a light cell read empty on a blurred photo needs "
                                      "light_empty_blurred")
    bright_empty_doubt: bool = _switch("a dark cell read empty but bright like a tile is "
                                       "doubted")
    streaked_hold_back: bool = _switch("a streaked photo is held back from "
                                       "doubtful_frame_streaked doubts")
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

    @classmethod
    def switches(cls) -> tuple[str, ...]:
        """The names of the passes that can be switched off."""
        return tuple(f.name for f in fields(cls) if f.metadata.get("switch"))

    @classmethod
    def from_card(cls, card: dict | None) -> ReaderConfig:
        """The config a pip model's card gives (its ``reader_thresholds.values``, the
        defaults for what it leaves out; a card without the entry: the defaults).
        ReaderCardError for an unknown name, a wrong type or a value out of bounds."""
        entry = (card or {}).get("reader_thresholds") or {}
        values = entry.get("values") or {}
        if not isinstance(values, dict):
            raise ReaderCardError("reader_thresholds.values is not an object")
        known = {f.name: f for f in fields(cls) if f.name != "print_proof"}
        kwargs = {}
        for name, value in values.items():
            f = known.get(name)
            if f is None:
                raise ReaderCardError(f"reader_thresholds.values: unknown field {name!r}")
            if f.metadata.get("switch"):
                if not isinstance(value, bool):
                    raise ReaderCardError(f"reader_thresholds.values.{name} is not true "
                                          "or false")
            elif isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ReaderCardError(f"reader_thresholds.values.{name} is not a number")
            elif f.type in ("int", int) and value != int(value):
                raise ReaderCardError(f"reader_thresholds.values.{name} is not a whole "
                                      "number")
            kwargs[name] = int(value) if f.type in ("int", int) else value
        try:
            return cls(**kwargs)
        except ValueError as exc:
            raise ReaderCardError(str(exc)) from None

    #: the fields whose values depend on the pip network (its calibration: how sure it
    #: is when right), listed in its model card (models/pips.onnx.json)
    MODEL_DEPENDENT = ("min_confidence", "blurred_confidence", "veto_confidence",
                       "unconfirmed_confidence", "uncounted_margin", "light_empty_blurred",
                       "bright_empty_below", "empty_odds_sharp", "light_empty_odds",
                       "doubtful_frame", "doubtful_frame_streaked")

    def model_card_entry(self, fitted_by: str = "hand-tuned on the wide benchmark's "
                         "tuning seeds (7001, 6101, 6201; docs/vision-reading.md), not yet "
                         "by a committed script") -> dict:
        """The model-dependent fields and the switches as the model card lists them."""
        names = self.MODEL_DEPENDENT + self.switches()
        return {"fitted_by": fitted_by,
                "values": {name: getattr(self, name) for name in names},
                "described": [line for line in self.describe()
                              if line.split(" = ")[0] in names]}

    @classmethod
    def describe(cls) -> list[str]:
        """One line per field: name, default, bounds, what it does."""
        out = []
        for f in fields(cls):
            default = f.default if f.default is not MISSING else "(config)"
            bounds = f.metadata.get("bounds")
            span = f" [{bounds[0]}..{bounds[1]}]" if bounds else ""
            out.append(f"{f.name} = {default}{span}: {f.metadata.get('about', '')}")
        return out


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
                 min_confidence: float | None = None,
                 blurred_confidence: float | None = None,
                 veto_confidence: float | None = None,
                 unconfirmed_confidence: float | None = None,
                 light_empty_odds: float | None = None,
                 board_model_path: Path | str | None = DEFAULT_BOARD_MODEL,
                 config: ReaderConfig | None = None,
                 tiles: TileAdaptation | None = None):
        """``config``: every tuned number of the decision (``ReaderConfig``); without
        it, the one the pip model's card gives (``ReaderConfig.from_card``: fitted for
        that network by ``training/fit_reader.py``) with any of the five older keyword
        arguments applied. ``tiles``: a table's own tiles (``zatre calibrate tiles``)."""
        self.classifier = PipClassifier(model_path, threads)
        #: a table's own tiles (``zatre calibrate tiles``): the classifier's probabilities
        #: come from it, every decision below weighs them as it would the network's
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
            given = {"min_confidence": min_confidence,
                     "blurred_confidence": blurred_confidence,
                     "veto_confidence": veto_confidence,
                     "unconfirmed_confidence": unconfirmed_confidence,
                     "light_empty_odds": light_empty_odds}
            config = replace(config, **{k: v for k, v in given.items() if v is not None})
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

    # the older attributes, kept: each reads (and sets) the config's field
    def _setting(name: str):  # noqa: N805 - a property factory, used in the class body
        def get(self):
            return getattr(self.config, name)

        def put(self, value):
            self.config = replace(self.config, **{name: value})
        return property(get, put)

    min_confidence = _setting("min_confidence")
    blurred_confidence = _setting("blurred_confidence")
    veto_confidence = _setting("veto_confidence")
    unconfirmed_confidence = _setting("unconfirmed_confidence")
    light_empty_odds = _setting("light_empty_odds")
    print_proof = _setting("print_proof")

    # -- geometry ----------------------------------------------------------------------
    def locate(self, image: np.ndarray) -> Location:
        """Where the board is in ``image``: the factor the frame was reduced by (it is
        undistorted too where the calibration has lens intrinsics), and the board the four
        steps of ``location.locate_board`` found there (propose, refine by the
        classifier's reading, prove against the prints, pick)."""
        work, f = work_image(image)
        if self.calibration is not None and self.calibration.camera_matrix is not None:
            work = self.calibration.undistort(work)
        grey = work if work.ndim == 2 else cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        setup = (None if self.print_proof is None else
                 ProofSetup(self.print_proof, self.print_expectations, self.prints))
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

    def recentred(self, board: np.ndarray, result: ReadResult) -> ReadResult:
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

    def beside_hand(self, board: np.ndarray, result: ReadResult, blurred: bool,
                    sharp_clear: bool) -> ReadResult:
        """``result`` with the uncertain cells at a hand's edge that crops moved away
        from the hand settle taken as read (see BESIDE_HAND_SHIFTS): each uncertain cell
        in or touching a patch of occluded calls (``at_hand``), but not deep under it, is
        read from crops moved 4 to 6 pixels in eight directions; at least
        BESIDE_HAND_AGREE readings clear of the hand (BESIDE_HAND_CLEAR_BELOW) must read
        the best visible class of the cell's own reading with BESIDE_HAND_SURE or more,
        and none another class so surely (a light x2 cell is taken as empty only when
        ``sharp_clear``). A settled cell leaves ``uncertain`` and ``occluded`` (a tile
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
            clear = readings[:, k][readings[:, k, OCCLUDED] < BESIDE_HAND_CLEAR_BELOW]
            c = int(own_best[k])
            if c == 0 and IS_LIGHT[i] and not sharp_clear:
                continue  # a blurred tile on a light cell looks like the bare cell
            calls = clear[:, :OCCLUDED].argmax(axis=1)
            sure = clear[:, :OCCLUDED].max(axis=1) >= BESIDE_HAND_SURE
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
        """One frame, in named stages: locate (candidate fits), rectify and classify
        each, prove (the fit against the print; ``_proved_reading``), steady the
        doubtful readings, decide, refine (the re-reading passes, ``refine``)."""
        t0 = time.perf_counter()
        located = self.locate(image)                                         # locate
        found, f = located.board, located.scale
        if not found.found:
            return ReadResult(False, elapsed_ms=(time.perf_counter() - t0) * 1000,
                              source=found.source, print_proof=found.proof)
        model, score, proof = found.model, found.score, found.proof
        board, cr, probs = found.reading.board, found.reading.crops, found.reading.probs
        sharp = sharpness(board)
        blurred = sharp < self.config.sharp_enough
        clear = sharp >= self.config.clear_sharpness
        if self.config.pass_steadied:
            probs = self.steadied(board, probs, cr)
        if self.hires is not None and (self.calibration is None
                                       or self.calibration.camera_matrix is None):
            probs = self.hires.reread(self.classifier, image, model, f, probs, cr)
        result = self.decide(cr, probs, blurred=blurred, clear=clear)        # decide
        if not found.orientation_known:
            result.orientation_known = False
            result.held_back()     # maybe a quarter turn off: no cell is read
        self.refine(board, result, blurred=blurred, clear=clear)             # refine
        result.sharpness = sharp
        result.corners = [[round(float(x) / f, 2), round(float(y) / f, 2)]
                          for x, y in model.corners()]
        result.model = model
        result.locate_score = score
        result.source = found.source
        result.print_proof = proof
        result.board_print = found.board_print
        result.elapsed_ms = (time.perf_counter() - t0) * 1000
        return result

    def refine(self, board: np.ndarray, result: ReadResult, blurred: bool,
               clear: bool) -> ReadResult:
        """The re-reading passes, in order, each settling uncertain cells of ``result``
        (in place) from crops of ``board`` moved about them: ``recentred`` (a tile off
        its cell's middle), then ``beside_hand`` (a cell at a hand's edge). Neither
        settles a cell against a sure pip count (``vetoed``) nor touches a frame held
        back."""
        if self.config.pass_recentred:
            self.recentred(board, result)
        if self.config.pass_beside_hand:
            self.beside_hand(board, result, blurred=blurred, sharp_clear=clear)
        return result

    def decide(self, cr: np.ndarray, probs: np.ndarray, blurred: bool = False,
               clear: bool = False) -> ReadResult:
        """Cells, uncertain and occluded lists from crops and class probabilities.

        A cell is sure from ``min_confidence`` on, or from ``blurred_confidence`` on a
        ``blurred`` photo: a lower bar everywhere gave more exact boards but more wrong
        cells, all on photos blurred beyond the training ranges (wide benchmark set, with
        the 0.96 recheck: 90 wrong / 1,541 uncertain cells / 126 exact boards of 287
        against 95 / 1,568 / 120 at 0.6 and the 0.95 recheck; the steps are in
        docs/vision-reading.md).

        A cell with no hand near (``no_hand_near``) is read without the occluded class:
        its share goes to the other classes in proportion. A cell that only this makes
        sure (its best visible class had less than that floor) needs
        UNCONFIRMED_CONFIDENCE; a tile the pip count cannot confirm needs
        UNCONFIRMED_CONFIDENCE of its own probability, before the share (the floor plus
        UNCOUNTED_MARGIN where the count sees a tile's brightness but cannot count); a lone
        occluded call that stays unsure stays occluded. (Wide benchmark set: exact
        boards 88 -> 106 of 287, wrong cells 107 -> 108; training ranges 125 -> 136
        of 193, no wrong cell.) On a ``blurred`` photo a light x2 cell read empty needs
        LIGHT_EMPTY_BLURRED of the network's own probability of "empty"; a dark cell read
        empty that is bright like a tile is uncertain below BRIGHT_EMPTY_BELOW of it (on
        a ``clear`` photo, bright like a tile's face: TILE_FACE_BRIGHT; either way it
        counts as a doubt about the frame when taken as empty). A frame with
        DOUBTFUL_FRAME doubtful cells or more (``doubtful_frame``; from
        DOUBTFUL_FRAME_STREAKED on a photo streaked or blurred past its pips,
        ``weakest_direction_sharpness`` below STREAKED_BELOW) reports no cell as read:
        every cell is left uncertain.

        On a ``clear`` photo (clearly sharp) the dark cells' odds of "empty" are first
        raised (``empty_odds_raised``); on any photo not ``blurred`` those of the light
        x2 cells with no hand near are raised by ``light_empty_odds``
        (LIGHT_EMPTY_ODDS), and such a cell read empty needs UNCONFIRMED_CONFIDENCE,
        counting as a doubt about the frame when only the raise made it sure. The result
        still reports the network's own probabilities."""
        cfg = self.config
        network = probs
        if clear:
            probs = empty_odds_raised(probs, ~IS_LIGHT, cfg.empty_odds_sharp)
        floor = self.blurred_confidence if blurred and cfg.blurred_bar else self.min_confidence
        #: the bar for a reading no second cue supports (the floor itself when that
        #: pass is off)
        unconfirmed = (max(self.unconfirmed_confidence, floor) if cfg.unconfirmed_bar
                       else floor)
        uncounted = min(floor + cfg.uncounted_margin, unconfirmed)
        given = probs
        raw = probs.argmax(axis=1)
        alone = no_hand_near(raw)
        lone = alone & (raw == OCCLUDED)
        lifted = np.zeros(len(probs), bool)
        if alone.any():
            probs = probs.copy()
            lifted[alone] = probs[alone, :OCCLUDED].max(axis=1) < floor
            probs[alone, OCCLUDED] = 0.0
            probs[alone] /= probs[alone].sum(axis=1, keepdims=True)
        #: light x2 cells whose odds of "empty" are raised (LIGHT_EMPTY_ODDS), and how
        #: sure each cell's best class was before that
        light_raised = np.zeros(len(probs), bool)
        unraised_conf = probs.max(axis=1)
        if not blurred and self.light_empty_odds != 1.0:
            light_raised = alone & IS_LIGHT
            probs = empty_odds_raised(probs, light_raised, self.light_empty_odds)
        cls = probs.argmax(axis=1)
        conf = probs.max(axis=1)
        raised_empty = light_raised & (cls == 0)
        #: the chosen class's own probability, before the occluded share was given away
        own = given[np.arange(len(cls)), cls]
        bright_empty = (cls == 0) & ~IS_LIGHT & cfg.bright_empty_doubt
        bright_empty[bright_empty] = looks_like_tiles(cr[bright_empty])
        #: of those, the ones doubted on their own: on a clearly sharp photo only a
        #: middle bright like a tile's face (TILE_FACE_BRIGHT), not bright marble
        tile_face = bright_empty.copy()
        if clear:
            tile_face[tile_face] = looks_like_tiles(cr[tile_face], cfg.tile_face_bright)
        bare = bare_board(raw, cr)   # read empty by the network itself
        # every tile is counted. Below ``veto_confidence`` any disagreement, or a count
        # that cannot confirm the tile, makes it uncertain; above it a sure count does
        # (the veto, ``sure_count_disagrees``)
        checked = (cls > 0) & (cls != OCCLUDED)
        unsure_tile = checked & (conf < self.veto_confidence)
        counts = count_all(cr, checked)
        if self.classifier.adaptation is not None:  # a table's own tiles: its counter
            counts = self.classifier.adaptation.counts_for(counts, cls)
        veto = checked & sure_count_disagrees(counts, cls, blurred) & cfg.count_veto
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
            doubt = conf[i] < (unconfirmed if lifted[i] else floor)
            if raised_empty[i] and conf[i] < unconfirmed:
                doubt = True  # marble streaks, or a tile the network half sees
            if bare[i]:
                doubt = False  # "empty", and too dark for a tile: bare board
            if tile_face[i] and own[i] < cfg.bright_empty_below:
                doubt = True  # "empty", yet a bright square fills the cell (blur, glare)
            if (blurred and cfg.light_blurred_bar and c == 0 and IS_LIGHT[i]
                    and own[i] < cfg.light_empty_blurred):
                doubt = True  # a blurred tile on a light cell looks like the bare cell
            # the classical count disagrees, or cannot confirm the tile and the CNN is
            # not quite sure either
            if unsure_tile[i] and counts[i] > 0 and counts[i] != c:
                doubt = True
            if veto[i]:
                doubt = True  # a sure count, two pips or more away: however sure the CNN
            if unsure_tile[i] and counts[i] <= 0 and own[i] < (
                    uncounted if counts[i] == CANNOT_TELL else unconfirmed):
                doubt = True
            if bright_empty[i] and not doubt:
                taken_in_doubt += 1  # taken as empty, but still a doubt about the frame
            if raised_empty[i] and not doubt and unraised_conf[i] < floor:
                taken_in_doubt += 1  # empty only by the raise: a doubt about the frame
            if doubt:
                uncertain.append(name)
                if lone[i]:
                    occluded.append(name)
                    cls[i] = OCCLUDED
            elif c > 0:
                cells[name] = c
        # the cells in doubt: uncertain ones that are not occluded calls, and cells
        # taken as empty in doubt (bright dark cells, light cells empty only by the raise)
        doubts = len(uncertain) - len(occluded) + taken_in_doubt
        doubtful_frame = doubts >= cfg.doubtful_frame or (
            cfg.streaked_hold_back and doubts >= cfg.doubtful_frame_streaked
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


__all__ = ["BoardReader", "CLASSES", "ReadResult", "ReaderConfig"]
