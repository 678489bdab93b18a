"""The board's dark border as a check on a grid fit that is whole cells off.

The grid is periodic, so a fit can lock onto the right lines two to four cells away
from the board, hanging over the table on two sides (line contrast cannot see this; the
phase check is fooled when the table beyond is blank). Around the real grid the board
has a dark border, so just outside a right fit it is dark on all four sides. A fit
whose outside is bright on one side of each axis, clearly brighter than on the other
side, hangs over a bright table there: the board lies the other way. A hand or sleeve
over the border brightens it too, but rarely on two sides at once, and a moved grid is
only taken when it finds dark border all round (``find_board.onto_the_board``).

A fit off along one axis only (bright beyond one side, dark opposite, the other axis
dark: on the real board's print, where the layout's arms hang over the table while the
marble around the grid stays dark) is moved along that axis (``shifts_along_one_axis``);
since a sleeve over one side looks the same, the moved grid must also have clearer lines
than the fit.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..geometry import GridModel
from ..quantile import percentile

#: rectified pixels per cell for the check (cheap: 170 x 170 pixels)
PPC = 10
#: the strip sampled outside each side of the grid (cells out from the outer line), and
#: the cells left out at each end of a side (the cut corners of the layout)
STRIP = (0.15, 0.45)
SIDE_TRIM = 2.0
#: brightness (board bright level = 1) above which a strip is not dark board border
BRIGHT = 0.6
#: a bright side must be this much brighter than the side opposite
SKEW = 0.15
#: whole-cell shifts tried towards the board along each axis
MAX_SHIFT = 4


def border_brightness(grey: np.ndarray, model: GridModel) -> tuple[float, ...]:
    """Median brightness just outside the grid on its top, bottom, left and right
    side, relative to the bright level (98th percentile) of the grid inside."""
    xy = model.rectify_map(PPC, -1.0, -1.0, 16.0, 16.0)
    r = cv2.remap(grey, xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                  borderValue=0).astype(np.float32)
    inside = r[PPC:-PPC:3, PPC:-PPC:3]
    r *= 1.0 / max(float(percentile(inside, 98)), 1.0)
    a, b = int(round((1 - STRIP[1]) * PPC)), int(round((1 - STRIP[0]) * PPC))
    n = r.shape[0]
    lo, hi = int(round((1 + SIDE_TRIM) * PPC)), int(round((16 - SIDE_TRIM) * PPC))
    strips = (r[a:b, lo:hi], r[n - b:n - a, lo:hi], r[lo:hi, a:b], r[lo:hi, n - b:n - a])
    return tuple(float(np.median(s)) for s in strips)


def _direction(near: float, far: float) -> int:
    """+1 when the ``near`` side (top or left) hangs over bright table, -1 for the far
    side, 0 when neither does clearly."""
    if max(near, far) <= BRIGHT or abs(near - far) <= SKEW:
        return 0
    return 1 if near > far else -1


def shifts_towards_board(sides: tuple[float, ...]) -> list[tuple[int, int]]:
    """Whole-cell shifts (du, dv) of the grid to try when the fit hangs over bright
    table on two adjacent sides (one per axis); empty otherwise."""
    top, bottom, left, right = sides
    su, sv = _direction(left, right), _direction(top, bottom)
    if su == 0 or sv == 0:
        return []
    return [(su * du, sv * dv) for du in range(1, MAX_SHIFT + 1)
            for dv in range(1, MAX_SHIFT + 1)]


def shifts_along_one_axis(sides: tuple[float, ...]) -> list[tuple[int, int]]:
    """Whole-cell shifts (du, dv) along one axis when the fit hangs over bright table on
    one side of that axis only and neither side of the other axis is clearly bright;
    empty otherwise (``shifts_towards_board`` covers two sides)."""
    top, bottom, left, right = sides
    su, sv = _direction(left, right), _direction(top, bottom)
    if su and not sv and max(top, bottom) <= BRIGHT:
        return [(su * d, 0) for d in range(1, MAX_SHIFT + 1)]
    if sv and not su and max(left, right) <= BRIGHT:
        return [(0, sv * d) for d in range(1, MAX_SHIFT + 1)]
    return []


def dark_all_round(sides: tuple[float, ...]) -> bool:
    return max(sides) <= BRIGHT


__all__ = ["border_brightness", "dark_all_round", "shifts_along_one_axis",
           "shifts_towards_board"]
