"""Frame pacing: a loop held to ``fps`` iterations a second.

A camera that delivers 30 frames a second while the table needs 5 would otherwise have
every frame read and processed (a Pi 4 core at 100 %). The camera service waits on the
pacer before each read; a late iteration moves the schedule on rather than bursting to
catch up. ``wait`` is injected (the service passes its stop event's wait, so a stop is
never held up by the pacing)."""

from __future__ import annotations

import time
from collections.abc import Callable


class FramePacer:
    def __init__(self, fps: float, clock: Callable[[], float] = time.monotonic,
                 wait: Callable[[float], object] = time.sleep):
        if not fps > 0:
            raise ValueError("fps must be above 0")
        self.period = 1.0 / fps
        self._clock, self._wait = clock, wait
        self._due: float | None = None

    def wait(self) -> None:
        """Return when the next frame is due (at once for the first)."""
        now = self._clock()
        if self._due is not None and self._due > now:
            self._wait(self._due - now)
            now = self._clock()
        self._due = max(self._due or now, now) + self.period
