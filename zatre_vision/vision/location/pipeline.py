"""``locate_board``: where the board is in one frame: propose, refine, prove, pick.

For each proposer switched on, in order (``proposers.py``: a saved calibration, the
markers, the board network, then the fallbacks: the line search, one corner moved, the
mirrored frame, the texture), until a candidate proves itself:

1. **propose**: the proposer's candidate grids (none: the next proposer);
2. **refine** each (``refine``, the one shared step: a fit over bright table moved onto
   the board, a grid not made by the grid fit fitted again from its corners; each a
   switch of ``fallbacks.LocateFallbacks``), and label its corners by the print
   (``orient.by_print``);
3. **prove**: at most ``MAX_CANDIDATES``, each read by the caller (``read(model)``: the
   pip classifier's reading of its cells), most confident reading first
   (``by_reading``), proved against the board prints (``print_proof.prove``): a fit
   one cell off is moved onto the grid it proves; the print is named by its colours
   (``print_colours.closest``), the corners labelled by the marks that print has
   (``orient.orientation``); a grid so changed is read again;
4. **pick** the first that proves itself; when no proposer's candidate does, "no
   board" (with the last proof that failed, for the reason).

The proof alone decides; a later proposer runs only where the earlier ones proposed
nothing that proved. A saved calibration's grid is proved once, not every frame
(``ProvedOnce``). Without print expectations (``proof`` None) nothing is proved and the
first proposer's most confident reading is taken.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Generic, NamedTuple, Protocol, TypeVar

import numpy as np

from ..geometry import GridModel
from .board_net import DEFAULT_BOARD_MODEL, BoardFinder, BoardModelError
from .calibration import Calibration
from .fallbacks import FallbacksError, LocateFallbacks
from .find_board import onto_the_board
from .grid_fit import fit_from_corners
from .locate import LocateResult, to_grey
from .orient import by_print, orientation
from .print_colours import closest as closest_print
from .print_proof import PrintExpectation, Proof, ProofConfig, prove
from .proposers import (
    Calibrated,
    Candidate,
    CornerMoves,
    Frame,
    LineSearch,
    Markers,
    Mirrored,
    Network,
    Proposer,
    Texture,
)

#: fits read and proved per frame (the locator's best few)
MAX_CANDIDATES = 3


class Reading(Protocol):
    """What the caller's ``read(model)`` returns: anything with a ``quality`` (higher:
    the cells read more confidently)."""

    quality: float


R = TypeVar("R", bound=Reading)


#: ``Board.source`` of each proposer's board (the names the benchmarks count by)
SOURCES = {"calibration": "calibration", "markers": "markers", "network": "locate:net",
           "line_search": "locate:classical", "corner_moves": "locate:net",
           "mirrored": "locate:net", "texture": "locate:texture"}
#: ``Board.source`` where no proposer proposed anything
NOTHING = "locate:none"


class Proposals(NamedTuple):
    """One proposer's candidate fits (grid model, line score), refined and labelled, in
    its order; ``source``: where they came from (``SOURCES``)."""
    candidates: list[tuple[GridModel, float]]
    source: str


class Located(NamedTuple):
    """``BoardLocator.locate``'s answer: the first proposals with a grid, unproved, as
    the line search's result type, and where they came from ("net", "classical",
    "texture" or "none")."""
    result: LocateResult
    method: str


# -- 1. propose ----------------------------------------------------------------------------
class BoardLocator:
    """The markerless proposers: the board network (loaded once, if present) and the
    fallbacks switched on (``fallbacks``: without it, the board model's card says,
    ``LocateFallbacks.from_card``; all of them where it is silent or there is no board
    model)."""

    def __init__(self, model_path: Path | str | None = DEFAULT_BOARD_MODEL,
                 threads: int = 1, fallbacks: LocateFallbacks | None = None):
        self.finder: BoardFinder | None = None
        self.load_error: str | None = None
        if model_path is not None:
            try:
                self.finder = BoardFinder(model_path, threads)
            except BoardModelError as exc:
                self.load_error = str(exc)
        if fallbacks is None:
            try:
                fallbacks = LocateFallbacks.from_card(
                    self.finder.card if self.finder is not None else None)
            except FallbacksError as exc:
                raise BoardModelError(f"{self.finder.path}.json: {exc}") from None
        self.fallbacks = fallbacks

    def proposers(self) -> list[Proposer]:
        """The network, then each fallback proposer switched on, in the order they run."""
        on = self.fallbacks
        every = {"line_search": LineSearch(), "corner_moves": CornerMoves(),
                 "mirrored": Mirrored(),
                 "texture": Texture("border_moves" in on, "corner_moves" in on)}
        return [Network(), *(every[n] for n in on.proposers)]

    def proposals(self, frame: Frame) -> Iterator[Proposals]:
        """Each markerless proposer's refined, labelled candidates, in order, as they are
        asked for (a proposer that proposes nothing is passed over)."""
        for proposer in self.proposers():
            found = proposals_of(proposer, frame, self.fallbacks)
            if found is not None:
                yield found

    def locate(self, image: np.ndarray, grey: np.ndarray | None = None) -> Located:
        """The first markerless proposals with a grid in ``image``, unproved (``zatre
        calibrate``'s registration, and tests); ``grey``: ``image`` in grey, if the
        caller has it."""
        frame = Frame(image, to_grey(image) if grey is None else grey, self.finder)
        for found in self.proposals(frame):
            model, score = found.candidates[0]
            return Located(LocateResult(model, score, 0, tuple(found.candidates)),
                           found.source.removeprefix("locate:"))
        return Located(LocateResult(None, 0.0, 0), "none")


# -- 2. refine -----------------------------------------------------------------------------
def refine(grey: np.ndarray, candidate: Candidate, fallbacks: LocateFallbacks) -> Candidate:
    """``candidate`` fitted to the grid lines, the one refine every proposal gets: a
    grid fit over bright table moved whole cells onto the board (``border_moves``,
    ``find_board.onto_the_board``), a grid made another way (the line search's pattern
    fit, which can settle a cell or two off on a busy print) replaced by the grid fit
    from its corners where that has the clearer lines (``line_refit``). A saved
    calibration and the markers' grid are taken as they stand."""
    if not candidate.refinable:
        return candidate
    fit = candidate.fit
    if fit is None and "line_refit" in fallbacks:
        refit = fit_from_corners(grey, candidate.model.corners())
        if refit is not None and refit.score > candidate.score:
            fit = refit
    elif fit is not None and "border_moves" in fallbacks:
        fit = onto_the_board(grey, fit)
    if fit is None or fit is candidate.fit:
        return candidate
    return replace(candidate, model=fit.model, score=fit.score, fit=fit)


def proposals_of(proposer: Proposer, frame: Frame, fallbacks: LocateFallbacks
                 ) -> Proposals | None:
    """``proposer``'s candidates in ``frame``, refined, their corners labelled by the
    print where the search found them (``orient.by_print``); None where it proposes
    nothing."""
    found = []
    for c in proposer.propose(frame):
        c = refine(frame.grey, c, fallbacks)
        found.append((by_print(frame.image, c.model) if c.searched else c.model, c.score))
    return Proposals(found, SOURCES[proposer.name]) if found else None


@dataclass(frozen=True)
class ProofSetup:
    """What step 3 proves a fit against: the proof's config and the prints' expectations,
    with the profiles by name for naming the print by its colours."""
    config: ProofConfig
    expectations: tuple[PrintExpectation, ...]
    profiles: dict


@dataclass
class ProvedOnce:
    """The saved calibration whose grid has proved itself, and the print it proved (a
    fixed camera's grid is checked once, not every frame); held by the caller."""
    calibration: Calibration | None = None
    board_print: str | None = None


@dataclass(frozen=True)
class Board(Generic[R]):
    """What ``locate_board`` found: the grid (None: no board), its line score, the
    caller's reading of it, the proof (None where none was run), where it came from,
    and the candidates proposed."""
    model: GridModel | None
    score: float
    reading: R | None
    proof: Proof | None
    source: str
    proposals: Proposals
    board_print: str | None = None
    #: False: the corners' labelling is a guess (a print with no mark seen, turned
    #: about 45 degrees); the reader then reads no cell
    orientation_known: bool = True

    @property
    def found(self) -> bool:
        return self.model is not None


# -- 3. prove ------------------------------------------------------------------------------
def by_reading(proposals: Proposals, read: Callable[[GridModel], R]
               ) -> list[tuple[GridModel, float, R]]:
    """The best ``MAX_CANDIDATES`` proposals, each read, most confident reading first
    (a stable sort: equal readings keep the proposer's order)."""
    read_fits = [(model, score, read(model))
                 for model, score in proposals.candidates[:MAX_CANDIDATES]]
    return sorted(read_fits, key=lambda f: -f[2].quality)


def prove_fit(work: np.ndarray, grey: np.ndarray, model: GridModel, reading: R,
              setup: ProofSetup, read: Callable[[GridModel], R], searched: bool = True
              ) -> tuple[GridModel, R, Proof, bool]:
    """``model`` proved against the prints; the print named by its colours among those
    the proof could not tell apart; the corners labelled by the marks that print has
    (``orient.orientation``: a print with no label or logo by the upright rule) and read
    again where that, or a move of whole cells, changed the grid. The last item: the
    labelling is known (False: the rule was a toss-up and no mark decided). A fit not
    ``searched`` for (a saved calibration, the markers) keeps its labelling unless the
    proof moved it."""
    proof = prove(grey, model, setup.config, setup.expectations)
    if not proof.proved:
        return model, reading, proof, True
    moved = proof.model if proof.moved != (0, 0) else model
    named = closest_print(work, moved, [setup.profiles[n] for n in proof.prints
                                        if n in setup.profiles])
    if named is not None:
        proof = replace(proof, board_print=named)
    if not searched:
        label = logo = True
        if moved is model:
            return model, reading, proof, True
    else:
        label, logo = print_marks([setup.profiles.get(n)
                                   for n in (proof.prints or (proof.board_print,))])
    oriented = orientation(work, moved, label, logo)
    if oriented.model is not model:
        model = oriented.model
        reading = read(model)
    return model, reading, proof, oriented.known or not searched


def print_marks(profiles) -> tuple[bool, bool]:
    """(label, logo): the marks any of the prints the proof could not tell apart says it
    has (their colours name one, and among dark-bordered prints that name is often
    wrong: a Peri board named brown-marble would otherwise lose its label); both where
    one of them has no profile (the orientation then looks for either, as before the
    proof)."""
    profiles = list(profiles)
    if not profiles or any(p is None for p in profiles):
        return True, True
    return (any(p.label is not None for p in profiles),
            any(p.logo is not None for p in profiles))


# -- 4. pick -------------------------------------------------------------------------------
def pick(work: np.ndarray, grey: np.ndarray, fits: Sequence[tuple[GridModel, float, R]],
         proposals: Proposals, setup: ProofSetup | None, read: Callable[[GridModel], R],
         proved_once: ProvedOnce | None = None,
         calibration: Calibration | None = None) -> Board[R]:
    """The first of ``fits`` (most confident first) that proves itself, or no board
    with the last proof that failed. A calibration already proved (``proved_once``)
    and a run without ``setup`` take the first fit unproved."""
    source = proposals.source
    unchecked = setup is None or (
        source == "calibration" and proved_once is not None
        and proved_once.calibration is calibration)
    failed = None
    for model, score, reading in fits:
        if unchecked:
            remembered = (proved_once.board_print if proved_once is not None
                          and source == "calibration" else None)
            return Board(model, score, reading, None, source, proposals, remembered)
        model, reading, proof, known = prove_fit(work, grey, model, reading, setup, read,
                                                 searched=source.startswith("locate"))
        if not proof.proved:
            failed = proof
            continue
        if source == "calibration" and proved_once is not None:
            proved_once.calibration = calibration
            proved_once.board_print = proof.board_print
        return Board(model, score, reading, proof, source, proposals, proof.board_print,
                     known)
    return Board(None, 0.0, None, failed, source, proposals)


def propose(work: np.ndarray, grey: np.ndarray, locator: BoardLocator,
            calibration: Calibration | None = None, markers: bool = False,
            moved_contrast: bool = True) -> Iterator[Proposals]:
    """Step 1 and 2 for one frame, proposer by proposer, as they are asked for: a saved
    ``calibration`` (unless the board has moved; ``moved_contrast`` adds
    ``board_moved``'s contrast test), then, with ``markers``, the ArUco markers, then
    ``locator``'s proposers. ``work``: the frame as the reader works on it (already
    undistorted when ``calibration`` has lens intrinsics); ``grey``: ``work`` in grey."""
    frame = Frame(work, grey, locator.finder)
    first: list[Proposer] = []
    if calibration is not None:
        first.append(Calibrated(calibration, moved_contrast))
    if markers:
        first.append(Markers())
    for proposer in first:
        found = proposals_of(proposer, frame, locator.fallbacks)
        if found is not None:
            yield found
    yield from locator.proposals(frame)


def locate_board(work: np.ndarray, grey: np.ndarray, locator: BoardLocator,
                 read: Callable[[GridModel], R], setup: ProofSetup | None,
                 calibration: Calibration | None = None, markers: bool = False,
                 moved_contrast: bool = True, proved_once: ProvedOnce | None = None
                 ) -> Board[R]:
    """The board in one frame: each proposer's refined candidates proved in turn, the
    first that proves itself picked (see the module's doc)."""
    board = None
    for proposals in propose(work, grey, locator, calibration, markers,
                             moved_contrast):                                   # 1, 2
        fits = by_reading(proposals, read)                                      # 3
        board = pick(work, grey, fits, proposals, setup, read, proved_once,
                     calibration)                                               # 3, 4
        if board.found:
            return board
    return board or Board(None, 0.0, None, None, NOTHING, Proposals([], NOTHING))


__all__ = ["MAX_CANDIDATES", "NOTHING", "SOURCES", "Board", "BoardLocator", "Located",
           "ProofSetup", "Proposals", "ProvedOnce", "Reading", "by_reading",
           "locate_board", "pick", "propose", "proposals_of", "prove_fit", "refine"]
