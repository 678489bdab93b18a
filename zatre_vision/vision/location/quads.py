"""Quadrilaterals from outlines: corner order and one straight line per side."""

from __future__ import annotations

import cv2
import numpy as np


def order_corners(quad: np.ndarray) -> np.ndarray:
    """TL, TR, BR, BL: clockwise on screen, top edge the one nearest the image top."""
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]          # clockwise on screen (y down)
    mids = [(q[i, 1] + q[(i + 1) % 4, 1]) / 2 for i in range(4)]
    top = int(np.argmin(mids))
    return np.roll(q, -top, axis=0)


def quad_from_lines(contour: np.ndarray, box: np.ndarray) -> np.ndarray | None:
    """Fit one robust line per side of ``box`` to the outline points near that side."""
    lines = []
    for i in range(4):
        a, b = box[i], box[(i + 1) % 4]
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 5:
            return None
        d /= length
        n = np.array([-d[1], d[0]])
        rel = contour - a
        along = rel @ d
        dist = np.abs(rel @ n)
        sel = (dist < 0.08 * length) & (along > 0.1 * length) & (along < 0.9 * length)
        if sel.sum() < 8:
            return None
        vx, vy, x0, y0 = cv2.fitLine(contour[sel].astype(np.float32), cv2.DIST_HUBER, 0, 0.01,
                                     0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        t = np.linalg.solve(m, p2 - p1)
        out.append(p1 + d1 * t[0])
    return np.array(out)
