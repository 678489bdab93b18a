"""The server's state in one object: :class:`ServerContext`, made once by the app factory
(``server.create_app``) and reached by every request handler through :func:`context`.

It holds the table, the store, the settings, the PIN guard, the camera control, the
stream hub (under ``zatre serve``), and the services that own the dashboard's
background work: the analysis jobs (``analysis_jobs.AnalysisRunner``), tile learning
(``services/tile_learning.TileLearningService``) and the live viewers
(:class:`Viewers`). The factory starts them (``ServerContext.start``); the server's
shutdown path stops them, in the reverse order (``ServerContext.stop``). Nothing is
added to the app after the factory returns: Flask's own settings (``SECRET_KEY``,
``SESSION_COOKIE_*``, ``MAX_CONTENT_LENGTH``, ``TESTING``) stay in ``app.config``.

The small state of the request handlers lives here too: :class:`WriteLog` (``once``),
:class:`StreamSlots` (``stream``) and :class:`Viewers` (``live_view``).
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flask import Flask, current_app

if TYPE_CHECKING:
    from ..config import Settings
    from ..services.tile_learning import TileLearningService
    from ..store import Store
    from ..table import Table
    from .analysis_jobs import AnalysisRunner
    from .camera import CameraControl
    from .security import PinGuard
    from .stream_hub import StreamHub

#: where the app keeps its context (``app.extensions``)
KEY = "zatre"
#: the live view's streams at once (``live_view``)
MAX_VIEWERS = 2


class WriteLog:
    """The last ``size`` writes applied: (route, revision, fields) -> their message."""

    def __init__(self, size: int = 64):
        self.size = size
        self.lock = threading.RLock()  # held over check and apply: no two at once
        self._done: OrderedDict[tuple, str] = OrderedDict()

    def get(self, key: tuple) -> str | None:
        return self._done.get(key)

    def put(self, key: tuple, message: str) -> None:
        self._done[key] = message
        self._done.move_to_end(key)
        while len(self._done) > self.size:
            self._done.popitem(last=False)


class StreamSlots:
    """Counts the streams the ``/events`` view serves itself, per address and in all."""

    def __init__(self, per_address: int, total: int):
        self.per_address, self.total = per_address, total
        self._lock = threading.Lock()
        self._by_address: Counter[str] = Counter()

    def take(self, address: str) -> bool:
        with self._lock:
            if (sum(self._by_address.values()) >= self.total
                    or self._by_address[address] >= self.per_address):
                return False
            self._by_address[address] += 1
            return True

    def give_back(self, address: str) -> None:
        with self._lock:
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]


class Viewers:
    """The live view's MJPEG streams: at most ``limit`` at once; once stopped (the
    server shutting down), every stream ends at its next frame."""

    def __init__(self, limit: int = MAX_VIEWERS):
        self._sem = threading.BoundedSemaphore(limit)
        self._stopped = threading.Event()

    def take(self) -> bool:
        return self._sem.acquire(blocking=False)

    def give(self) -> None:
        self._sem.release()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def start(self) -> None:
        self._stopped.clear()

    def stop(self) -> None:
        self._stopped.set()


@dataclass
class ServerContext:
    """Everything the request handlers need, made by ``create_app``."""

    config: Settings
    table: Table
    store: Store
    pins: PinGuard
    camera: CameraControl | None
    #: the analysis of finished matches in the background (``analysis_jobs``)
    analysis: AnalysisRunner
    #: the Calibration page's "learn these tiles" (``services/tile_learning.py``)
    tiles: TileLearningService
    #: the live view's MJPEG streams (``live_view``)
    viewers: Viewers = field(default_factory=Viewers)
    #: the stream hub serving GET /events apart from the request threads (zatre serve)
    streams: StreamHub | None = None
    #: the streams the Flask view serves itself when there is no hub
    stream_slots: StreamSlots = field(default_factory=lambda: StreamSlots(4, 16))
    #: the writes applied lately, so that a repeat changes nothing (see once)
    writes: WriteLog = field(default_factory=WriteLog)
    #: ``zatre serve --club``: the club overview is the home page; no table of its own
    club: bool = False
    #: the coach's line for the table's last turn, kept until the match changes (coach)
    coach: dict = field(default_factory=dict)

    def services(self) -> tuple:
        """The services that own background work, in the order they start."""
        return (self.analysis, self.tiles, self.viewers)

    def start(self) -> None:
        for service in self.services():
            service.start()

    def stop(self) -> None:
        """Stop the services, the last started first (the server's shutdown path,
        before the camera, the table and the store close)."""
        for service in reversed(self.services()):
            service.stop()


def context(app: Flask | None = None) -> ServerContext:
    """The context of ``app`` (default: the app handling this request)."""
    return (app if app is not None else current_app).extensions[KEY]
