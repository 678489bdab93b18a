"""One judge: how a read of one photo is scored against its truth, how scores add up,
and when one model is worse than another.

``zatre bench vision``, ``zatre bench gate``, ``training/fit_reader.py`` and
``training/fit_locator.py`` all score a photo with ``score_photo`` (board found, fitted a
cell off, silent cells, uncertain cells, exact) and sum with ``Tally``; the fits decide
with ``harms`` (raw counts on their own split), the gate with ``harms`` on the pooled
totals and ``significantly_worse`` on each set (one-sided exact tests, so that one or
two cells on a small set are not taken for harm).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from math import comb

import numpy as np

#: a board found with a corner this many cells or more from the truth is fitted a cell
#: off (its corners are within half a cell otherwise: on the grid)
A_CELL_OFF = 0.5
#: a board with this many silent cells or more is a badly wrong board (the gate's and the
#: fits' "boards with 5 or more")
MANY_SILENT = 5
#: the one-sided exact tests' level: a figure is significantly worse where P < this
SIGNIFICANCE = 0.05


def corner_error_cells(found: np.ndarray, truth: np.ndarray, cell_px: float) -> float:
    """The largest distance from a found corner to the truth's, in cells (both in the
    photo's pixels)."""
    gap = np.linalg.norm(np.asarray(found, np.float64) - np.asarray(truth, np.float64),
                         axis=1)
    return float(gap.max() / max(cell_px, 1e-9))


@dataclass(frozen=True)
class PhotoScore:
    """One photo read by one model. ``board``: the photo shows one; ``found``: the reader
    claimed one; ``off``: found with a corner ``A_CELL_OFF`` or more from the truth;
    ``silent``: visible cells reported with a wrong value (not uncertain); ``uncertain``:
    visible cells left uncertain; ``visible``: cells no hand hides; ``missed``: tiles of
    a board not found (every one wrong, none silent: nothing is reported)."""

    board: bool
    found: bool
    off: bool = False
    silent: int = 0
    uncertain: int = 0
    visible: int = 0
    missed: int = 0
    corner_error: float | None = None
    read_ms: float = 0.0
    baseline_ms: float = 0.0

    @property
    def exact(self) -> bool:
        """A board found with every visible cell right and none uncertain."""
        return self.board and self.found and self.silent == 0 and self.uncertain == 0

    @property
    def false_board(self) -> bool:
        return self.found and not self.board

    @property
    def on_grid(self) -> bool:
        return self.board and self.found and not self.off

    @property
    def many_silent(self) -> bool:
        return self.silent >= MANY_SILENT


def cell_counts(truth: np.ndarray, hidden: np.ndarray, cells: dict[str, int],
                uncertain: set[str], names: tuple[str, ...]) -> tuple[int, int, int]:
    """(silent, uncertain, visible) over the cells no hand hides: ``truth`` the true
    values in ``names``' order, ``hidden`` True where a hand hides the cell, ``cells`` the
    values reported (absent: empty), ``uncertain`` the cells left uncertain."""
    silent = unsure = visible = 0
    for j, name in enumerate(names):
        if hidden[j]:
            continue
        visible += 1
        if name in uncertain:
            unsure += 1
        elif cells.get(name, 0) != truth[j]:
            silent += 1
    return silent, unsure, visible


def score_photo(*, board: bool, truth: np.ndarray | None = None,
                hidden: np.ndarray | None = None, truth_corners=None,
                found: bool = False, corners=None, cell_px: float = 1.0,
                cells: dict[str, int] | None = None, uncertain=(),
                names: tuple[str, ...] = (), read_ms: float = 0.0,
                baseline_ms: float = 0.0) -> PhotoScore:
    """The one score of a read (see ``PhotoScore``). ``corners`` and ``truth_corners``
    in the photo's pixels, ``cell_px`` the found grid's cell size there; ``truth_corners``
    None (a folder without them): ``off`` is never claimed."""
    if not board:
        return PhotoScore(False, found, read_ms=read_ms, baseline_ms=baseline_ms)
    hidden = np.zeros(len(names), bool) if hidden is None else np.asarray(hidden, bool)
    truth = np.asarray(truth if truth is not None else np.zeros(len(names), int))
    visible = int((~hidden).sum())
    if not found:
        return PhotoScore(True, False, visible=visible,
                          missed=int(((truth > 0) & ~hidden).sum()), read_ms=read_ms,
                          baseline_ms=baseline_ms)
    err = (None if truth_corners is None or corners is None
           else corner_error_cells(corners, truth_corners, cell_px))
    silent, unsure, visible = cell_counts(truth, hidden, cells or {}, set(uncertain), names)
    return PhotoScore(True, True, err is not None and err >= A_CELL_OFF, silent, unsure,
                      visible, 0, err, read_ms, baseline_ms)


