"""``locate_board``: where the board is in one frame, in four steps.

1. **propose** candidate grid fits, from the first source that gives any: a saved
   calibration that still fits the frame (``calibration.board_moved``), four ArUco
   markers, or the search of ``BoardLocator`` (the board network's outline fitted to
   the grid lines, then its fallbacks: the line search, a corner moved, the mirrored
   frame, the textured region; each switchable, ``fallbacks.LocateFallbacks``);
2. **refine** them: at most ``MAX_CANDIDATES``, each read by the caller
   (``read(model)``: the pip classifier's reading of its cells) and ordered by how
   confidently its cells read, most first;
3. **prove** each in that order against the board prints (``print_proof.prove``):
   the outline, the x2 and start cells, and the border against the shifts of one cell;
   a fit one cell off is moved onto the grid it proves; the print is named by its
   colours (``print_colours.closest``), and the corners labelled by the marks that
   print has (``orient.orientation``: a print with no label or logo by the upright
   rule, and where that rule is a toss-up the labelling is a guess:
   ``Board.orientation_known``); a grid so changed is read again;
4. **pick** the first that proves itself, or say "no board" (with the last proof that
   failed, for the reason).

A saved calibration's grid is proved once, not every frame (``ProvedOnce``). Without
print expectations (``proof`` None) nothing is proved and the most confident reading
is taken.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Generic, NamedTuple, Protocol, TypeVar

import numpy as np

from ..geometry import GridModel
from .calibration import Calibration, board_moved
from .find_board import BoardLocator
from .markers import locate_with_markers
from .orient import orientation
from .print_colours import closest as closest_print
from .print_proof import PrintExpectation, Proof, ProofConfig, prove

#: fits read and proved per frame (the locator's best few)
MAX_CANDIDATES = 3


class Reading(Protocol):
    """What the caller's ``read(model)`` returns: anything with a ``quality`` (higher:
    the cells read more confidently)."""

    quality: float


R = TypeVar("R", bound=Reading)


class Proposals(NamedTuple):
    """Step 1's output: candidate fits (grid model, line score), best line score first;
    ``source``: "calibration", "markers" or "locate:<method>" (``Located.method``)."""
    candidates: list[tuple[GridModel, float]]
    source: str


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


# -- 1. propose --------------------------------------------------------------------------
def propose(work: np.ndarray, grey: np.ndarray, locator: BoardLocator,
            calibration: Calibration | None = None, markers: bool = False,
            moved_contrast: bool = True) -> Proposals:
    """Candidate fits for one frame. ``work``: the frame as the reader works on it
    (already undistorted when ``calibration`` has lens intrinsics); ``grey``: ``work``
    in grey. A saved ``calibration`` is taken as it stands unless the board has moved
    (``moved_contrast`` adds ``board_moved``'s contrast test); then, with ``markers``,
    four ArUco markers; then ``locator``'s search."""
    h, w = work.shape[:2]
    if calibration is not None and not board_moved(   # grey: the check converts nothing
            grey, calibration, contrast=moved_contrast):
        return Proposals([(calibration.model_for(w, h), calibration.line_score)],
                         "calibration")
    if markers:
        r = locate_with_markers(work)
        if r.found:
            return Proposals([(r.model, r.score)], "markers")
    found = locator.locate(work, grey)
    return Proposals(list(found.result.candidates), f"locate:{found.method}")


# -- 2. refine ---------------------------------------------------------------------------
def refine(proposals: Proposals, read: Callable[[GridModel], R]
           ) -> list[tuple[GridModel, float, R]]:
    """The best ``MAX_CANDIDATES`` proposals, each read, most confident reading first
    (a stable sort: equal readings keep the line score's order)."""
    read_fits = [(model, score, read(model))
                 for model, score in proposals.candidates[:MAX_CANDIDATES]]
    return sorted(read_fits, key=lambda f: -f[2].quality)


# -- 3. prove ----------------------------------------------------------------------------
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


# -- 4. pick -----------------------------------------------------------------------------
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


def locate_board(work: np.ndarray, grey: np.ndarray, locator: BoardLocator,
                 read: Callable[[GridModel], R], setup: ProofSetup | None,
                 calibration: Calibration | None = None, markers: bool = False,
                 moved_contrast: bool = True, proved_once: ProvedOnce | None = None
                 ) -> Board[R]:
    """The board in one frame: propose, refine, prove, pick (see the module's doc)."""
    proposals = propose(work, grey, locator, calibration, markers, moved_contrast)  # 1
    fits = refine(proposals, read)                                                 # 2
    return pick(work, grey, fits, proposals, setup, read, proved_once, calibration)  # 3, 4


__all__ = ["MAX_CANDIDATES", "Board", "ProofSetup", "Proposals", "ProvedOnce", "Reading",
           "locate_board", "pick", "propose", "prove_fit", "refine"]
