"""Does a located grid prove itself against the print it claims to see?

The grid is periodic: a fit one cell off lies on real lines too, and its line contrast
barely differs from the right fit's (a board at the frame's top edge, its border cut
off, was read one row off: every tile from its neighbour's cell). What tells the two
apart is the print around and in the grid, seen through the fit:

- the outline of the 193 cells: lines around every cell, none in the cut corners, the
  gaps of the arms and the border beyond (where those are in frame);
- what fills the cells: a light x2 cell is bright (bare, or a tile on it), the border
  and the cut corners are dark (no tile lies there), a dark cell may be either;
- the quarter turns, which the layout cannot tell apart (it is symmetric), by the
  yellow label and the logo where they show (``orient``).

Each lattice position and each unit line segment around the fit is one piece of
evidence, with a soft observation: bright or not; a line's ridge or not, counted in
proportion to how dark both its sides are (between tiles, or beside a light cell, no
line shows whether printed or not). A hypothesis (the fit, or the fit moved by whole
cells) says for each what to expect: a light cell, a dark cell, the border or cut
corner (inside the cardboard, away from the logo and label), or the table beyond
(nothing known); and the evidence's log-likelihood under it is summed
(``Likelihoods``). The fit proves itself when it beats every move of up to ``SEARCH``
cells along each axis by ``min_margin`` nats or more, the four one-cell moves with at
least ``min_evidence`` pieces of evidence telling them apart; when a move beats it by
that much instead, the grid is moved to the best one and checked again
(``max_moves``); a fit that neither proves itself nor moves to one that does is not a
board, nor is one that a one-cell move beats by ``min_margin`` within one quarter of
the board (``bent``: a fit caught on a wrong line at one corner). (One-cell moves alone leave a fit two or three cells off over a bright table
standing: its one-cell neighbours are as wrong as it is.)

Which print: each profile of ``calibration/prints/`` (``PrintExpectation``) says where
its logo, label and text lie (no evidence there) and whether its border is dark or
bright; at each step the fit must prove itself against the print under which some
whole move explains the evidence best (``Scorer.likeliest``), and the proof names it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from ...board_prints import PrintProfile
from ...rules.board import CELLS, LIGHT, row_col
from ...settings import Settings, knob, part
from ..geometry import GridModel, smoothed_for_sampling
from .grid_fit import shifted

#: rectified pixels per cell for the check
PPC = 16
#: moves of up to this many whole cells along each axis are compared with the fit
SEARCH = 3
#: the rectified extent: every hypothesis's border ring (one cell around the grid; the
#: printed border is about 0.9 cell wide, beyond it lies the table), one more cell for
#: the sides of the outer segments
LO, HI = -(SEARCH + 2), 15 + SEARCH + 2
N = HI - LO
#: the one-cell moves (du, dv) that a fit must beat with enough evidence
SHIFTS = ((1, 0), (-1, 0), (0, 1), (0, -1))
#: every move compared, the fit itself first
MOVES = ((0, 0),) + tuple((du, dv) for dv in range(-SEARCH, SEARCH + 1)
                          for du in range(-SEARCH, SEARCH + 1) if du or dv)
#: printed areas inside the cardboard that are neither cell nor plain border: the logo
#: (top-left cut corner and the margin above it) and the label (bottom-right cut
#: corner), (u0, v0, u1, v1) in grid units; no evidence is taken there
PRINT_ZONES = ((-1.0, -1.0, 4.0, 1.0), (13.0, 12.0, 16.0, 16.0), (12.0, -1.0, 16.0, 0.0),
               (-1.0, 15.0, 10.0, 16.0))


def _chance(default: float, about: str) -> float:
    """A probability of the proof's model: never 0 or 1, whose log would be infinite."""
    return knob(default, 0.001, 0.999, about)


@dataclass(frozen=True)
class Likelihoods(Settings):
    """How likely each kind of lattice position shows bright, and each kind of segment
    shows a line's ridge (unknown: beyond the cardboard, the table)."""

    bright_light: float = _chance(0.9, "a light x2 cell (bare, or a tile on it) shows bright")
    bright_cell: float = _chance(0.5, "a dark cell (bare, or a tile) shows bright")
    bright_border: float = _chance(0.04, "the border and cut corners (no tile lies there) "
                                   "show bright")
    bright_border_bright: float = _chance(0.9, "the border of a print whose border is "
                                          "bright (PrintExpectation.border_bright) shows "
                                          "bright")
    bright_unknown: float = _chance(0.5, "beyond the cardboard (the table) shows bright")
    ridge_line: float = _chance(0.85, "a cell's edge between dark sides shows a line")
    ridge_none: float = _chance(0.04, "a ridge shows where no line is printed")
    ridge_unknown: float = _chance(0.2, "a ridge shows beyond the cardboard")


