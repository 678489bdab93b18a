"""The ways of proposing where the board is: each a small plugin, none calling another.

A proposer has a ``name`` and one method, ``propose(frame) -> list[Candidate]``: the
grids it thinks may be the board, best first, or none. It decides nothing else:
``pipeline.locate_board`` runs the proposers switched on in order, gives each one's
candidates the one shared ``refine`` and the print proof, and stops at the first
candidate that proves itself. A later proposer therefore runs only where every earlier
one proposed nothing that proved: on a normal photo the network's outline is the whole
cost.

What the proposers share is the ``Frame``: the frame, its grey copy and what the board
network saw in it (its outline, and the settled grid fit from it), each computed once
on first use, so that the fallbacks that start from the network's outline do not look
again.

Order (``MARKERLESS`` after the saved calibration and the markers):
``calibration``, ``markers``, ``network``, ``line_search``, ``corner_moves``,
``mirrored``, ``texture``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

from ..geometry import GridModel
from .board_net import BoardFinder, BoardOutline
from .calibration import Calibration, board_moved
from .find_board import (
    MIN_SCORE,
    MIN_SCORE_AGREEING,
    corner_gap_cells,
    fits_agree,
    inside,
    mirrored_corners,
    one_corner_off,
    settled_fit,
    texture_fit,
)
from .grid_fit import FitResult
from .locate import locate
from .markers import locate_with_markers

# a network fit is a candidate from line contrast ``find_board.MIN_SCORE`` (0.6), or
# from ``find_board.MIN_SCORE_AGREEING`` (0.35) when it agrees with a sure outline:
#: agreement: every fitted corner within this many cells of the network's corner (a
#: cell: the network puts a corner of a blurred board up to about a cell off. Against
#: 0.75: three more boards found, 086 of the wide set, 202 of seed 8101's, 122 of
#: the real print's, all blurred (086 near the training ranges' limits, the others
#: beyond them), their cells then mostly uncertain instead of every tile wrong: wrong
#: cells 158 -> 98 (all cells of the wide set's boards, found or not); no board
#: reported on 300 photos without one; 1.25 and 1.5 found one more each on seed 8101
#: only)
AGREE_CELLS = 1.0
#: the board network's outline confidence (mean mask probability inside it) from which
#: it is sure there is a board: it vouches for a faint fit (``network``) and its outline
#: is worth moving a corner of (``corner_moves``, ``mirrored``). On 80 photos without a
#: board the network was never this sure. (Not the reader's cell confidence,
#: ``reader.MIN_CONFIDENCE``, a top-class probability.)
SURE_OUTLINE = 0.8
#: the texture proposer runs only where the network is at least this sure of a board.
#: Below SURE_OUTLINE (0.8): seed 8101's photo 14 found (outline confidence 0.77,
#: texture fit 0.58, 0.17 cell off; 61 tiles counted wrong at 0.8); seeds 7001 and
#: 9001 read as at 0.8, no board on the 300 no-board photos (wide seed
#: 8303, training ranges 8304); seed 8101's read p90 0.63 -> 0.72 s
TEXTURE_MIN_CONFIDENCE = 0.7
#: a texture fit whose middle lies inside the network's outline is a candidate on its
#: own from this line contrast, below MIN_SCORE: one more board found on seed 8101
#: (photo 195, 0.59, 0.13 cell off) and on seed 7001 (144, 0.59, 1.1 cells off: its
#: tiles are mostly left uncertain, 4 wrong cells instead of 39); no board on 300
#: photos without one (wide seed 8303, training ranges 8304), seed 9001 read as with
#: MIN_SCORE
TEXTURE_MIN_SCORE = 0.55


@dataclass(frozen=True)
class Candidate:
    """One proposed grid: the model, its line contrast, the proposer's name, and the
    grid fit it came from (``grid_fit.FitResult``, None where the proposer made the
    model another way: the line search's own fit, the markers, a saved calibration).
    ``refinable``: False for a grid taken as it stands (a saved calibration, the
    markers' fit); ``searched``: the corners are labelled by the print before the proof
    (every markerless proposer)."""
    model: GridModel
    score: float
    proposer: str
    fit: FitResult | None = None
    refinable: bool = True
    searched: bool = True


class Proposer(Protocol):
    """A way of proposing where the board is (see the module's doc)."""

    name: str

    def propose(self, frame: Frame) -> list[Candidate]: ...


class Frame:
    """One frame as the proposers see it: ``image`` (BGR or grey), ``grey``, and what
    the board network (``finder``, None without a board model) saw there, each looked
    at once, on first use."""

    def __init__(self, image: np.ndarray, grey: np.ndarray, finder: BoardFinder | None):
        self.image, self.grey, self.finder = image, grey, finder

    @cached_property
    def outline(self) -> BoardOutline | None:
        """The network's outline of the board (None: no board model, or no board seen)."""
        return self.finder.find(self.image) if self.finder is not None else None

    @cached_property
    def net_fit(self) -> FitResult | None:
        """The settled grid fit from the network's outline (``find_board.settled_fit``),
        without the full-resolution polish: on the fit of the search image it moves the
        corners by a few hundredths of a cell, which the cell reading does not feel, for
        ~3 ms, a tenth of a read (three tuning seeds, 780 boards: exact boards 439 ->
        437, wrong cells 17 -> 16, corner error median 0.08 -> 0.09 cell). A saved
        calibration, used for every frame of a fixed camera, is polished once
        (``calibration.make_calibration``)."""
        outline = self.outline
        return None if outline is None else settled_fit(self.grey, outline.starts(),
                                                         polish=False)

    def sure(self, confidence: float) -> bool:
        """Is the network's outline at least ``confidence`` sure of a board?"""
        return self.outline is not None and self.outline.confidence >= confidence


def _fitted(fit: FitResult | None, name: str) -> list[Candidate]:
    return [] if fit is None else [Candidate(fit.model, fit.score, name, fit)]


class Calibrated:
    """A saved calibration (a fixed camera over a board that stays put): its grid as it
    stands, while ``calibration.board_moved`` says the board is still there."""

    name = "calibration"

    def __init__(self, calibration: Calibration, moved_contrast: bool = True):
        self.calibration, self.moved_contrast = calibration, moved_contrast

    def propose(self, frame: Frame) -> list[Candidate]:
        if board_moved(frame.grey, self.calibration, contrast=self.moved_contrast):
            return []
        h, w = frame.grey.shape[:2]
        return [Candidate(self.calibration.model_for(w, h), self.calibration.line_score,
                          self.name, refinable=False, searched=False)]


class Markers:
    """ArUco markers laid at the board's corners (``--markers``: dark tables, strong
    glare, heavy occlusion), three or four of them giving the grid."""

    name = "markers"

    def propose(self, frame: Frame) -> list[Candidate]:
        r = locate_with_markers(frame.image)
        return ([Candidate(r.model, r.score, self.name, refinable=False, searched=False)]
                if r.found else [])


class Network:
    """The board network's outline fitted to the grid lines (``Frame.net_fit``): the
    normal photo's whole search. Proposed when its lines are clear (MIN_SCORE), or
    fainter (blur, dark photos, many tiles) when it lands where a sure network put the
    board: two independent cues agreeing (``accept``)."""

    name = "network"

    def propose(self, frame: Frame) -> list[Candidate]:
        fit = frame.net_fit
        if fit is None or not accept(fit.score, fit.model, frame.outline):
            return []
        return _fitted(fit, self.name)


def accept(score: float, model: GridModel, outline: BoardOutline) -> bool:
    """Is a fit of line contrast ``score`` from the network's ``outline`` a candidate?"""
    if score >= MIN_SCORE:
        return True
    if score < MIN_SCORE_AGREEING or outline.confidence < SURE_OUTLINE:
        return False
    gap = corner_gap_cells(model.corners(), outline.corners, model.cell_size_px())
    return gap <= AGREE_CELLS


class LineSearch:
    """The classical line search (``locate.locate``), which owes nothing to the
    network: for photos the network misreads or misses, and the whole search without a
    board model. Its best few fits, clearest lines first."""

    name = "line_search"

    def propose(self, frame: Frame) -> list[Candidate]:
        r = locate(frame.grey)
        return [Candidate(m, s, self.name) for m, s in r.candidates] if r.found else []


class CornerMoves:
    """The network's outline with one corner moved whole cells (``one_corner_off``):
    for a board the network is sure of with a corner under a hand, which it misplaces
    by one to three cells (every fit from there misses the grid)."""

    name = "corner_moves"

    def propose(self, frame: Frame) -> list[Candidate]:
        if not frame.sure(SURE_OUTLINE):
            return []
        return _fitted(one_corner_off(frame.grey, frame.outline.corners), self.name)


class Mirrored:
    """The network's outline of the frame mirrored left to right, with one corner moved
    (``mirrored_corners``, ``one_corner_off``): a second, differently wrong opinion
    where a sleeve or a strong lens bend misled the first look at several corners."""

    name = "mirrored"

    def propose(self, frame: Frame) -> list[Candidate]:
        if not frame.sure(SURE_OUTLINE) or frame.finder is None:
            return []
        corners = mirrored_corners(frame.finder, frame.image)
        return [] if corners is None else _fitted(one_corner_off(frame.grey, corners),
                                                  self.name)


class Texture:
    """Fits from the textured region's outline (``find_board.texture_fit``, from the
    classical search's coarse outlines): for a board the network is fairly sure of but
    misread as a whole (a mask bulging over a cloth, corners many cells off). Proposed
    where its middle lies inside the network's outline (cloth grain alone can give a
    grid-like fit) and its lines are clear enough (TEXTURE_MIN_SCORE), or fainter where
    the network's own faint fit lands on the same grid (``fits_agree``).
    ``border_moves``, ``corner_moves``: the fit from each coarse outline is moved onto
    the board and tried with one corner moved (the refine step's and the corner
    proposer's switches)."""

    name = "texture"

    def __init__(self, border_moves: bool = True, corner_moves: bool = True):
        self.border_moves, self.corner_moves = border_moves, corner_moves

    def propose(self, frame: Frame) -> list[Candidate]:
        if not frame.sure(TEXTURE_MIN_CONFIDENCE):
            return []
        tex = texture_fit(frame.grey, self.border_moves, self.corner_moves)
        if tex is None or not inside(frame.outline.corners, tex.model):
            return []
        witness = frame.net_fit       # the network's own fit, however faint
        if tex.score >= TEXTURE_MIN_SCORE or fits_agree(tex, witness):
            return _fitted(tex, self.name)
        return []


#: the markerless proposers, in the order they run; each but ``network`` is a switch
#: of ``fallbacks.LocateFallbacks``
MARKERLESS = ("network", "line_search", "corner_moves", "mirrored", "texture")


__all__ = ["AGREE_CELLS", "MARKERLESS", "MIN_SCORE", "MIN_SCORE_AGREEING", "SURE_OUTLINE",
           "TEXTURE_MIN_CONFIDENCE", "TEXTURE_MIN_SCORE", "Calibrated", "Candidate",
           "CornerMoves", "Frame", "LineSearch", "Markers", "Mirrored", "Network",
           "Proposer", "Texture", "accept"]