@dataclass(frozen=True)
class Tally:
    """Scores summed over a set of photos."""

    photos: int = 0
    boards: int = 0
    found: int = 0
    on_grid: int = 0
    off: int = 0
    false_boards: int = 0
    silent: int = 0
    many_silent: int = 0
    uncertain: int = 0
    visible: int = 0
    exact: int = 0

    @classmethod
    def of(cls, scores) -> Tally:
        scores = list(scores)
        return cls(len(scores), sum(s.board for s in scores),
                   sum(s.board and s.found for s in scores), sum(s.on_grid for s in scores),
                   sum(s.board and s.found and s.off for s in scores),
                   sum(s.false_board for s in scores), sum(s.silent for s in scores),
                   sum(s.many_silent for s in scores), sum(s.uncertain for s in scores),
                   sum(s.visible for s in scores if s.board), sum(s.exact for s in scores))

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @property
    def silent_rate(self) -> float:
        return self.silent / max(self.visible, 1)

    @property
    def found_rate(self) -> float:
        return self.found / max(self.boards, 1)

    def row(self) -> dict:
        return {"boards": self.boards, "found": self.found, "on the grid": self.on_grid,
                "a cell off": self.off, "false boards": self.false_boards,
                "silent": self.silent, f"boards {MANY_SILENT}+ silent": self.many_silent,
                "uncertain_rate": round(self.uncertain / max(self.visible, 1), 5),
                "exact": self.exact}


def harms(base: Tally, trial: Tally, *, reading: bool = True, location: bool = False
          ) -> list[str]:
    """How ``trial`` is worse than ``base`` by raw count (empty: no worse). ``reading``:
    silent cells and boards with ``MANY_SILENT`` or more; ``location``: boards found,
    boards on the grid, boards a cell off and false boards."""
    why = []

    def more(name: str, a: int, b: int) -> None:
        if b > a:
            why.append(f"{name} {a} -> {b}")

    def fewer(name: str, a: int, b: int) -> None:
        if b < a:
            why.append(f"{name} {a} -> {b}")

    if reading:
        more("silent cells", base.silent, trial.silent)
        more(f"boards with {MANY_SILENT}+ silent", base.many_silent, trial.many_silent)
    if location:
        fewer("boards found", base.found, trial.found)
        fewer("boards on the grid", base.on_grid, trial.on_grid)
        more("boards a cell off", base.off, trial.off)
        more("false boards", base.false_boards, trial.false_boards)
    return why


# -- the gate's per-set tests ------------------------------------------------------------
def binomial_tail(b: int, n: int) -> float:
    """P(X >= b) for X ~ Binomial(n, 1/2), exactly (1.0 for b <= 0)."""
    if b <= 0:
        return 1.0
    if b > n:
        return 0.0
    return sum(comb(n, k) for k in range(b, n + 1)) / 2 ** n


def count_test(a: int, b: int) -> float:
    """A count (such as silent cells): ``a`` for the base, ``b`` for the trial. If the
    two are equally good, each of the n = a + b events is the trial's with
    probability 1/2: the one-sided p-value of b or more."""
    return binomial_tail(b, a + b)


def mcnemar(base: list[bool], trial: list[bool]) -> tuple[int, int, float]:
    """An exact one-sided McNemar test of a per-photo failure (True: failed) on paired
    photos: (failed by the base alone, failed by the trial alone, P)."""
    a = sum(x and not y for x, y in zip(base, trial, strict=True))
    b = sum(y and not x for x, y in zip(base, trial, strict=True))
    return a, b, count_test(a, b)


@dataclass(frozen=True)
class Test:
    """One figure of one set through its exact test."""

    figure: str
    base: int           # the base's count (cells or photos)
    trial: int
    p: float
    #: the discordant photos (for a per-photo figure; None for a count of cells)
    discordant: tuple[int, int] | None = None

    @property
    def worse(self) -> bool:
        return self.p < SIGNIFICANCE

    def row(self) -> dict:
        out = {"figure": self.figure, "base": self.base, "trial": self.trial,
               "p": round(self.p, 5), "significantly_worse": self.worse}
        if self.discordant is not None:
            out["only_base_failed"], out["only_trial_failed"] = self.discordant
        return out


def set_tests(base: list[PhotoScore], trial: list[PhotoScore], location: bool
              ) -> list[Test]:
    """The gate's tests on one set, photo by photo (the same photos in the same order):
    silent cells as a count; boards with ``MANY_SILENT`` or more silent cells, and where
    the board network changes boards not found and boards a cell off, by McNemar."""
    if len(base) != len(trial):
        raise ValueError(f"paired sets differ in length: {len(base)} and {len(trial)}")
    a = sum(s.silent for s in base)
    b = sum(s.silent for s in trial)
    tests = [Test("silent cells", a, b, count_test(a, b))]
    per_photo = [(f"boards with {MANY_SILENT}+ silent", lambda s: s.many_silent)]
    if location:
        per_photo += [("boards not found", lambda s: s.board and not s.found),
                      ("boards a cell off", lambda s: s.board and s.found and s.off),
                      ("false boards", lambda s: s.false_board)]
    for name, failed in per_photo:
        x = [bool(failed(s)) for s in base]
        y = [bool(failed(s)) for s in trial]
        only_a, only_b, p = mcnemar(x, y)
        tests.append(Test(name, sum(x), sum(y), p, (only_a, only_b)))
    return tests


__all__ = ["A_CELL_OFF", "MANY_SILENT", "SIGNIFICANCE", "PhotoScore", "Tally", "Test",
           "binomial_tail", "cell_counts", "corner_error_cells", "count_test", "harms",
           "mcnemar", "score_photo", "set_tests"]
