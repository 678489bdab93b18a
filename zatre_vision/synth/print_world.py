"""A world of board prints: a new, procedurally varied print for every board drawn.

Five named prints are too small a world for a sixth: a board finder trained on them
finds most boards of a print it knows and few of one it does not. ``sample_print``
draws a print of the same 193-cell grid from wide ranges:

- the cells' surface: marble (any colour), flat, or wood grain; dark, mid-tone or light;
- the x2 cells: lighter, darker, or another hue than the rest (never their twin);
- the start cell: a colour of its own, or the x2 cells' look;
- grid lines: width, and a colour (light, dark or tinted);
- the border: the cells' surface, or a colour of its own, with art on it (a frame
  line, a band) or none;
- a logo of varied text, place, size and colour, or none; folds or none.

The held-out prints (``HELD_OUT_PRINTS``: never drawn in training or fitting) stay
out of this world too: a draw that comes near one of them (``near_held_out``) is drawn
again. In ``BoardConfig.prints`` the name ``WORLD`` stands for a print of this world,
a new one for every board variant.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from .board_art import HELD_OUT_PRINTS, BoardPrint

#: the name of a print of this world in ``BoardConfig.prints``
WORLD = "world"

#: logos printed on editions and their like (the renderer's font draws them)
LOGO_TEXTS = ("ZATRE", "Zatre", "ZATRE", "ZATRE CLASSIC", "ZATRE DELUXE", "Z", "SPIEL",
              "ZAHLEN", "10 11 12")
#: where a logo may sit: its rows (v0, v1) in grid units, above the grid or below it
_LOGO_PLACES = ((-0.85, -0.1), (15.1, 15.9))

#: a draw nearer than this to a held-out print in every colour (BGR distance, 0-255)
#: and of the same surface is drawn again
HELD_OUT_MARGIN = 60.0


def _hsv_bgr(h: float, s: float, v: float) -> tuple[float, float, float]:
    """BGR 0-255 from hue 0-360, saturation and value 0-1."""
    c = v * s
    x = c * (1 - abs((h / 60.0) % 2 - 1))
    m = v - c
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][int(h // 60) % 6]
    return (255 * (b + m), 255 * (g + m), 255 * (r + m))


def _colour(rng: np.random.Generator, value: tuple[float, float],
            saturation: tuple[float, float] = (0.0, 0.8)) -> tuple[float, float, float]:
    return _hsv_bgr(float(rng.uniform(0, 360)), float(rng.uniform(*saturation)),
                    float(rng.uniform(*value)))


def _level(bgr: Iterable[float]) -> float:
    b, g, r = bgr
    return 0.114 * b + 0.587 * g + 0.299 * r


class Tone(NamedTuple):
    """One tone of the cells: its share of the world, the value (HSV) of plain or
    marble cells and of wood, and how often the x2 cells are lighter, darker or of
    another hue."""

    share: float
    value: tuple[float, float]
    wood_value: tuple[float, float]
    looks: tuple[float, float, float]


#: Most editions print dark cells under light x2 cells; a mid tone (a wood-grain print,
#: half as bright as its cream x2 cells) fills the gap between dark and light, which the
#: world left nearly empty before session 39
TONES = {
    "dark": Tone(0.65, (0.02, 0.3), (0.12, 0.4), (0.7, 0.1, 0.2)),
    "mid": Tone(0.15, (0.3, 0.6), (0.35, 0.65), (0.6, 0.2, 0.2)),
    "light": Tone(0.2, (0.6, 0.95), (0.5, 0.85), (0.2, 0.6, 0.2)),
}


def _draw(rng: np.random.Generator) -> BoardPrint:
    tone = TONES[str(rng.choice(list(TONES), p=[t.share for t in TONES.values()]))]
    surface = str(rng.choice(["marble", "plain", "wood"], p=[0.4, 0.35, 0.25]))
    if surface == "wood":
        cells = _hsv_bgr(float(rng.uniform(15, 45)), float(rng.uniform(0.35, 0.8)),
                         float(rng.uniform(*tone.wood_value)))
    else:
        cells = _colour(rng, tone.value, (0.0, 0.7))
    look = rng.choice(["lighter", "darker", "hue"], p=list(tone.looks))
    cell_level = _level(cells)
    if look == "lighter" and cell_level > 170:     # no room above: the other way
        look = "darker"
    elif look == "darker" and cell_level < 90:
        look = "lighter"
    if look == "lighter":
        x2 = float(rng.uniform(max(cell_level + 80, 150), 252))
    elif look == "darker":
        x2 = float(rng.uniform(5, max(6, cell_level - 80)))
    else:                                           # another hue, near the same level
        x2 = float(np.clip(cell_level + rng.uniform(-40, 40), 10, 245))
    tint = (0.0, 0.0, 0.0)
    if look == "hue" or rng.random() < 0.25:
        hue = _hsv_bgr(float(rng.uniform(0, 360)), 1.0, 1.0)
        strength = float(rng.uniform(40, 110) if look == "hue" else rng.uniform(10, 40))
        tint = tuple(strength * (c / 255.0 - 0.5) for c in hue)
    spread = float(rng.uniform(4, 20))
    start = (_colour(rng, (0.5, 1.0), (0.5, 1.0)) if rng.random() < 0.85
             else tuple(float(np.clip(x2 + t, 0, 255)) for t in tint))
    line_mid = float(rng.choice([rng.uniform(150, 245), rng.uniform(20, 110)]))
    line_spread = float(rng.uniform(5, 30))
    border = None
    if rng.random() < 0.55:
        border = _colour(rng, (0.05, 0.95), (0.0, 0.8))
    logo = None
    if rng.random() < 0.7:
        text = str(rng.choice(LOGO_TEXTS))
        v0, v1 = _LOGO_PLACES[int(rng.integers(len(_LOGO_PLACES)))]
        width = float(np.clip(rng.uniform(0.6, 1.1) * len(text), 1.0, 12.0))
        u0 = float(rng.uniform(-0.6, 15.6 - width))
        logo = (text, (u0, v0, u0 + width, v1), _colour(rng, (0.3, 1.0), (0.0, 1.0)))
    return BoardPrint(
        cells=surface, cell_bgr=tuple(float(c) for c in cells),
        light_level=(max(0.0, x2 - spread), min(255.0, x2 + spread)), light_tint=tint,
        start_bgr=tuple(float(c) for c in start),
        line_level=(max(0.0, line_mid - line_spread), min(255.0, line_mid + line_spread)),
        line_width=float(rng.uniform(0.012, 0.09)),
        line_tint=tuple(float(c) for c in rng.uniform(-35, 35, 3)) if rng.random() < 0.4
        else (0.0, 0.0, 0.0),
        border_bgr=border, logo=logo, folds=bool(rng.random() < 0.6),
        border_art=str(rng.choice(["none", "frame", "band"], p=[0.5, 0.3, 0.2])),
        art_bgr=_colour(rng, (0.1, 1.0), (0.0, 1.0)))


def _signature(p: BoardPrint) -> tuple[str, np.ndarray]:
    x2 = np.clip(np.mean(p.light_level) + np.asarray(p.light_tint), 0, 255)
    cells = np.asarray(p.cell_bgr, np.float64)
    border = cells if p.border_bgr is None else np.asarray(p.border_bgr, np.float64)
    return p.cells, np.stack([cells, x2, border])


def near_held_out(p: BoardPrint, held_out: Iterable[BoardPrint] | None = None,
                  margin: float = HELD_OUT_MARGIN) -> bool:
    """``p`` has a held-out print's surface and each of its colours (the cells', the
    x2 cells', the border's) within ``margin``."""
    surface, colours = _signature(p)
    for q in HELD_OUT_PRINTS.values() if held_out is None else held_out:
        q_surface, q_colours = _signature(q)
        if surface == q_surface and np.all(np.linalg.norm(colours - q_colours, axis=1) < margin):
            return True
    return False


def sample_print(rng: np.random.Generator) -> BoardPrint:
    """A print of the world, never near a held-out print (see the module's doc)."""
    while True:
        p = _draw(rng)
        if not near_held_out(p):
            return p
