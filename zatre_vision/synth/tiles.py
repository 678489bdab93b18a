"""Tiles: rounded squares with dice pips, drawn as top-face sprites on the board plane.

A tile's pose is its value, a quarter-turn ``k`` (0..3, counter-clockwise as seen from
above; it matters for 2, 3 and 6), a small extra angle and an offset within its cell.
The top face is shifted by parallax (the tile has a height), the sides are filled as the
hull between foot and top, and the shadow is accumulated into a separate mask.

``HELD_OUT_STYLES`` are tile sets of other makers that training never shows (other pip
spacing, size, shape and finish, coloured pips, warmer or greyer bodies, other tile
sizes and thickness): ``TileConfig(style=NAME)`` renders every photo with one of them,
so that adapting the reader to a table's own set (``vision/reading/tile_adapt.py``) is
measured on tiles the base model never saw.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .config import TileConfig

#: Pip centres in [-1, 1] tile coordinates (x right, y down), standard dice layout.
_A = 0.52
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-_A, -_A), (_A, _A)),
    3: ((-_A, -_A), (0, 0), (_A, _A)),
    4: ((-_A, -_A), (_A, -_A), (-_A, _A), (_A, _A)),
    5: ((-_A, -_A), (_A, -_A), (0, 0), (-_A, _A), (_A, _A)),
    6: ((-_A, -_A), (-_A, 0), (-_A, _A), (_A, -_A), (_A, 0), (_A, _A)),
}


@dataclass(frozen=True)
class TilePose:
    value: int
    quarter: int          # 0..3 quarter turns
    angle_deg: float      # extra small turn
    du: float             # offset within the cell, grid units
    dv: float

    @property
    def total_angle(self) -> float:
        return 90.0 * self.quarter + self.angle_deg


@dataclass(frozen=True)
class TileStyle:
    colour: tuple[float, float, float]
    ceramic: bool
    size: float           # side in cells
    radius: float         # corner radius, fraction of side
    height: float         # thickness in cells
    pip_radius: float
    pip_colour: tuple[int, int, int]
    #: how far the pips sit from the middle (the training sets: 0.82 of the standard
    #: layout's spread)
    pip_spacing: float = 0.82
    #: "round", "square" or "ring" (a printed outline)
    pip_shape: str = "round"
    #: "flat" (filled, as in training), "hollow" (drilled: a dark rim on the lit
    #: side, a bright lip opposite) or "printed" (thin ink: soft edges, not opaque)
    pip_finish: str = "flat"
    #: a colour per value (1..6, BGR) instead of ``pip_colour``: coloured pips
    value_colours: tuple[tuple[int, int, int], ...] | None = None


def _held_out(colour, size, radius, height, pip_radius, pip_colour, spacing, shape="round",
              finish="flat", value_colours=None, ceramic=False) -> dict:
    return dict(colour=colour, ceramic=ceramic, size=size, radius=radius, height=height,
                pip_radius=pip_radius, pip_colour=pip_colour, pip_spacing=spacing,
                pip_shape=shape, pip_finish=finish, value_colours=value_colours)


#: Named tile sets the base model never saw (no training range covers them): the body
#: colour (BGR), size and thickness in cells, pip radius (fraction of the side),
#: spacing, shape and finish. ``held_out_style`` jitters each a little per photo.
HELD_OUT_STYLES: dict[str, dict] = {
    # warm yellowed bone, big drilled brown pips spread to the edges, thick tiles
    "bone-hollow": _held_out((150, 198, 228), 0.86, 0.18, 0.32, 0.12, (35, 50, 75), 0.98,
                             finish="hollow"),
    # grey plastic club set: small flat black pips close together, small thin tiles
    "grey-small": _held_out((182, 186, 184), 0.76, 0.10, 0.11, 0.06, (20, 20, 20), 0.62),
    # ivory tiles with a pale colour for each value (as some domino sets), printed flat:
    # in grey the pips are faint
    "coloured": _held_out((222, 236, 244), 0.84, 0.12, 0.2, 0.1, (0, 0, 0), 0.82,
                          value_colours=((40, 190, 230), (200, 160, 90), (120, 200, 120),
                                         (190, 140, 200), (110, 170, 240), (170, 190, 80))),
    # cream, big square printed pips packed close, large tiles with sharp corners
    "square-pips": _held_out((200, 226, 238), 0.92, 0.05, 0.22, 0.13, (45, 35, 30), 0.66,
                             shape="square", ceramic=True),
    # bright white, tiny dark blue pips spread to the corners, thin tiles
    "tiny-wide": _held_out((240, 242, 240), 0.82, 0.12, 0.12, 0.055, (90, 30, 20), 1.0),
    # white tiles with thin printed rings (outlined pips) in blue, spread wide
    "ring-pips": _held_out((236, 238, 238), 0.84, 0.14, 0.18, 0.1, (150, 70, 30), 0.95,
                           shape="ring"),
}


#: ``TileConfig.style`` for a photo set whose every photo shows one of the held-out
#: sets, picked per photo (``zatre bench vision --tiles held-out``)
EVERY_HELD_OUT = "held-out"


#: Tile sets of yet other makers, for FITTING the adaptation's own constants
#: (``python -m zatre_vision.training.fit_tile_adaptation``) and never used by ``zatre bench adapt``, so
#: that the benchmark's HELD_OUT_STYLES judge constants not chosen on them.
FITTING_STYLES: dict[str, dict] = {
    # beige wood, tiny drilled dark pips huddled in the middle, thick tiles
    "beige-drilled": _held_out((165, 200, 222), 0.84, 0.16, 0.28, 0.055, (30, 40, 60), 0.6,
                               finish="hollow"),
    # bright white plastic with orange pips spread wide: faint in grey
    "orange-pips": _held_out((236, 238, 240), 0.84, 0.12, 0.16, 0.095, (70, 140, 240),
                             0.95),
    # off-white, big black pips, large round-cornered tiles
    "big-round": _held_out((212, 224, 230), 0.9, 0.22, 0.2, 0.145, (25, 25, 25), 0.76),
    # pale green plastic with dark green outlined pips
    "green-rings": _held_out((198, 222, 204), 0.8, 0.12, 0.14, 0.085, (40, 90, 30), 0.86,
                             shape="ring"),
    # small white tiles printed with big grey square pips packed close
    "grey-squares": _held_out((232, 236, 236), 0.74, 0.08, 0.18, 0.11, (95, 95, 92), 0.6,
                              shape="square"),
}


def _named(name: str) -> dict:
    known = {**HELD_OUT_STYLES, **FITTING_STYLES}
    if name not in known:
        raise ValueError(f"unknown tile style {name!r} (known: {', '.join(known)})")
    return known[name]


def held_out_style(rng: np.random.Generator, name: str) -> TileStyle:
    """The held-out (or fitting-only) tile set ``name`` (``HELD_OUT_STYLES``,
    ``FITTING_STYLES``), jittered a little (by ``rng``): the same set under another lamp
    and camera is never exactly the same pixels."""
    d = dict(_named(name))
    colour = np.clip(np.asarray(d["colour"], np.float64) + rng.normal(0, 3.0, 3), 60, 255)
    d["colour"] = tuple(float(c) for c in colour)
    d["size"] = float(d["size"] * rng.uniform(0.98, 1.02))
    d["pip_radius"] = float(d["pip_radius"] * rng.uniform(0.95, 1.05))
    return TileStyle(**d)


#: Tile sets of other makers for TRAINING (``TileConfig.makers_probability``): each
#: photo's set is drawn from these wide ranges and redrawn while it lies near one of
#: ``HELD_OUT_STYLES`` (``held_out_distance`` below ``MAKER_MIN_DISTANCE``), so the
#: held-out sets stay unseen. Body colours (BGR): white, ivory, bone, grey, pale
#: wood, pale blue-grey; pip colours: dark inks and a few coloured ones.
MAKER_BODIES: tuple[tuple[int, int, int], ...] = (
    (244, 246, 246), (214, 232, 242), (160, 205, 232), (175, 180, 178), (150, 185, 215),
    (215, 205, 190), (200, 200, 200),
)
MAKER_PIP_COLOURS: tuple[tuple[int, int, int], ...] = (
    (20, 20, 20), (40, 45, 60), (30, 30, 120), (120, 40, 20), (30, 90, 30), (20, 40, 160),
    (60, 60, 60),
)
MAKER_RANGES: dict[str, tuple[float, float]] = {
    "size": (0.74, 0.94), "radius": (0.04, 0.2), "height": (0.1, 0.34),
    "pip_radius": (0.055, 0.135), "pip_spacing": (0.6, 1.0),
}
MAKER_SHAPES = (("round", 0.6), ("square", 0.2), ("ring", 0.2))
MAKER_FINISHES = (("flat", 0.5), ("hollow", 0.25), ("printed", 0.25))
MAKER_VALUE_COLOURS = 0.12   # share of sets with a colour per value
#: a training set differs from every held-out set by at least this much
#: (``held_out_distance``: about two attributes wholly different)
MAKER_MIN_DISTANCE = 2.0
#: the scale on which each continuous attribute counts as "wholly different"
_DISTANCE_SCALE = {"size": 0.08, "radius": 0.08, "height": 0.1, "pip_radius": 0.03,
                   "pip_spacing": 0.15, "colour": 60.0, "pip_colour": 80.0}


def held_out_distance(style: TileStyle, other: TileStyle | dict) -> float:
    """How unlike two tile sets are: per attribute 0 (same) .. 1 (wholly different),
    summed over the body colour, pip colour, size, corner radius, thickness, pip
    size and spacing (by ``_DISTANCE_SCALE``), pip shape, finish and coloured
    values (0 or 1 each)."""
    o = other if isinstance(other, dict) else style_fields(other)
    s = style_fields(style)
    d = 0.0
    for k in ("size", "radius", "height", "pip_radius", "pip_spacing"):
        d += min(1.0, abs(s[k] - o[k]) / _DISTANCE_SCALE[k])
    d += min(1.0, float(np.linalg.norm(np.subtract(s["colour"], o["colour"])))
             / _DISTANCE_SCALE["colour"])
    if bool(s["value_colours"]) != bool(o["value_colours"]):
        d += 1.0
    elif not s["value_colours"]:
        d += min(1.0, float(np.linalg.norm(np.subtract(s["pip_colour"], o["pip_colour"])))
                 / _DISTANCE_SCALE["pip_colour"])
    d += float(s["pip_shape"] != o["pip_shape"]) + float(s["pip_finish"] != o["pip_finish"])
    return d


def style_fields(style: TileStyle) -> dict:
    return {"colour": style.colour, "size": style.size, "radius": style.radius,
            "height": style.height, "pip_radius": style.pip_radius,
            "pip_spacing": style.pip_spacing, "pip_colour": style.pip_colour,
            "pip_shape": style.pip_shape, "pip_finish": style.pip_finish,
            "value_colours": style.value_colours}


def nearest_held_out(style: TileStyle) -> float:
    """``held_out_distance`` to the nearest of ``HELD_OUT_STYLES``."""
    return min(held_out_distance(style, d) for d in HELD_OUT_STYLES.values())


def _pick(rng: np.random.Generator, choices: tuple[tuple[str, float], ...]) -> str:
    p = np.array([w for _, w in choices])
    return choices[int(rng.choice(len(choices), p=p / p.sum()))][0]


def maker_style(rng: np.random.Generator) -> TileStyle:
    """A tile set of another maker for training (``MAKER_*``), never near a held-out
    set (redrawn while ``nearest_held_out`` is below ``MAKER_MIN_DISTANCE``)."""
    while True:
        body = np.asarray(MAKER_BODIES[int(rng.integers(len(MAKER_BODIES)))], np.float64)
        colour = tuple(float(c) for c in np.clip(body + rng.normal(0, 8.0, 3), 110, 255))
        r = {k: float(rng.uniform(*v)) for k, v in MAKER_RANGES.items()}
        value_colours = None
        if rng.random() < MAKER_VALUE_COLOURS:
            value_colours = tuple(tuple(int(c) for c in rng.integers(20, 170, 3))
                                  for _ in range(6))
        style = TileStyle(
            colour=colour, ceramic=bool(rng.random() < 0.35), size=r["size"],
            radius=r["radius"], height=r["height"], pip_radius=r["pip_radius"],
            pip_colour=MAKER_PIP_COLOURS[int(rng.integers(len(MAKER_PIP_COLOURS)))],
            pip_spacing=r["pip_spacing"], pip_shape=_pick(rng, MAKER_SHAPES),
            pip_finish=_pick(rng, MAKER_FINISHES), value_colours=value_colours)
        if nearest_held_out(style) >= MAKER_MIN_DISTANCE:
            return style


def sample_style(rng: np.random.Generator, cfg: TileConfig) -> TileStyle:
    """A tile style of the training ranges, or with ``cfg.style`` the named held-out
    set. Either takes the same draws from ``rng``, so a photo of a held-out set shows
    the same camera, light, board and sensor as with the training tiles."""
    if cfg.style == EVERY_HELD_OUT:
        drawn = sample_style(rng, replace(cfg, style="training"))
        names = sorted(HELD_OUT_STYLES)
        name = names[int(drawn.size * 1e9) % len(names)]
        jitter = np.random.default_rng([int(drawn.size * 1e9), int(drawn.height * 1e9)])
        return held_out_style(jitter, name)
    if cfg.style != "training":
        _named(cfg.style)
        drawn = sample_style(rng, replace(cfg, style="training"))
        jitter = np.random.default_rng([int(drawn.size * 1e9), int(drawn.height * 1e9)])
        return held_out_style(jitter, cfg.style)
    if cfg.makers_probability > 0 and rng.random() < cfg.makers_probability:
        return maker_style(rng)
    base = np.asarray(cfg.colours[int(rng.integers(len(cfg.colours)))], np.float64)
    colour = np.clip(base + rng.normal(0, cfg.colour_jitter, 3), 120, 255)
    return TileStyle(
        colour=tuple(float(c) for c in colour),
        ceramic=bool(rng.random() < cfg.ceramic_probability),
        size=float(rng.uniform(*cfg.size)),
        radius=float(rng.uniform(*cfg.corner_radius)),
        height=float(rng.uniform(*cfg.height)),
        pip_radius=float(rng.uniform(*cfg.pip_radius)),
        pip_colour=cfg.pip_colours[int(rng.integers(len(cfg.pip_colours)))],
    )


def sample_pose(rng: np.random.Generator, cfg: TileConfig, value: int) -> TilePose:
    return TilePose(value, int(rng.integers(4)), float(rng.uniform(*cfg.angle_deg)),
                    float(rng.uniform(*cfg.offset)), float(rng.uniform(*cfg.offset)))


class TileSprites:
    """Top-face sprites (BGR float32 + alpha) of one style at ``ppc`` pixels per cell."""

    def __init__(self, style: TileStyle, ppc: float):
        self.style = style
        self.side_px = style.size * ppc
        ss = 3
        n = int(np.ceil(self.side_px)) + 4
        self.n = n
        m = n * ss
        c = (m - 1) / 2.0
        half = self.side_px * ss / 2.0
        ys, xs = np.mgrid[0:m, 0:m].astype(np.float32)
        px, py = xs - c, ys - c
        r = style.radius * self.side_px * ss
        qx, qy = np.abs(px) - half + r, np.abs(py) - half + r
        sdf = (np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
               + np.minimum(np.maximum(qx, qy), 0) - r)          # < 0 inside
        alpha = np.clip(0.5 - sdf, 0, 1)
        bevel_w = (0.07 if style.ceramic else 0.11) * self.side_px * ss
        edge = np.clip(1 + sdf / bevel_w, 0, 1)                  # 1 at the rim, 0 inside
        # light from the top left: the top and left bevel brighter, bottom right darker
        gx, gy = np.sign(px) * (np.abs(px) > np.abs(py)), np.sign(py) * (np.abs(py) >= np.abs(px))
        slope = -(gx + gy) * 0.5
        shade = 1.0 + edge ** 1.5 * (0.12 * slope - 0.18)
        dome = 1.0 - 0.05 * ((px ** 2 + py ** 2) / (half ** 2))
        body = np.asarray(style.colour, np.float32)[None, None, :] * (shade * dome)[:, :, None]
        if style.ceramic:
            spec = np.exp(-(((px + 0.3 * half) ** 2 + (py + 0.35 * half) ** 2) / (0.35 * half) ** 2))
            body = body + 25.0 * spec[:, :, None]
        self._body = cv2.resize(body, (n, n), interpolation=cv2.INTER_AREA)
        self.alpha = cv2.resize(alpha, (n, n), interpolation=cv2.INTER_AREA)
        self._pips: dict[tuple[int, int], np.ndarray] = {}
        self._pip_masks: dict[int, np.ndarray] = {}
        self._m, self._c, self._half = m, c, half
        self._cache: dict[tuple[int, int], np.ndarray] = {}

    def _pip_mask(self, value: int) -> np.ndarray:
        if value not in self._pip_masks:
            m, c, half = self._m, self._c, self._half
            mask = np.zeros((m, m), np.float32)
            st = self.style
            rad = st.pip_radius * 2 * half
            for x, y in PIPS[value]:
                cx, cy = c + x * half * st.pip_spacing, c + y * half * st.pip_spacing
                centre = (int(round(cx * 16)), int(round(cy * 16)))
                if st.pip_shape == "square":
                    h = rad * 0.9
                    sq = np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h],
                                   [cx - h, cy + h]])
                    cv2.fillConvexPoly(mask, np.round(sq * 16).astype(np.int32), 1.0,
                                       cv2.LINE_AA, 4)
                elif st.pip_shape == "ring":
                    thick = max(1, int(round(rad * 0.3)))
                    cv2.circle(mask, centre, int(round((rad - thick / 2) * 16)), 1.0, thick,
                               cv2.LINE_AA, 4)
                else:
                    cv2.circle(mask, centre, int(round(rad * 16)), 1.0, -1, cv2.LINE_AA, 4)
            n = self.n
            self._pip_masks[value] = cv2.resize(mask, (n, n), interpolation=cv2.INTER_AREA)
        return self._pip_masks[value]

    def _pip_colour(self, value: int) -> np.ndarray:
        st = self.style
        colour = st.value_colours[value - 1] if st.value_colours else st.pip_colour
        return np.asarray(colour, np.float32)

    def face(self, value: int, quarter: int) -> np.ndarray:
        """BGR float32 top face for ``value`` turned by ``quarter`` quarter turns."""
        key = (value, quarter % 4)
        if key not in self._cache:
            pm = np.ascontiguousarray(np.rot90(self._pip_mask(value), quarter % 4))
            if self.style.pip_finish == "printed":
                pm = 0.8 * cv2.GaussianBlur(pm, (0, 0), max(0.5, 0.015 * self.side_px))
            pm = pm[:, :, None]
            pip = self._pip_colour(value)
            face = self._body * (1 - pm) + pip * pm
            if self.style.pip_finish == "hollow":
                # drilled pips, light from the top left: the hollow's upper-left wall is
                # in shadow, its lower-right lip catches the light
                d = max(1, int(round(self.style.pip_radius * self.side_px * 0.5)))
                lip = np.roll(pm, (d, d), axis=(0, 1)) * (1 - pm)
                wall = pm * (1 - np.roll(pm, (d, d), axis=(0, 1)))
                face = face * (1 + 0.25 * lip) * (1 - 0.45 * wall)
            self._cache[key] = np.ascontiguousarray(face, np.float32)
        return self._cache[key]


def _square(cx: float, cy: float, side: float, angle_deg: float) -> np.ndarray:
    a = np.deg2rad(angle_deg)
    ca, sa = np.cos(a), np.sin(a)
    h = side / 2
    pts = np.array([[-h, -h], [h, -h], [h, h], [-h, h]], np.float64)
    rot = np.array([[ca, sa], [-sa, ca]])
    return pts @ rot.T + [cx, cy]


def draw_shadow(shadow: np.ndarray, sprites: TileSprites, pose: TilePose,
                centre_px: tuple[float, float], shadow_px: tuple[float, float],
                shadow_scale: float) -> None:
    """Add a tile's cast shadow to ``shadow`` (1/``shadow_scale`` of the canvas size)."""
    foot = _square(centre_px[0], centre_px[1], sprites.side_px, pose.total_angle)
    sh = np.vstack([foot, foot + shadow_px]) / shadow_scale
    cv2.fillConvexPoly(shadow, cv2.convexHull(np.round(sh * 4).astype(np.int32)), 1.0,
                       cv2.LINE_AA, 2)