@dataclass(frozen=True)
class ProofConfig(Settings):
    min_margin: float = knob(6.0, 0.0, 100.0, "log-likelihood (nats) by which a fit must "
                             "beat each move")
    min_evidence: int = knob(12, 0, 1000, "pieces of evidence that must tell a fit from "
                             "each one-cell move")
    max_moves: int = knob(2, 0, 10, "times at most a move that beats the fit by "
                          "min_margin is taken instead")
    bright_from: float = knob(0.35, 0.0, 2.0, "brightness (board bright level 1) from "
                              "which a cell's middle counts as bright ...")
    bright_ramp: float = knob(0.3, 0.001, 2.0, "... fully from this much more")
    ridge_from: float = knob(0.04, 0.0, 1.0, "height above both sides from which a "
                             "segment's line counts as a ridge ...")
    ridge_ramp: float = knob(0.12, 0.001, 1.0, "... fully from this much more")
    likelihoods: Likelihoods = part(Likelihoods, "the proof's model of a board")


@dataclass(frozen=True)
class Proof:
    """The outcome: ``proved``; the model to read (the fit, or a shift of it that
    proved itself); the margin (nats) over each shift, keyed "du,dv"; the shift
    applied; the print proved; ``weakest``: the smallest margin."""

    proved: bool
    model: GridModel
    margins: dict[str, float]
    moved: tuple[int, int] = (0, 0)
    #: the print the grid proved itself against (None: not proved)
    board_print: str | None = None
    #: every print the proved grid proves itself against (``board_print`` first)
    prints: tuple[str, ...] = ()

    @property
    def weakest(self) -> float:
        return min(self.margins.values()) if self.margins else 0.0


