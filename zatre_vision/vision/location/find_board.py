"""Grid fits from start corners, the tools the proposers (``proposers.py``) share.

- ``settled_fit``: fits from each of a few start corner sets (``grid_fit.fit_from_corners``),
  each fitted again from its own result while that helps, stopping at a settled one;
- ``one_corner_off``: fits from an outline with one corner moved whole cells (a corner
  under a hand, which the network misplaces);
- ``mirrored_corners``: the network's outline of the mirrored frame;
- ``texture_fit``: fits from the classical search's coarse outlines;
- ``onto_the_board``: a fit over bright table moved whole cells onto the board (the
  shared refine's ``border_moves``, ``pipeline.refine``);
- ``corner_gap_cells``, ``same_grid``, ``fits_agree``, ``inside``: how two grids, or a
  grid and an outline, compare.

Nothing here decides which grid is the board: the print proof does
(``pipeline.locate_board``).
"""

from __future__ import annotations

import cv2
import numpy as np

from ..geometry import GridModel
from .board_net import BoardFinder
from .border import (
    border_brightness,
    dark_all_round,
    shifts_along_one_axis,
    shifts_towards_board,
)
from .grid_fit import FitResult, fit_from_corners, score_corner_sets, score_model, shifted
from .locate import coarse_grid_corners

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
#: a fit with at least this line contrast is a candidate on its own
MIN_SCORE = 0.6
#: a fit down to this contrast is a candidate when a second cue agrees: a sure network
#: outline (``proposers.accept``), or a fit from other starts (``fits_agree``)
MIN_SCORE_AGREEING = 0.35
#: a faint texture fit and a faint fit from the network's corners agree when every
#: corner of one is within this many cells of the other's
FITS_AGREE_CELLS = 0.5
#: of the grids moved towards the board, this many (darkest border first) are tried
SHIFTED_REFITS = 3
#: when nothing else finds a board the network is sure of (or only a faint one), each
#: of its corners in turn is moved up to this many whole cells along the board's two
#: edges there (a corner under a hand, which the network guesses wrong)...
CORNER_REACH = 3
#: ... and fits are tried from this many of the moved outlines (best line contrast first)
CORNER_FITS = 3


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


def texture_fit(grey: np.ndarray, border_moves: bool = True, corner_moves: bool = True
                ) -> FitResult | None:
    """The best grid fit (``_rank``) started from the classical search's coarse
    outlines (``locate.coarse_grid_corners``: the region of strong small-scale contrast
    taken as the cardboard), each moved onto the board (``onto_the_board``) and, when
    still not good, tried with one corner moved (``one_corner_off``). Where the network
    misreads a whole board (an outline several cells off, a sure mask bulging over a
    cloth) and the search's own line fit fails, these starts are often within a cell
    or two (~0.6-1 s; only on frames where nothing found a good fit). ``border_moves``,
    ``corner_moves``: whether the moves onto the board and the corner moves are tried."""
    best = None
    for corners in coarse_grid_corners(grey):
        fit = settled_fit(grey, [corners])
        if fit is None:
            continue
        if border_moves:
            fit = onto_the_board(grey, fit)
        if not _good(fit) and corner_moves:
            moved = one_corner_off(grey, fit.model.corners())
            if moved is not None and moved.score > fit.score:
                fit = moved
        if best is None or _rank(fit.score, fit.quarters) > _rank(best.score, best.quarters):
            best = fit
    return best


__all__ = ["GOOD_SCORE", "MIN_SCORE", "MIN_SCORE_AGREEING", "corner_gap_cells",
           "corner_moves", "fits_agree", "inside", "mirrored_corners", "one_corner_off",
           "onto_the_board", "same_grid", "settled_fit", "texture_fit"]
