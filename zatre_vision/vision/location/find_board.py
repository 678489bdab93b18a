"""``BoardLocator``: the board in one frame, learned outline first, classical search second.

1. The board network (``board_net.BoardFinder``) gives the four outer grid corners
   from a 224 x 168 copy of the frame, typically a third of a cell off (now and then
   a cell or two at one corner), hands and tiles notwithstanding.
2. ``grid_fit.fit_from_corners`` takes them to the white grid lines (a fraction of a
   line width) and scores the fit by line contrast.
3. The fit is accepted when its lines are clearly there, or, with fainter lines (blur,
   dark photos, many tiles), when it lands where the network put the board: two
   independent cues agreeing.
4. A fit that hangs over bright table on two adjacent sides (``border``: the board's
   border is dark) is moved whole cells towards the board, as it stands and refitted
   from there; the clearest of those with dark border all round and clear lines
   replaces it (``onto_the_board``). Over bright table on one side only, refits along
   that axis replace it when their border is dark all round and their lines clearer.
5. A good fit (clear lines in every quarter) is used at once. Otherwise (no model
   file, no accepted fit, or only a faint one) the classical search of
   ``locate.locate`` runs, slower but independent of the network; of a faint fit and
   the search's result the better line contrast wins.
6. When neither found a board, or the search only a faint one (below GOOD_SCORE),
   and the network is sure there is one, its corners are tried with one of them moved
   whole cells (``one_corner_off``: a corner under a hand, which the network
   misplaces), then the same with the network's corners of the mirrored frame
   (``mirrored_corners``); a good fit from there is the board, where the search found
   none or one with less clear lines.
7. When all that leaves no board or only a faint one and the network is fairly sure
   of a board (TEXTURE_MIN_CONFIDENCE), it may have misread the whole board (a mask
   bulging over a cloth, an outline many cells off): grid fits from the classical search's coarse outline
   (``texture_fit``) are tried; one inside the network's outline is the board from
   TEXTURE_MIN_SCORE, or fainter where the faint fit from the network's corners agrees
   (``fits_agree``), and wins over a faint result with less clear lines.
8. The corners are labelled by the board's print (``orient.by_print``: the yellow
   label is bottom right) where it is seen, else by the contract's rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..geometry import GridModel
from .board_net import DEFAULT_BOARD_MODEL, BoardFinder, BoardModelError, BoardOutline
from .border import (
    border_brightness,
    dark_all_round,
    shifts_along_one_axis,
    shifts_towards_board,
)
from .fallbacks import FallbacksError, LocateFallbacks
from .grid_fit import FitResult, fit_from_corners, score_corner_sets, score_model, shifted
from .locate import LocateResult, coarse_grid_corners, locate, to_grey
from .orient import by_print

#: a fit this good overall and in its worst quarter ends the search over starts
GOOD_SCORE, GOOD_QUARTER = 0.7, 0.5
#: fits from one start: the first, then from each fit's corners while that helps
FITS_PER_START = 3
#: a good fit whose worst quarter is below this is fitted again from its own corners
#: (a fit bent at one corner, its radial term pulled off; the next fit from its nearly
#: right corners straightens it). Wide benchmark set: corner error p95 0.239 -> 0.223
#: cell, 6 photos from 0.3-0.7 cell to under 0.2; board scan set: a board two cells
#: off found right (``bench vision --board scanned``)
SETTLED_QUARTER = 0.65
#: a fit with at least this line contrast is a board on its own
MIN_SCORE = 0.6
#: a texture fit (``texture_fit``) whose middle lies inside a sure network outline is a
#: board on its own from this line contrast, below MIN_SCORE: one more board
#: found on seed 8101 (photo 195, 0.59, 0.13 cell off) and on seed 7001 (144, 0.59, 1.1
#: cells off: its tiles are mostly left uncertain, 4 wrong cells instead of 39); no
#: board on 300 photos without one (wide seed 8303, training ranges 8304), seed 9001
#: read as with MIN_SCORE
TEXTURE_MIN_SCORE = 0.55
#: a fit down to this contrast is a board when it agrees with the network's outline
MIN_SCORE_AGREEING = 0.35
#: agreement: every fitted corner within this many cells of the network's corner (a
#: cell: the network puts a corner of a blurred board up to about a cell off. Against
#: 0.75: three more boards found, 086 of the wide set, 202 of seed 8101's, 122 of
#: the real print's, all blurred (086 near the training ranges' limits, the others
#: beyond them), their cells then mostly uncertain instead of every tile wrong: wrong cells 158 -> 98 (all cells of the wide
#: set's boards, found or not); no board reported on 300 photos without one; 1.25 and
#: 1.5 found one more each on seed 8101 only)
AGREE_CELLS = 1.0
#: a faint texture fit and a faint fit from the network's corners agree when every
#: corner of one is within this many cells of the other's
FITS_AGREE_CELLS = 0.5
#: the network's outline must be this sure to vouch for a faint fit
MIN_CONFIDENCE = 0.8
#: the texture fit runs only where the network is at least this sure of a board.
#: Below MIN_CONFIDENCE (0.8): seed 8101's photo 14 found (outline confidence 0.77,
#: texture fit 0.58, 0.17 cell off; 61 tiles counted wrong at 0.8); seeds 7001 and
#: 9001 read as at 0.8, no board on the 300 no-board photos (wide seed
#: 8303, training ranges 8304); seed 8101's read p90 0.63 -> 0.72 s
TEXTURE_MIN_CONFIDENCE = 0.7
#: of the grids moved towards the board, this many (darkest border first) are tried
SHIFTED_REFITS = 3
#: when nothing else finds a board the network is sure of (or only a faint one), each
#: of its corners in turn is moved up to this many whole cells along the board's two
#: edges there (a corner under a hand, which the network guesses wrong)...
CORNER_REACH = 3
#: ... and fits are tried from this many of the moved outlines (best line contrast first)
CORNER_FITS = 3


@dataclass(frozen=True)
class Located:
    result: LocateResult
    method: str                       # "net", "classical" or "none"


def _good(fit: FitResult) -> bool:
    """Clear lines overall and in every quarter of the board."""
    return fit.score >= GOOD_SCORE and min(fit.quarters) >= GOOD_QUARTER


def _rank(score: float, quarters: tuple[float, ...]) -> float:
    """How to order fits: line contrast overall plus half that of the worst quarter."""
    return score + 0.5 * min(quarters)


def corner_gap_cells(a: np.ndarray, b: np.ndarray, cell_px: float) -> float:
    """Largest distance between matching corners of two outlines, in cells (the
    labels may start at different corners)."""
    return min(float(np.linalg.norm(np.roll(a, k, 0) - b, axis=1).max())
               for k in range(4)) / max(cell_px, 1e-6)


def onto_the_board(grey: np.ndarray, fit: FitResult) -> FitResult:
    """``fit``, or when it hangs over bright table on two adjacent sides, the clearest
    grid (line contrast) with dark border on all four sides among the fit moved whole
    cells towards the board (its lines are real; only the count is off) and refits
    from there (for a fit whose scale is off too) (``border``). Over bright table on
    one side only, refits along that axis, and only one with clearer lines than
    ``fit`` (a sleeve over one side looks the same to the border check)."""
    sides = border_brightness(grey, fit.model)
    return _moved_two_ways(grey, fit, sides) or _moved_one_way(grey, fit, sides) or fit


def _refit_on_board(grey: np.ndarray, moved: GridModel) -> FitResult | None:
    """The fit from ``moved`` (a fit moved whole cells), where its border is dark all
    round; else None."""
    refit = fit_from_corners(grey, moved.corners())
    if refit is not None and dark_all_round(border_brightness(grey, refit.model)):
        return refit
    return None


def _moved_two_ways(grey: np.ndarray, fit: FitResult, sides: tuple[float, ...]
                    ) -> FitResult | None:
    shifts = shifts_towards_board(sides)
    moved = {s: shifted(fit.model, *s) for s in shifts}
    moved_sides = {s: border_brightness(grey, m) for s, m in moved.items()}
    best = None
    for s in sorted(shifts, key=lambda s: max(moved_sides[s]))[:SHIFTED_REFITS]:
        refit = _refit_on_board(grey, moved[s])
        found = [refit] if refit is not None else []
        if dark_all_round(moved_sides[s]):
            found.append(FitResult(moved[s], *score_model(grey, moved[s]), s))
        for f in found:
            if f.score >= MIN_SCORE and (best is None or f.score > best.score):
                best = f
    return best


def _moved_one_way(grey: np.ndarray, fit: FitResult, sides: tuple[float, ...]
                   ) -> FitResult | None:
    """Up to ``border.MAX_SHIFT`` refits along the one axis. On the real board's print
    (the wide benchmark's scenes) two boards one and two cells off are found right
    (wrong cells on found boards 210 without these refits, 113 with them); on the
    drawn boards it changes no reading."""
    best = None
    for s in shifts_along_one_axis(sides):
        refit = _refit_on_board(grey, shifted(fit.model, *s))
        if refit is not None and refit.score > (best or fit).score:
            best = refit
    return best


def corner_moves(corners: np.ndarray, reach: int = CORNER_REACH) -> np.ndarray:
    """(N, 4, 2): ``corners`` (TL, TR, BR, BL) with one corner moved by whole cells
    (up to ``reach``) along the outline's two edges at that corner, the other three
    kept; every corner, every move except none."""
    corners = np.asarray(corners, np.float64).reshape(4, 2)
    steps = [(a, b) for a in range(-reach, reach + 1) for b in range(-reach, reach + 1)
             if a or b]
    out = []
    for k in range(4):
        along = (corners[(k + 1) % 4] - corners[k]) / 15.0
        across = (corners[(k - 1) % 4] - corners[k]) / 15.0
        for a, b in steps:
            moved = corners.copy()
            moved[k] += a * along + b * across
            out.append(moved)
    return np.array(out)


def mirrored_corners(finder: BoardFinder, image: np.ndarray) -> np.ndarray | None:
    """The network's corners of ``image`` mirrored left to right, mapped back into
    ``image`` (TL, TR, BR, BL), or None where it sees no board there."""
    found = finder.find(np.ascontiguousarray(image[:, ::-1]))
    if found is None:
        return None
    corners = np.array(found.corners, np.float64)
    corners[:, 0] = image.shape[1] - 1 - corners[:, 0]
    return corners[[1, 0, 3, 2]]


def one_corner_off(grey: np.ndarray, corners: np.ndarray) -> FitResult | None:
    """A good fit (``_good``) from ``corners`` with one of them moved whole cells
    (``corner_moves``), or None. The network puts a corner that a hand hides a few
    cells off, and no fit from there finds the grid; the three it saw are right. The
    moved outlines are ranked by the line contrast of their plain homography (the lines
    near a moved corner fall on lines only where it is right), and the best few are
    fitted (~0.3 s; only on frames where nothing else found a board, or only a faint
    one)."""
    sets = corner_moves(corners)
    ranks = [_rank(s, q) for s, q in score_corner_sets(grey, sets)]
    best = None
    for i in np.argsort(ranks)[::-1][:CORNER_FITS]:
        fit = fit_from_corners(grey, sets[i])
        if fit is not None and _good(fit) and (best is None or fit.score > best.score):
            best = fit
    return best


def _oriented(image: np.ndarray, r: LocateResult) -> LocateResult:
    """``r`` with every fit labelled by the board's print where it is seen."""
    cands = tuple((by_print(image, m), score) for m, score in r.candidates)
    return LocateResult(cands[0][0] if cands else r.model, r.score, r.inliers, cands)


def settled_fit(grey: np.ndarray, starts: list[np.ndarray], polish: bool = True
                ) -> FitResult | None:
    """Grid fits from each of ``starts`` (corner sets, best guess first), each followed
    by fits from its own corners while it is not yet settled (good, and every quarter
    at least SETTLED_QUARTER: a fit that caught the wrong line at one corner usually
    lands nearer) and the fits improve; stops at the first settled fit and otherwise
    returns the best by overall and worst-quarter line contrast. ``polish``: each fit
    ends with the full-resolution polish (``grid_fit.polish``; scores are taken
    before it, so it changes no choice here)."""
    best, best_rank = None, -np.inf
    for corners in starts:
        start, last_rank = corners, -np.inf
        for _ in range(FITS_PER_START):
            fit = fit_from_corners(grey, start, full_polish=polish)
            if fit is None:
                break
            rank = _rank(fit.score, fit.quarters)
            if rank > best_rank:
                best, best_rank = fit, rank
            if _good(fit) and min(fit.quarters) >= SETTLED_QUARTER:
                return fit
            if rank <= last_rank:
                break          # refitting no longer helps
            start, last_rank = fit.model.corners(), rank
    return best


def same_grid(a: GridModel, b: GridModel) -> bool:
    """Do two fits lie on the same grid: every corner of one within FITS_AGREE_CELLS of
    the other's? (Otherwise one is a cell or more off.)"""
    return corner_gap_cells(a.corners(), b.corners(), a.cell_size_px()) <= FITS_AGREE_CELLS


def fits_agree(fit: FitResult, other: FitResult | None) -> bool:
    """A faint ``fit`` (line contrast from MIN_SCORE_AGREEING) counts as the board when
    ``other``, a fit from different starts, lands on the same grid (``same_grid``)."""
    if other is None or min(fit.score, other.score) < MIN_SCORE_AGREEING:
        return False
    return same_grid(fit.model, other.model)


def inside(quad: np.ndarray, model: GridModel) -> bool:
    """Is the middle of ``model``'s grid inside the quadrilateral ``quad`` (4 x 2)?"""
    centre = model.to_image(np.array([[7.5, 7.5]]))[0]
    return cv2.pointPolygonTest(np.asarray(quad, np.float32).reshape(-1, 1, 2),
                                (float(centre[0]), float(centre[1])), False) >= 0


def texture_fit(grey: np.ndarray, fallbacks: LocateFallbacks | None = None
                ) -> FitResult | None:
    """The best grid fit (``_rank``) started from the classical search's coarse
    outlines (``locate.coarse_grid_corners``: the region of strong small-scale contrast
    taken as the cardboard), each moved onto the board (``onto_the_board``) and, when
    still not good, tried with one corner moved (``one_corner_off``). Where the network
    misreads a whole board (an outline several cells off, a sure mask bulging over a
    cloth) and the search's own line fit fails, these starts are often within a cell
    or two (~0.6-1 s; only on frames where nothing found a good fit)."""
    best = None
    fallbacks = fallbacks or LocateFallbacks()
    for corners in coarse_grid_corners(grey):
        fit = settled_fit(grey, [corners])
        if fit is None:
            continue
        if fallbacks.border_moves:
            fit = onto_the_board(grey, fit)
        if not _good(fit) and fallbacks.corner_moves:
            moved = one_corner_off(grey, fit.model.corners())
            if moved is not None and moved.score > fit.score:
                fit = moved
        if best is None or _rank(fit.score, fit.quarters) > _rank(best.score, best.quarters):
            best = fit
    return best


class BoardLocator:
    """Finds the board in frames; loads the board network once (if present)."""

    def __init__(self, model_path: Path | str | None = DEFAULT_BOARD_MODEL,
                 threads: int = 1, fallbacks: LocateFallbacks | None = None):
        """``fallbacks``: which of the search's fallbacks run; without it, the board
        model's card says (``LocateFallbacks.from_card``; all of them where it is
        silent or there is no board model)."""
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

    def locate(self, image: np.ndarray, grey: np.ndarray | None = None) -> Located:
        """The board in ``image`` (BGR or grey); ``grey``: the frame already converted
        to grey, if the caller has it (the reader needs it too)."""
        grey = to_grey(image) if grey is None else grey
        outline = self.finder.find(image) if self.finder is not None else None
        fit = self._best_fit(grey, outline) if outline is not None else None
        # a fit from the network's corners too faint to stand alone, kept as a witness
        # for the texture fit
        faint = fit if fit is not None and fit.score >= MIN_SCORE_AGREEING else None
        if fit is not None and not self._accept(fit.score, fit.model, outline):
            fit = None
        if fit is not None and self.fallbacks.border_moves:
            fit = onto_the_board(grey, fit)
        if fit is not None and _good(fit):
            return self._fit_result(image, fit)
        found = self._searched(image, grey, outline, fit)
        if ((not found.result.found or found.result.score < GOOD_SCORE)
                and self.fallbacks.texture
                and outline is not None and outline.confidence >= TEXTURE_MIN_CONFIDENCE):
            # nothing found, or only faint lines, where the network is fairly sure of a
            # board:
            # fits from the textured region's outline (``texture_fit``), which owe
            # nothing to the network's corners; one is taken where it lies on the
            # network's board (cloth grain alone can give a grid-like fit)
            tex = texture_fit(grey, self.fallbacks)
            if (tex is not None and inside(outline.corners, tex.model)
                    and (tex.score >= TEXTURE_MIN_SCORE or fits_agree(tex, faint))
                    and (not found.result.found or self._elsewhere(tex, found.result))):
                return self._fit_result(image, tex, "texture")
        return found

    @staticmethod
    def _elsewhere(tex: FitResult, found: LocateResult) -> bool:
        """Does the texture fit ``tex`` beat the faint ``found``: clearer lines on another
        grid (more than FITS_AGREE_CELLS off)? On the same grid the two differ by a
        fraction of a line, and ``found`` is kept."""
        return tex.score > found.score and not same_grid(tex.model, found.model)

    def _searched(self, image: np.ndarray, grey: np.ndarray, outline: BoardOutline | None,
                  fit: FitResult | None) -> Located:
        """No good fit from the network's corners (``fit``: a faint one, or None): the
        classical search (a faint fit is often a cell or more off; the search then
        usually does better) and, where that finds nothing clear either, a second look
        from the network's outline (``_second_look``)."""
        r = locate(grey) if self.fallbacks.line_search else LocateResult(None, 0.0, 0)
        if fit is not None and (not r.found or r.score <= fit.score):
            return self._fit_result(image, fit)
        if r.found and self.fallbacks.line_refit:
            r = self._refitted(grey, r)
        if ((not r.found or r.score < GOOD_SCORE) and outline is not None
                and outline.confidence >= MIN_CONFIDENCE):
            # nothing found, or only faint lines: a network sure of a board may have
            # misplaced a corner under a hand, which put every fit from it off
            fit = self._second_look(image, grey, outline)
            if fit is not None and (not r.found or fit.score > r.score):
                if self.fallbacks.border_moves:
                    fit = onto_the_board(grey, fit)
                return self._fit_result(image, fit)
        if not r.found:
            return Located(r, "none")
        return Located(_oriented(image, r), "classical")

    @staticmethod
    def _refitted(grey: np.ndarray, r: LocateResult) -> LocateResult:
        """``r`` with its model replaced by a grid fit from its corners where that fit
        has the clearer lines (the search's pattern fit can settle a cell or two off
        on a busy print; the fit's band profiles and phase check pull it back)."""
        fit = fit_from_corners(grey, r.model.corners())
        if fit is None or fit.score <= r.score:
            return r
        return LocateResult(fit.model, fit.score, r.inliers,
                            ((fit.model, fit.score),) + tuple(r.candidates[1:]))

    def _second_look(self, image: np.ndarray, grey: np.ndarray, outline: BoardOutline
                     ) -> FitResult | None:
        """For a board the network is sure of that no fit found clearly: its outline
        with one corner moved whole cells (``one_corner_off``), then the same from the
        network's outline of the frame mirrored left to right (``mirrored_corners``: a
        second, differently wrong opinion where a sleeve or a lens bend misled the
        first)."""
        if not self.fallbacks.corner_moves:
            return None
        fit = one_corner_off(grey, outline.corners)
        if fit is None and self.finder is not None and self.fallbacks.mirrored:
            mirrored = mirrored_corners(self.finder, image)
            if mirrored is not None:
                fit = one_corner_off(grey, mirrored)
        return fit

    @staticmethod
    def _fit_result(image: np.ndarray, fit: FitResult, method: str = "net") -> Located:
        """``fit`` as the located board, its corners labelled by the print; ``method``:
        where its start came from (the network, or the texture for ``texture_fit``)."""
        model = by_print(image, fit.model)
        return Located(LocateResult(model, fit.score, 0, ((model, fit.score),)), method)

    @staticmethod
    def _best_fit(grey: np.ndarray, outline: BoardOutline) -> FitResult | None:
        """The settled fit from the network's corners, without the full-resolution
        polish: on the fit of the search image it moves the corners by a few hundredths
        of a cell, which the cell reading does not feel, for ~3 ms, a tenth of a read
        (three tuning seeds, 780 boards: exact boards 439 -> 437, wrong cells 17 -> 16,
        corner error median 0.08 -> 0.09 cell). A saved calibration, used for every
        frame of a fixed camera, is polished once (``calibration.make_calibration``)."""
        return settled_fit(grey, outline.starts(), polish=False)

    @staticmethod
    def _accept(score: float, model, outline: BoardOutline) -> bool:
        if score >= MIN_SCORE:
            return True
        if score < MIN_SCORE_AGREEING or outline.confidence < MIN_CONFIDENCE:
            return False
        gap = corner_gap_cells(model.corners(), outline.corners, model.cell_size_px())
        return gap <= AGREE_CELLS


__all__ = ["BoardLocator", "Located", "corner_gap_cells", "corner_moves", "fits_agree",
           "inside", "mirrored_corners", "one_corner_off", "onto_the_board", "same_grid",
           "settled_fit", "texture_fit"]