def _layout_grids(zones: tuple[tuple[float, float, float, float], ...] = PRINT_ZONES
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(N, N) int8 kind of every lattice position of the rectified extent: 2 light
    cell, 1 dark cell, 0 border (inside the cardboard, not one of the print's ``zones``),
    -1 unknown; and the zone mask."""
    kind = np.full((N, N), -1, np.int8)       # [row (v), col (u)], from LO
    for r in range(-1, 16):
        for c in range(-1, 16):
            kind[r - LO, c - LO] = 0
    for i in CELLS:
        r, c = row_col(i)
        kind[r - LO, c - LO] = 2 if i in LIGHT else 1
    zone = np.zeros((N, N), bool)
    for u0, v0, u1, v1 in zones:
        for r in range(N):
            for c in range(N):
                u, v = c + LO + 0.5, r + LO + 0.5
                zone[r, c] |= u0 <= u < u1 and v0 <= v < v1
    kind[zone & (kind == 0)] = -1
    return kind, zone


def _shifted_kind(kind: np.ndarray, du: int, dv: int) -> np.ndarray:
    """``kind`` for the fit moved by (du, dv): the layout lies (du, dv) further on."""
    out = np.full((N, N), -1, np.int8)
    r0, r1 = max(0, dv), min(N, N + dv)
    c0, c1 = max(0, du), min(N, N + du)
    out[r0:r1, c0:c1] = kind[r0 - dv:r1 - dv, c0 - du:c1 - du]
    return out


def _segment_kinds(kind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kinds of the horizontal segments (N+1, N: segment on top of row r) and vertical
    ones (N, N+1: on the left of column c): 1 line (edge of a cell), 0 none (between
    border positions), -1 unknown."""
    cell = np.pad(kind >= 1, 1)
    known = np.pad(kind >= 0, 1)

    def kinds(a_c, b_c, a_k, b_k):
        return np.where(a_c | b_c, 1, np.where(a_k & b_k, 0, -1)).astype(np.int8)

    h = kinds(cell[:-1, 1:-1], cell[1:, 1:-1], known[:-1, 1:-1], known[1:, 1:-1])
    v = kinds(cell[1:-1, :-1], cell[1:-1, 1:], known[1:-1, :-1], known[1:-1, 1:])
    return h, v


@dataclass(frozen=True)
class Layout:
    """Per move (MOVES order): position kinds (M, N, N), horizontal and vertical
    segment kinds (M, N+1, N) and (M, N, N+1), for one print's zones; and each as the
    flat indices ``_gather`` takes (``flat_indices``), made once with the layout."""

    kinds: np.ndarray
    seg_h: np.ndarray
    seg_v: np.ndarray
    flat_kinds: np.ndarray = field(init=False, repr=False, compare=False)
    flat_seg_h: np.ndarray = field(init=False, repr=False, compare=False)
    flat_seg_v: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        for name in ("kinds", "seg_h", "seg_v"):
            object.__setattr__(self, f"flat_{name}", flat_indices(getattr(self, name)))


def flat_indices(kinds: np.ndarray) -> np.ndarray:
    """(M, E) indices into a table of shape (kinds + 1, *kinds.shape[1:]) raveled: for
    each move, element e of its row ``kind + 1`` (kind -1 is row 0)."""
    m, e = len(kinds), int(np.prod(kinds.shape[1:]))
    return ((kinds.reshape(m, e).astype(np.intp) + 1) * e + np.arange(e, dtype=np.intp))


@lru_cache(maxsize=32)
def layout(zones: tuple[tuple[float, float, float, float], ...] = PRINT_ZONES) -> Layout:
    """The expected kinds around a fit and each move, for a print whose ``zones`` hold
    no evidence (a pure function of its argument; cached)."""
    kind, _ = _layout_grids(zones)
    kinds = np.stack([_shifted_kind(kind, *m) for m in MOVES])
    return Layout(kinds, np.stack([_segment_kinds(k)[0] for k in kinds]),
                  np.stack([_segment_kinds(k)[1] for k in kinds]))


KIND, ZONE = _layout_grids()
#: the Peri print's layout (the default)
KINDS, SEG_H, SEG_V = layout().kinds, layout().seg_h, layout().seg_v


@dataclass(frozen=True)
class PrintExpectation:
    """What the proof expects of one print (``calibration/prints/``, ``board_prints``):
    its ``name``, the ``zones`` where it prints a logo, label or text (no evidence
    there), and whether its border shows bright beside the x2 cells."""

    name: str = "peri"
    zones: tuple[tuple[float, float, float, float], ...] = PRINT_ZONES
    border_bright: bool = False

    @property
    def rule(self) -> tuple:
        """What the proof sees of the print (prints alike here prove alike)."""
        return self.zones, self.border_bright


def expectation_of(profile: PrintProfile) -> PrintExpectation:
    """The proof's expectation of a print profile."""
    return PrintExpectation(profile.name, tuple(profile.proof_zones),
                            profile.border_shade == "bright")


def expectations(profiles: Mapping[str, PrintProfile]) -> tuple[PrintExpectation, ...]:
    """Every profile's expectation, in the profiles' order."""
    return tuple(expectation_of(p) for p in profiles.values())


@dataclass(frozen=True)
class Evidence:
    """Soft observations around one fit, in 0..1 (NaN where out of frame): ``bright``
    (N, N), and the ridges of the horizontal (N+1, N) and vertical (N, N+1) segments
    with the weight each carries (how dark both its sides are)."""

    bright: np.ndarray
    ridge_h: np.ndarray
    ridge_v: np.ndarray
    weight_h: np.ndarray
    weight_v: np.ndarray


def _ridges(r: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """(N+1, N): for each horizontal line of the lattice (rows of the rectified image at
    whole cells) and each cell along it, the line's brightness (max across a band of
    +-0.1 cell, median along the middle 0.6 cell) minus the brighter of its two sides
    (+-0.25 to 0.4 cell); NaN where any sample is out of frame (and on the extent's
    first and last lines, which have no outer side)."""
    p = PPC
    out = np.full((N + 1, N), np.nan, np.float32)
    band = max(1, int(round(0.1 * p)))
    s0, s1 = int(round(0.25 * p)), int(round(0.4 * p)) + 1
    a, b = int(round(0.2 * p)), int(round(0.8 * p))
    y = np.arange(1, N) * p

    def rows(lo: int, hi: int) -> np.ndarray:
        return y[:, None] + np.arange(lo, hi)[None, :]

    def along(x: np.ndarray) -> np.ndarray:      # (N-1, W) -> (N-1, N, b - a)
        return x.reshape(N - 1, N, p)[:, :, a:b]

    line = np.median(along(r[rows(-band, band + 1)].max(axis=1)), axis=2)
    above = np.median(along(r[rows(-s1 + 1, -s0 + 1)].mean(axis=1)), axis=2)
    below = np.median(along(r[rows(s0, s1)].mean(axis=1)), axis=2)
    ok = along(valid[rows(-s1 + 1, s1)].all(axis=1)).all(axis=2)
    out[1:N] = np.where(ok, line - np.maximum(above, below), np.nan)
    return out


#: the frame is first reduced (area average: no line falls between samples) to about
#: this many pixels per cell
REDUCED_PPC = 1.25 * PPC


def _reduced(grey: np.ndarray, cell_px: float) -> tuple[np.ndarray, float]:
    """``grey`` reduced to about REDUCED_PPC pixels per cell, and the factor (1.0: as
    it is, already near or below that)."""
    f = REDUCED_PPC / max(cell_px, 1e-6)
    if f >= 0.8:
        return smoothed_for_sampling(grey, cell_px, PPC), 1.0
    h, w = grey.shape[:2]
    size = (max(1, int(round(w * f))), max(1, int(round(h * f))))
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA), size[0] / w


def evidence(grey: np.ndarray, model: GridModel, cfg: ProofConfig) -> Evidence:
    """The observations around ``model`` in the grey frame ``grey``."""
    h, w = grey.shape[:2]
    xy = model.rectify_map(PPC, LO, LO, HI, HI)
    valid = ((xy[..., 0] >= 0) & (xy[..., 0] <= w - 1)
             & (xy[..., 1] >= 0) & (xy[..., 1] <= h - 1))
    src, f = _reduced(grey, model.cell_size_px())
    if f != 1.0:
        xy = (xy + 0.5) * f - 0.5
    r = cv2.remap(src, xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
                  ).astype(np.float32)
    g0, g1 = -LO * PPC, (15 - LO) * PPC
    ok_inside = valid[g0:g1, g0:g1]
    level = float(np.percentile(r[g0:g1, g0:g1][ok_inside], 98)) if ok_inside.any() else 255.0
    r *= 1.0 / max(level, 1.0)
    p = PPC
    q0, q1 = p // 4, p - p // 4
    cells = r.reshape(N, p, N, p)[:, q0:q1, :, q0:q1]
    middle = np.median(cells.transpose(0, 2, 1, 3).reshape(N, N, -1), axis=2)
    cell_ok = valid.reshape(N, p, N, p).all(axis=(1, 3))
    bright = np.clip((middle - cfg.bright_from) / cfg.bright_ramp, 0, 1)
    bright = np.where(cell_ok, bright, np.nan).astype(np.float32)
    ridge_h = _ridges(r, valid)
    ridge_v = _ridges(np.ascontiguousarray(r.T), np.ascontiguousarray(valid.T)).T

    def soft(x: np.ndarray) -> np.ndarray:
        return np.clip((x - cfg.ridge_from) / cfg.ridge_ramp, 0, 1)

    # a segment counts as far as both its sides are dark (NaN beyond the extent)
    dark = np.pad(1.0 - bright, 1, constant_values=np.nan)
    weight_h = np.minimum(dark[:-1, 1:-1], dark[1:, 1:-1])
    weight_v = np.minimum(dark[1:-1, :-1], dark[1:-1, 1:])
    return Evidence(bright, soft(ridge_h), soft(ridge_v), weight_h, weight_v)


def _table(q: np.ndarray, probs: tuple[float, ...]) -> np.ndarray:
    """(len(probs), ...) log-likelihood of the soft observations ``q`` under each kind
    (kind -1 first); 0 where not seen."""
    seen = ~np.isnan(q)
    x = np.where(seen, q, 0.0)
    p = np.asarray(probs, np.float64).reshape((-1,) + (1,) * q.ndim)
    return np.where(seen, x * np.log(p) + (1 - x) * np.log(1 - p), 0.0)


def _gather(table: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """(M,) sum over elements of ``table[kind + 1]`` for each move's kinds, given as
    their ``flat_indices`` (M, E): one take from the raveled table, then a sum a row."""
    return table.reshape(-1)[flat].sum(axis=1)


def _quarter_masks() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """For each quarter of the board (the fit's grid split at its middle lines): which
    positions (N, N), horizontal (N+1, N) and vertical (N, N+1) segments lie in it."""
    mid = np.arange(N) + LO + 0.5          # position / segment middles along the axis
    edge = np.arange(N + 1) + LO           # line positions
    out = []
    for left in (True, False):
        for top in (True, False):
            def side(x: np.ndarray, first: bool) -> np.ndarray:
                return x < 7.5 if first else x >= 7.5
            pos = side(mid, top)[:, None] & side(mid, left)[None, :]
            seg_h = side(edge, top)[:, None] & side(mid, left)[None, :]
            seg_v = side(mid, top)[:, None] & side(edge, left)[None, :]
            out.append((pos, seg_h, seg_v))
    return out


QUARTERS = _quarter_masks()


PERI = PrintExpectation()


def likelihood_tables(ev: Evidence, cfg: ProofConfig, border_bright: bool = False
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The evidence's log-likelihood under each kind (``_table``): of the positions, for
    a print whose border is bright or not, and of the horizontal and vertical segments,
    each weighted by how dark its two sides are. Every move and print shares them."""
    lk = cfg.likelihoods
    border = lk.bright_border_bright if border_bright else lk.bright_border
    pos = _table(ev.bright, (lk.bright_unknown, border, lk.bright_cell, lk.bright_light))
    seg = (lk.ridge_unknown, lk.ridge_none, lk.ridge_line)
    h, v = (_table(np.where(np.isnan(wgt), np.nan, q), seg) * np.nan_to_num(wgt)
            for q, wgt in ((ev.ridge_h, ev.weight_h), (ev.ridge_v, ev.weight_v)))
    return pos, h, v


def scores(ev: Evidence, cfg: ProofConfig,
           within: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
           expect: PrintExpectation = PERI,
           tables: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """(M,) log-likelihood of the evidence if the print ``expect`` lay at each of
    MOVES; only the positions and segments ``within`` (masks as QUARTERS') where given.
    ``tables``: ``likelihood_tables`` for ``expect``'s border, where already made."""
    lay = layout(expect.zones)
    pos, h, v = tables or likelihood_tables(ev, cfg, expect.border_bright)
    masks = within or (True, True, True)
    out = _gather(pos * masks[0], lay.flat_kinds)
    out = out + _gather(h * masks[1], lay.flat_seg_h)
    return out + _gather(v * masks[2], lay.flat_seg_v)


class Scorer:
    """``scores`` and ``differing`` of one evidence, each computed once per print rule
    and quarter: prints the proof sees alike share them, and the proof asks for the
    same ones again for the likeliest print, its margins, its quarters and the prints
    alike (the answers are those of the functions, only not recomputed)."""

    def __init__(self, ev: Evidence, cfg: ProofConfig):
        self.ev, self.cfg = ev, cfg
        self._scores: dict[tuple, np.ndarray] = {}
        self._differing: dict[tuple, np.ndarray] = {}
        self._tables: dict[bool, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def scores(self, expect: PrintExpectation, quarter: int | None = None) -> np.ndarray:
        """``scores`` of ``expect`` (within ``QUARTERS[quarter]`` where given)."""
        key = (expect.rule, quarter)
        if key not in self._scores:
            within = None if quarter is None else QUARTERS[quarter]
            bright = expect.border_bright
            if bright not in self._tables:
                self._tables[bright] = likelihood_tables(self.ev, self.cfg, bright)
            self._scores[key] = scores(self.ev, self.cfg, within, expect,
                                       self._tables[bright])
        return self._scores[key]

    def differing(self, expect: PrintExpectation) -> np.ndarray:
        if expect.zones not in self._differing:
            self._differing[expect.zones] = differing(self.ev, expect)
        return self._differing[expect.zones]

    def bent(self, expect: PrintExpectation) -> bool:
        """Does a one-cell move beat the fit by ``min_margin`` within one quarter of the
        board (a fit bent at one corner, right elsewhere)?"""
        moves = [MOVES.index(s) for s in SHIFTS]
        for quarter in range(len(QUARTERS)):
            s = self.scores(expect, quarter)
            if (s[0] - s[moves]).min() <= -self.cfg.min_margin:
                return True
        return False

    def margins(self, expect: PrintExpectation) -> dict[tuple[int, int], float]:
        """The fit's log-likelihood over each move's (MOVES, the fit left out); -inf for
        a one-cell move that too little evidence tells from the fit (``min_evidence``)."""
        s = self.scores(expect)
        n = self.differing(expect)
        out = {}
        for k, move in enumerate(MOVES[1:], start=1):
            thin = move in SHIFTS and n[k] < self.cfg.min_evidence
            out[move] = -np.inf if thin else float(s[0] - s[k])
        return out

    def proves(self, expect: PrintExpectation) -> bool:
        return (all(v >= self.cfg.min_margin for v in self.margins(expect).values())
                and not self.bent(expect))

    def alike(self, expect: PrintExpectation, prints: Sequence[PrintExpectation]
              ) -> tuple[str, ...]:
        """The other prints that explain the evidence at the fit itself within
        ``min_margin`` of ``expect`` and that the fit proves itself against too."""
        own = float(self.scores(expect)[0])
        return tuple(p.name for p in prints if p.name != expect.name and (
            p.rule == expect.rule
            or (float(self.scores(p)[0]) >= own - self.cfg.min_margin and self.proves(p))))

    def likeliest(self, groups: Sequence[PrintExpectation]) -> PrintExpectation:
        """The print (of ``groups``, one per rule) under which some move of the layout
        explains the evidence best (the first on a tie: Peri's where it ties)."""
        best, best_score = groups[0], -np.inf
        for expect in groups:
            top = float(self.scores(expect).max())
            if top > best_score + 1e-9:
                best, best_score = expect, top
        return best


def bent(ev: Evidence, cfg: ProofConfig, expect: PrintExpectation = PERI) -> bool:
    """``Scorer.bent`` of one evidence."""
    return Scorer(ev, cfg).bent(expect)


def differing(ev: Evidence, expect: PrintExpectation = PERI) -> np.ndarray:
    """(M,) how many seen pieces of evidence the fit and each move expect differently
    (a segment counts when both its sides are seen and mostly dark)."""
    lay = layout(expect.zones)
    n = ((lay.kinds[0] != lay.kinds) & ~np.isnan(ev.bright)).sum(axis=(1, 2))
    for q, wgt, kinds in ((ev.ridge_h, ev.weight_h, lay.seg_h),
                          (ev.ridge_v, ev.weight_v, lay.seg_v)):
        seen = ~np.isnan(q) & (np.nan_to_num(wgt) >= 0.5)
        n = n + ((kinds != kinds[0]) & seen).sum(axis=(1, 2))
    return n


def margins(ev: Evidence, cfg: ProofConfig, expect: PrintExpectation = PERI
            ) -> dict[tuple[int, int], float]:
    """``Scorer.margins`` of one evidence."""
    return Scorer(ev, cfg).margins(expect)


def _named(m: dict[tuple[int, int], float]) -> dict[str, float]:
    named = {f"{du},{dv}": round(m[(du, dv)], 2) for du, dv in SHIFTS}
    named["far"] = round(min(v for k, v in m.items() if k not in SHIFTS), 2)
    return named


def prove(grey: np.ndarray, model: GridModel, cfg: ProofConfig | None = None,
          prints: Sequence[PrintExpectation] = (PERI,)) -> Proof:
    """Check ``model`` against the prints (see the module's doc). At each step the
    print under which some whole move explains the evidence best is the one the fit
    must prove itself against: proved, or moved by whole cells to a grid that proves
    itself, or not a board. ``margins`` reports the four one-cell moves (keyed
    "du,dv"), and the weakest of the others as "far"; ``board_print``: the print
    proved; ``prints``: every given print that the final grid proves itself against,
    ``board_print`` first (prints the proof sees alike; the reader names one of them by
    its colours, ``print_colours``)."""
    cfg = cfg or ProofConfig()
    if not prints:
        raise ValueError("prove: no print to prove against")
    groups: list[PrintExpectation] = []
    for expect in prints:
        if all(expect.rule != g.rule for g in groups):
            groups.append(expect)
    moved = (0, 0)
    for _ in range(cfg.max_moves + 1):
        judge = Scorer(evidence(grey, model, cfg), cfg)
        expect = judge.likeliest(groups) if len(groups) > 1 else groups[0]
        m = judge.margins(expect)
        named = _named(m)
        if all(v >= cfg.min_margin for v in m.values()):
            if judge.bent(expect):
                named["bent"] = 1.0
                break       # one quarter is a cell off: no whole move mends it
            alike = (expect.name, *judge.alike(expect, prints))
            return Proof(True, model, named, moved, expect.name, alike)
        finite = {k: v for k, v in m.items() if np.isfinite(v)}
        if not finite:
            break
        best = min(finite, key=finite.get)
        if finite[best] > -cfg.min_margin:
            break           # not beaten clearly, not clearly better either
        model = shifted(model, *best)
        moved = (moved[0] + best[0], moved[1] + best[1])
    return Proof(False, model, named, moved)


__all__ = ["Evidence", "Likelihoods", "PrintExpectation", "Proof", "ProofConfig", "Scorer",
           "evidence", "expectation_of", "expectations", "margins", "prove", "scores"]
