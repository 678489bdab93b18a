"""Progress lines with a time estimate for a long unattended run (``make models``).

Each step starts from an estimate (``recipe.estimate``); once it has done some work, its
own measured rate (photos a second, seconds an epoch) replaces the estimate, and the
steps after it are scaled by how far this run's finished steps were from theirs. Lines
go to ``out`` (stderr), at most one every ``every`` seconds besides each step's start
and end:

    make models 0:12:31 | render-pips 1200/4620 photos, 3.10 photos/s | step 0:18:22 left | run ~1:25:00 left, done ~23:10 UTC
"""

from __future__ import annotations

import sys
import time
from datetime import datetime, timedelta, timezone


def clock(seconds: float) -> str:
    s = int(max(0.0, seconds) + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class RunClock:
    def __init__(self, estimates: dict[str, float], out=None, every: float = 30.0,
                 now=time.monotonic, elapsed_before: float = 0.0):
        self.estimates = dict(estimates)
        self.out = out if out is not None else sys.stderr
        self.every = every
        self.now = now
        self.t0 = now() - elapsed_before
        self.last_line = -1e18
        self.step: str | None = None
        self.step_t0 = 0.0
        self.measured: dict[str, tuple[float, float]] = {}   # step -> (seconds, estimate)
        self.done_steps: set[str] = set()
        self.left = 0.0
        #: the share of the current step this run made (a resumed step finds most of its
        #: work done; its time says nothing of the rest of the estimate)
        self.share = 1.0

    def elapsed(self) -> float:
        return self.now() - self.t0

    def speed(self) -> float:
        """This run's measured seconds over the estimates of its finished steps."""
        spent = sum(s for s, _ in self.measured.values())
        planned = sum(e for _, e in self.measured.values())
        return spent / planned if planned > 1.0 and spent > 1.0 else 1.0

    def later(self) -> float:
        """Estimated seconds of the steps after the current one."""
        rest = [s for s in self.estimates if s not in self.done_steps and s != self.step]
        return self.speed() * sum(self.estimates[s] for s in rest)

    def begin(self, step: str, note: str = "") -> None:
        self.step, self.step_t0, self.share = step, self.now(), 1.0
        self.left = self.speed() * self.estimates.get(step, 0.0)
        self._print(f"{step} started{': ' + note if note else ''}", force=True)

    def advance(self, done: float, total: float, unit: str, fresh: float | None = None
                ) -> None:
        """``done`` of ``total`` units of the current step; ``fresh``: how many of them
        were made by this run (the rate counts only those; default all)."""
        spent = self.now() - self.step_t0
        made = done if fresh is None else fresh
        if total:
            self.share = min(1.0, max(0.0, (total - (done - made)) / total))
        if made > 0 and spent > 0:
            rate = made / spent
            self.left = (total - done) / rate
            how = (f"{rate:.2f} {unit}/s" if rate >= 1
                   else f"{1 / rate:.1f} s per {unit.removesuffix('s')}")
        else:
            est = self.speed() * self.estimates.get(self.step or "", 0.0)
            self.left = est * (1 - done / total) if total else 0.0
            how = "rate not measured yet"
        self._print(f"{self.step} {done:g}/{total:g} {unit}, {how} | step "
                    f"{clock(self.left)} left")

    def end(self, step: str, note: str = "") -> None:
        seconds = self.now() - self.step_t0
        self.measured[step] = (seconds, self.share * self.estimates.get(step, 0.0))
        self.done_steps.add(step)
        self.step, self.left = None, 0.0
        self._print(f"{step} finished in {clock(seconds)}{': ' + note if note else ''}",
                    force=True)

    def skip(self, step: str, note: str = "already done") -> None:
        self.done_steps.add(step)
        self._print(f"{step}: {note}", force=True)

    def _print(self, text: str, force: bool = False) -> None:
        t = self.now()
        if not force and t - self.last_line < self.every:
            return
        self.last_line = t
        left = self.left + self.later()
        end = datetime.now(timezone.utc) + timedelta(seconds=left)
        print(f"make models {clock(self.elapsed())} | {text} | run ~{clock(left)} left, "
              f"done ~{end:%H:%M} UTC", file=self.out, flush=True)
