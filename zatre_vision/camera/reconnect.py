"""A camera that comes back: reopens a lost source with back-off and reports its state."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from .base import CameraStatus, Frame, FrameSource, SourceError


class ReconnectingSource:
    """Wraps a source; when it fails, closes it and reopens it after 0.5, 1, 2, ... s
    (at most ``max_delay``). ``read`` returns None only at the true end of a finite
    source; while the camera is away it raises nothing and returns no frame
    (``read_or_wait`` gives the caller None with status ``reconnecting``)."""

    def __init__(self, source: FrameSource, *, first_delay: float = 0.5, max_delay: float = 10.0,
                 sleep: Callable[[float], None] = time.sleep, clock=time.monotonic,
                 on_status: Callable[[CameraStatus], None] | None = None):
        self.source = source
        self.name = source.name
        self.status = CameraStatus(source=source.name)
        self._first, self._max = first_delay, max_delay
        self._delay = first_delay
        self._sleep, self._clock = sleep, clock
        self._open = False
        self._retry_at = 0.0
        self._on_status = on_status
        self.ended = False

    def _set(self, state: str, message: str = "") -> None:
        changed = (state, message) != (self.status.state, self.status.message)
        self.status.state, self.status.message = state, message
        if changed and self._on_status:
            self._on_status(self.status)

    def open(self) -> None:
        self._try_open()

    def _try_open(self) -> bool:
        try:
            self.source.open()
        except SourceError as exc:
            self._open = False
            self._retry_at = self._clock() + self._delay
            self._set("reconnecting" if self.status.frames else "lost", str(exc))
            self._delay = min(self._delay * 2, self._max)
            return False
        self._open = True  # the back-off starts again only once a frame comes (read)
        self._set("ok")
        return True

    def read(self) -> Frame | None:
        """The next frame, or None when the camera is away right now or the source ended
        (``ended`` tells which)."""
        if self.ended:
            return None
        if not self._open:
            wait = self._retry_at - self._clock()
            if wait > 0:
                self._sleep(min(wait, 0.25))
                return None
            self.status.reconnects += 1
            if not self._try_open():
                if self._on_status:  # the count of tries, while the state stays "lost"
                    self._on_status(self.status)
                return None
        try:
            frame = self.source.read()
        except SourceError as exc:
            self._open = False
            with contextlib.suppress(Exception):  # a dead camera may fail to close too
                self.source.close()
            self._retry_at = self._clock() + self._delay
            # a camera that opens but gives no frame backs off as one that will not open
            self._delay = min(self._delay * 2, self._max)
            self._set("reconnecting", str(exc))
            return None
        if frame is None:
            self.ended = True
            self._set("ended")
            return None
        self._delay = self._first
        self.status.frames += 1
        if self.status.state != "ok":
            self._set("ok")
        return frame

    def close(self) -> None:
        self.source.close()
        self._open = False
        if not self.ended:
            self._set("off")
