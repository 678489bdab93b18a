"""Measurement: the ``Evidence`` of one located board, everything ``decide`` weighs.

``steadied`` (doubtful cells read again from crops a pixel away, turned), ``evidence_of``
(the per-cell and per-photo measures of the crops: pip counts, brightness, sharpness)
and ``with_rereads`` (the network's readings of chosen cells from crops moved about
them: re-centred, and moved away from a hand). Which cells those are is the decision's
to say (``decide.cells_to_reread``); reading them is measurement, so the decision itself
never runs the network. The image work and the network calls are all here; the bars
they are weighed against are in ``decide``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .cell_evidence import (
    bare_board,
    middle_brightness,
    too_dark_for_a_tile,
    weakest_direction_sharpness,
)
from .cells import CROP, moved_crops, oriented
from .classify import OCCLUDED
from .evidence import Evidence, MovedReadings
from .pips import count_all
from .reader_config import ReaderConfig

#: the eight moves of one pixel: not tuned, the neighbours of a pixel (``steadied``
#: reads them; the re-reading passes scale them, ``recentre_shifts``,
#: ``beside_hand_shifts``)
SHIFTS = np.array([(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy], np.int32)
#: the orientation (``cells.oriented``) each of ``steadied``'s moved crops is read in:
#: not tuned, the seven turns and mirrors of a square, then the crop as it is (the
#: network was trained on all eight)
ORIENTATIONS = (1, 2, 3, 4, 5, 6, 7, 0)
#: the fields of ``ReaderConfig`` the measurements use: evidence measured under one
#: config serves the decision of any other that agrees on these
MEASURE_FIELDS = ("pass_steadied", "recheck_below", "recentre_shift", "beside_hand_shift",
                  "beside_hand_clear_below")


def measure_settings(config: ReaderConfig) -> tuple:
    """The values of ``MEASURE_FIELDS`` in ``config``."""
    return tuple(getattr(config, name) for name in MEASURE_FIELDS)


def recentre_shifts(config: ReaderConfig) -> np.ndarray:
    """The eight moves of the re-centred reading (``recentre_shift`` pixels)."""
    return config.recentre_shift * SHIFTS


def beside_hand_shifts(config: ReaderConfig) -> tuple[np.ndarray, np.ndarray]:
    """The moves of the reading beside a hand: the nearer eight (``beside_hand_shift``
    pixels) and the farther sixteen (one and two pixels more), read first."""
    s = config.beside_hand_shift
    return s * SHIFTS, np.concatenate([(s + 1) * SHIFTS, (s + 2) * SHIFTS])


def steadied(classifier, board: np.ndarray, probs: np.ndarray, cr: np.ndarray | None = None,
             recheck_below: float = ReaderConfig.recheck_below) -> np.ndarray:
    """``probs`` with each doubtful cell's row (top probability below ``recheck_below``)
    replaced by the mean over its crop and the eight crops one pixel away, each of those
    shown to the network turned or mirrored (``ORIENTATIONS``). A single reading of a
    small network jumps with sub-pixel shifts and with the crop's orientation (it was
    trained on all eight); the mean of nine differing readings is steadier, both in its
    class and in how sure it is. (Wide benchmark set: turning the moved crops cut the
    wrong cells 108 -> 90 at the same cost; training ranges: uncertain 105 -> 95.)

    With the crops ``cr``, a dark cell read empty whose middle is too dark for a tile
    (``too_dark_for_a_tile``) is not read again: the decision takes such a cell as bare
    board however sure the network is. (First 100 wide photos: 1,489 of 4,050 doubtful
    cells, 37 % of the re-reading; the nine readings changed the class of 8 of them.)"""
    doubt = probs.max(axis=1) < recheck_below
    if cr is not None:
        doubt &= ~bare_board(probs.argmax(axis=1), cr, doubt)
    doubtful = np.flatnonzero(doubt)
    if len(doubtful) == 0:
        return probs
    moved = moved_crops(board, doubtful, SHIFTS)
    turned = np.concatenate([oriented(m, k) for m, k in
                             zip(moved, ORIENTATIONS, strict=True)])
    readings = classifier.probabilities(turned, np.tile(doubtful, len(SHIFTS)))
    out = probs.copy()
    out[doubtful] = (probs[doubtful] + readings.reshape(len(SHIFTS), len(doubtful), -1)
                     .sum(axis=0)) / (len(SHIFTS) + 1)
    return out


def moved_readings(classifier, board: np.ndarray, cells: np.ndarray, shifts: np.ndarray
                   ) -> MovedReadings:
    """The network's readings of ``cells`` from crops of ``board`` moved by each of
    ``shifts`` (one call; none for no cell)."""
    cells = np.asarray(cells, np.intp)
    if len(cells) == 0:
        return MovedReadings(cells, np.zeros((len(shifts), 0, 8)))
    moved = moved_crops(board, cells, shifts).reshape(-1, CROP, CROP)
    readings = classifier.probabilities(moved, np.tile(cells, len(shifts)))
    return MovedReadings(cells, readings.reshape(len(shifts), len(cells), -1))


def evidence_of(crops: np.ndarray, probs: np.ndarray, board_sharpness: float,
                orientation_known: bool = True, adaptation=None) -> Evidence:
    """The evidence of a board's 193 ``crops`` and the network's probabilities ``probs``
    (as steadied), before any re-reading from moved crops: the classical pip count of
    every cell the decision may read as a tile (its best class other than "occluded" is
    one: raising the odds of "empty" or giving away the "occluded" share never makes a
    tile of another cell), each middle's brightness, and the crops' sharpness in their
    weakest direction. ``adaptation``: a table's own tiles (``tile_adapt``), whose count
    table the decision applies."""
    countable = probs[:, :OCCLUDED].argmax(axis=1) > 0
    table = None
    if adaptation is not None and adaptation.adapted and adaptation.counts is not None:
        table = adaptation.counts
    return Evidence(
        probabilities=probs, pip_counts=count_all(crops, countable),
        too_dark=too_dark_for_a_tile(crops),
        middle_brightness=middle_brightness(crops), sharpness=float(board_sharpness),
        streak_sharpness=weakest_direction_sharpness(crops),
        orientation_known=bool(orientation_known), count_table=table,
        count_seen=adaptation.count_seen if table is not None else 1.0)


def with_rereads(evidence: Evidence, classifier, board: np.ndarray, recentre: np.ndarray,
                 beside_hand: np.ndarray, config: ReaderConfig) -> Evidence:
    """``evidence`` with the network's readings of the cells ``recentre`` from crops
    moved ``recentre_shift`` pixels, and of the cells ``beside_hand`` from crops moved
    away from a hand: first the farther moves, then the nearer ones only for the cells
    one of those saw clear of the hand (its "occluded" below ``beside_hand_clear_below``;
    the others are read no nearer)."""
    near_shifts, far_shifts = beside_hand_shifts(config)
    recentred = moved_readings(classifier, board, recentre, recentre_shifts(config))
    far = moved_readings(classifier, board, beside_hand, far_shifts)
    clear = (far.readings[:, :, OCCLUDED] < config.beside_hand_clear_below).any(axis=0)
    near = moved_readings(classifier, board, far.cells[clear], near_shifts)
    return replace(evidence, recentred=recentred, beside_hand_far=far, beside_hand_near=near)


__all__ = ["MEASURE_FIELDS", "ORIENTATIONS", "SHIFTS", "beside_hand_shifts", "evidence_of",
           "measure_settings", "moved_readings", "recentre_shifts", "steadied",
           "with_rereads"]
