"""Class probabilities, crops and evidence for all 193 cells, for tests of the reader's
decision (``reading.decide.decide``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from zatre_vision.vision.geometry import CELL_NAMES, IS_LIGHT
from zatre_vision.vision.reader import ReaderConfig
from zatre_vision.vision.reading.cells import CROP
from zatre_vision.vision.reading.classify import CLASSES
from zatre_vision.vision.reading.decide import decide
from zatre_vision.vision.reading.evidence import Evidence
from zatre_vision.vision.reading.measure import evidence_of
from zatre_vision.vision.reading.read_result import ReadResult

DARK = np.flatnonzero(~IS_LIGHT)
#: a sure tile on a dark cell, away from the doubtful ones of ``frame_with_doubts``
TILE = int(DARK[-1])
#: a reading no bar accepts: two classes at half each
TORN = {1: 0.5, 2: 0.5}


def prob_row(**p: float) -> np.ndarray:
    """One cell's class probabilities by class name (``_1`` for "1", ``empty``,
    ``occluded``), the other classes 0."""
    out = np.zeros(len(CLASSES), np.float32)
    for name, v in p.items():
        out[CLASSES.index(name.lstrip("_"))] = v
    return out


def cell_probs(rows: dict[int, dict[int, float]]) -> np.ndarray:
    """Every cell surely empty, except the cells in ``rows`` (index -> {class: p})."""
    p = np.zeros((len(CELL_NAMES), len(CLASSES)), np.float32)
    p[:, 0] = 1.0
    for i, row in rows.items():
        p[i] = 0.0
        for c, v in row.items():
            p[i, c] = v
    return p


def frame_with_doubts(doubtful: int, row: dict[int, float] = TORN) -> np.ndarray:
    """The first ``doubtful`` dark cells read as ``row``, a sure 4 on TILE, the rest
    surely empty."""
    rows = {int(i): row for i in DARK[:doubtful]}
    rows[TILE] = {4: 0.97, 0: 0.03}
    return cell_probs(rows)


def grained_dark_crops() -> np.ndarray:
    """A dark, sharply grained board: cells read empty there are bare board, sure at
    any probability, and the photo is not streaked (``weakest_direction_sharpness``)."""
    return np.random.default_rng(7).uniform(0.2, 0.4, (len(CELL_NAMES), CROP, CROP)
                                            ).astype(np.float32)


#: the decision's rules at their defaults (``ReaderConfig()``), whatever numbers the
#: committed model's card has fitted: for tests of the rules, not of the fitted values
RULES = ReaderConfig()


def evidence(crops: np.ndarray, probs: np.ndarray, config: ReaderConfig = RULES,
             blurred: bool = False, clear: bool = False, orientation_known: bool = True
             ) -> Evidence:
    """The evidence of a board whose crops are ``crops`` and whose cells the network
    reads as ``probs`` (``measure.evidence_of``: the pip counts, brightness and streak
    measured on the crops), on a photo that ``config`` takes as ``blurred``, clearly
    sharp (``clear``) or neither; no moved crop read."""
    if blurred:
        sharp = config.sharp_enough / 2
    elif clear:
        sharp = config.clear_sharpness + 0.1
    else:
        sharp = (config.sharp_enough + config.clear_sharpness) / 2
    return evidence_of(crops, probs, sharp, orientation_known)


def decided(crops: np.ndarray, probs: np.ndarray, config: ReaderConfig = RULES,
            blurred: bool = False, clear: bool = False) -> ReadResult:
    """``decide`` on ``evidence(crops, probs, ...)`` with ``config``'s re-reading passes
    off (they need moved crops, and have tests of their own: test_recentred.py,
    test_beside_hand.py): the cells as the rules read them."""
    rules = replace(config, pass_recentred=False, pass_beside_hand=False)
    return decide(evidence(crops, probs, rules, blurred, clear), rules)
