"""Which way round is the board? Read from its print: the yellow publisher's label
(PERI) fills the cut-off bottom-right corner of the grid, on the real board and the
rendered one.

Without it the contract's rule labels the corners (the top edge is the one nearest the
top of the image, see ``locate.upright``), which is ambiguous when the board is turned
about 45 degrees. When the label is clearly seen in exactly one of the four cut
corners, the corners are labelled so that it is bottom right; when a hand covers it,
or the light makes everything yellow, the rule stands, except where the rule itself is
a toss-up: a board turned about 45 degrees, whose two candidate top edges lie within
``AMBIGUOUS_DEG`` of each other. There the silver "ZATRE" logo in the top-left cut corner
(bright, not yellow) decides between the two, when it clearly shows in one of them.

Only a print that has a label (or a logo) can be turned by it: a yellow hand or lamp
light in one cut corner of a print without one looks like the label. So once the proof
has named the print, ``orientation`` looks only for the marks that print has; without
any, the rule labels the corners. Where the rule is a toss-up and no mark decided, the
corners are a guess (``Oriented.known`` False): the reader says so rather than read a
board that may be a quarter turn off.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from ..geometry import GridModel
from .locate import EDGE_POINTS, relabelled, top_edge_angles, upright

#: sample points inside the label, grid units (cells (14, 13) .. (14, 14) of the cut
#: bottom-right corner)
_U, _V = np.meshgrid(np.linspace(14.25, 14.85, 4), np.linspace(13.35, 14.85, 6))
LABEL_POINTS = np.stack([_U.ravel(), _V.ravel()], axis=1)
#: yellowness (min(R, G) - B) / min(R, G) the label reaches at least (it is ~0.9 under
#: neutral light; cream tiles and marble stay below ~0.3 even under warm light)
MIN_YELLOW = 0.4
#: and by this much more than in any other corner
MIN_LEAD = 0.25
#: sample points just beside the label, on the board (grid units: the cells left of it,
#: column 13, and above it, row 12): the label is bounded there, a hand or a lamp's glow
#: that looks as yellow is not
_BU, _BV = np.meshgrid(np.array([13.5]), np.linspace(13.35, 14.85, 6))
_AU, _AV = np.meshgrid(np.linspace(14.25, 14.85, 4), np.array([12.5]))
BESIDE_LABEL_POINTS = np.concatenate([np.stack([_BU.ravel(), _BV.ravel()], axis=1),
                                      np.stack([_AU.ravel(), _AV.ravel()], axis=1)])
#: beside the label, no print's cells, tiles or border reach this yellowness (the bar
#: under which cream tiles and marble stay, even under warm light)
BESIDE_MAX_YELLOW = 0.3


#: sample points on the logo (grid units: the top-left cut corner, cells (0, 0) .. (3, 0)
#: and the margin just above them)
_LU, _LV = np.meshgrid(np.linspace(-0.35, 3.25, 25), np.linspace(-0.35, 0.3, 5))
LOGO_POINTS = np.stack([_LU.ravel(), _LV.ravel()], axis=1)
#: the logo's letters are brighter than this share of the grid lines' level ...
LOGO_BRIGHT = 0.55
#: ... and less yellow than this (the label, in the opposite corner, is bright too)
LOGO_MAX_YELLOW = 0.3
#: the two candidate top edges are within this many degrees of each other: the rule is
#: a toss-up there
AMBIGUOUS_DEG = 15.0
#: the logo must cover this much more of its spot in the other candidate to win
MIN_LOGO_LEAD = 0.3


def _samples(image: np.ndarray, px: np.ndarray) -> np.ndarray:
    """BGR (or grey) values of ``image`` at image points ``px`` (N x 2; 0 beyond it)."""
    px = px.astype(np.float32)
    out = cv2.remap(image, px[:, 0].reshape(1, -1), px[:, 1].reshape(1, -1),
                    cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out.reshape(len(px), -1).astype(np.float64)


def _yellowness_of(bgr: np.ndarray) -> np.ndarray:
    rg = np.minimum(bgr[:, 1], bgr[:, 2])
    return (rg - bgr[:, 0]) / np.maximum(rg, 16.0)


def logo_cover(image: np.ndarray, model: GridModel, turns: tuple[int, ...] = (0, 1, 2, 3)
               ) -> dict[int, float]:
    """For each labelling in ``turns`` (quarter turns, as ``relabelled``), the share of
    the logo's spot that is bright and not yellow: the logo's silver letters, in the
    right labelling."""
    level = float(np.percentile(_samples(image, model.to_image(EDGE_POINTS)).mean(axis=1), 90))
    out = {}
    for s in turns:
        bgr = _samples(image, relabelled(model, s).to_image(LOGO_POINTS))
        bright = bgr.mean(axis=1) > LOGO_BRIGHT * max(level, 1.0)
        out[s] = float(np.mean(bright & (_yellowness_of(bgr) < LOGO_MAX_YELLOW)))
    return out


def by_logo(image: np.ndarray, model: GridModel) -> GridModel:
    """``model`` (labelled by the rule, ``locate.upright``) relabelled to the other
    candidate top edge when the two are within ``AMBIGUOUS_DEG`` (or both may be upright,
    ``rule_is_a_toss_up``) and the logo clearly shows top left only in that one (a BGR
    frame); otherwise ``model`` unchanged."""
    if image.ndim != 3:
        return model
    angles = top_edge_angles(model)
    order = [int(s) for s in np.argsort(angles)]
    if order[0] != 0:
        return model                  # not the rule's labelling: not a tie to break
    other = order[1]
    if angles[other] - angles[0] >= AMBIGUOUS_DEG and not rule_is_a_toss_up(model):
        return model
    cover = logo_cover(image, model, (0, other))
    if cover[other] - cover[0] < MIN_LOGO_LEAD:
        return model
    return relabelled(model, other)


def yellowness(image: np.ndarray, model: GridModel) -> np.ndarray:
    """Yellowness of the label area for each of the four labellings (quarter turns); 0
    where the board just beside it is yellow too (the label is bounded; a yellow hand
    or glow spreads past it)."""
    out = np.zeros(4)
    h, w = image.shape[:2]
    for s in range(4):
        px = relabelled(model, s).to_image(LABEL_POINTS).astype(np.float32)
        inside = (px[:, 0] >= 0) & (px[:, 0] < w - 1) & (px[:, 1] >= 0) & (px[:, 1] < h - 1)
        if inside.mean() < 0.75:
            continue
        beside = relabelled(model, s).to_image(BESIDE_LABEL_POINTS)
        if np.median(_yellowness_of(_samples(image, beside))) >= BESIDE_MAX_YELLOW:
            continue          # yellow beyond the label's bounds: a hand, not the label
        out[s] = float(np.median(_yellowness_of(_samples(image, px[inside]))))
    return out


def by_print(image: np.ndarray, model: GridModel) -> GridModel:
    """``model`` relabelled so the yellow label is bottom right, when it is clearly seen
    (a BGR frame); otherwise, where the rule is a toss-up, by the logo (``by_logo``);
    otherwise ``model`` unchanged. (The locator's labelling of its candidates, before
    the print is known; once it is, ``orientation``.)"""
    if image.ndim != 3:
        return model
    y = yellowness(image, model)
    order = np.argsort(-y)
    if y[order[0]] < MIN_YELLOW or y[order[0]] - y[order[1]] < MIN_LEAD:
        return by_logo(image, model)
    return relabelled(model, int(order[0]))


class Oriented(NamedTuple):
    """The corners' labelling and what decided it: "label" or "logo" (the print's
    marks), "rule" (the top edge nearest the top of the image, ``locate.upright``) or
    "toss-up" (the rule, where two edges are about as near: a guess)."""
    model: GridModel
    by: str

    @property
    def known(self) -> bool:
        return self.by != "toss-up"


#: the contract's rule: the board is upright within this many degrees (its top edge runs
#: within it of left to right); the renderer's truth keeps to it too
UPRIGHT_DEG = 45.0
#: a fit's corners lie a tenth of a cell or so from the true ones, which turns a 15-cell
#: edge by about half a degree: an edge within twice that of the bar may be on either side
FIT_SLACK_DEG = 1.0


def rule_is_a_toss_up(model: GridModel) -> bool:
    """Two labellings may both be upright within ``UPRIGHT_DEG`` (a board turned about 45
    degrees, or one seen so slanted that two of its edges run within 45 degrees of left
    to right): the upright rule cannot say which is the board's top edge."""
    angles = np.sort(top_edge_angles(model))
    return bool(angles[1] < UPRIGHT_DEG + FIT_SLACK_DEG)


def orientation(image: np.ndarray, model: GridModel, label: bool, logo: bool) -> Oriented:
    """``model`` labelled by the marks a print has (``label``: the yellow label bottom
    right; ``logo``: the logo top left, where the rule is a toss-up), seen in ``image``
    (a BGR frame); where no mark decides, by the rule (``locate.upright``). A labelling
    no mark decided, where the rule is a toss-up, is ``known`` False."""
    if image.ndim == 3 and label:
        y = yellowness(image, model)
        order = np.argsort(-y)
        if y[order[0]] >= MIN_YELLOW and y[order[0]] - y[order[1]] >= MIN_LEAD:
            return Oriented(relabelled(model, int(order[0])), "label")
    ruled = upright(model)
    if image.ndim == 3 and logo:
        turned = by_logo(image, ruled)
        if turned is not ruled:
            return Oriented(turned, "logo")
    return Oriented(ruled, "toss-up" if rule_is_a_toss_up(ruled) else "rule")