def draw_tile(canvas: np.ndarray, sprites: TileSprites, pose: TilePose,
              centre_px: tuple[float, float], top_shift_px: tuple[float, float],
              top_scale: float) -> None:
    """Draw one tile into ``canvas`` (float32 BGR, board plane).

    ``top_shift_px`` / ``top_scale`` place the top face where the camera sees it on the
    plane (parallax of the tile height); the sides fill the hull between foot and top.
    """
    st = sprites.style
    cx, cy = centre_px
    angle = pose.total_angle
    foot = _square(cx, cy, sprites.side_px, angle)
    top = _square(cx + top_shift_px[0], cy + top_shift_px[1], sprites.side_px * top_scale, angle)
    hull = cv2.convexHull(np.round(np.vstack([foot, top]) * 4).astype(np.int32))
    side_col = tuple(float(c) * 0.62 for c in st.colour)
    cv2.fillConvexPoly(canvas, hull, side_col, cv2.LINE_AA, 2)
    # top face: rotate the sprite by the small angle about its centre into the canvas
    face = sprites.face(pose.value, pose.quarter)
    n = sprites.n
    tx, ty = cx + top_shift_px[0], cy + top_shift_px[1]
    size = int(np.ceil(n * top_scale * 1.5)) + 2
    x0, y0 = int(np.floor(tx - size / 2)), int(np.floor(ty - size / 2))
    m = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), pose.angle_deg, top_scale)
    m[0, 2] += tx - x0 - (n - 1) / 2
    m[1, 2] += ty - y0 - (n - 1) / 2
    h, w = canvas.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + size), min(h, y0 + size)
    if xb <= xa or yb <= ya:
        return
    m[0, 2] -= xa - x0
    m[1, 2] -= ya - y0
    fw = cv2.warpAffine(face, m, (xb - xa, yb - ya), flags=cv2.INTER_LINEAR)
    aw = cv2.warpAffine(sprites.alpha, m, (xb - xa, yb - ya), flags=cv2.INTER_LINEAR)[:, :, None]
    roi = canvas[ya:yb, xa:xb]
    roi *= 1 - aw
    roi += fw * aw


def held_tile_patch(sprites: TileSprites, value: int, quarter: int) -> tuple[np.ndarray, np.ndarray]:
    """Face and alpha of a tile for drawing in image space (a tile in the fingers)."""
    return sprites.face(value, quarter), sprites.alpha
