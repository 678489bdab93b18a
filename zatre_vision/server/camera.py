"""Which source feeds the table: the simulated demo game, manual entry, or a camera.

The live camera pipeline (frame source -> vision -> tracker) plugs in here: give
:class:`CameraControl` a ``pipelines`` factory that returns an object with
``start()``/``stop()`` for a camera source, driving the :class:`~zatre_vision.table.Table`
through ``commit_turn`` and ``set_camera_status``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ..demo import DEMO_PLAYERS, DemoDriver
from ..table import Table

#: (table, source, players) -> an object with start() / stop() (and request(event))
Pipeline = Callable[[Table, str, Sequence[str] | None], object]


class CameraControl:
    """``demo_through_pipeline``: the demo game is played by the camera pipeline on
    synthetic frames (``pipelines(table, "demo", players)``) instead of the rules-only
    :class:`DemoDriver`; ``sim`` always names the rules-only simulation."""

    def __init__(self, table: Table, demo_interval: float = 2.0, demo_seed: int | None = None,
                 pipelines: Pipeline | None = None, demo_through_pipeline: bool = False):
        self.table = table
        self.demo_through_pipeline = demo_through_pipeline
        self.demo_interval = demo_interval
        self.demo_seed = demo_seed
        self.pipelines = pipelines
        self.source = "none"
        self.runner: object | None = None
        self._lock = threading.Lock()

    def start(self, source: str, players: Sequence[str] | None = None,
              fresh: bool = False) -> None:
        """Switch to ``source``: "demo", "none" (manual entry) or a camera spec.
        ``fresh``: the demo starts a new game at once (chosen in Setup)."""
        with self._lock:
            self._stop_runner()
            self.source = source
            if source == "demo" and self.demo_through_pipeline and self.pipelines is not None:
                self.runner = self.pipelines(self.table, "demo", players)
                self.runner.start()
            elif source in ("demo", "sim"):
                driver = DemoDriver(self.table, self.demo_interval,
                                    list(players) if players else list(DEMO_PLAYERS),
                                    seed=self.demo_seed, fresh=fresh)
                driver.start()
                self.runner = driver
            elif source == "none":
                self.table.set_camera_status({"source": "none", "state": "off",
                                              "message": "manual entry"})
            elif self.pipelines is not None:
                self.runner = self.pipelines(self.table, source, None)
                self.runner.start()
            else:
                self.table.set_camera_status({
                    "source": source, "state": "error",
                    "message": f"camera source {source!r}: the camera pipeline is not "
                               "available in this build; use manual entry"})

    def event(self, name: str) -> bool:
        """Pass ``end_turn`` / ``undo`` to a running camera pipeline; False when none
        runs (manual entry or the rules-only demo)."""
        runner = self.runner
        request = getattr(runner, "request", None)
        if request is None:
            return False
        request(name)
        return True

    def enter_cell(self, cell: str, value: int | None) -> bool:
        """Pass the operator's value for a waiting turn's cell to a running camera
        pipeline; False when none runs."""
        request = getattr(self.runner, "request_cell", None)
        if request is None:
            return False
        request(cell, value)
        return True

    def restart_camera(self, timeout_s: float = 1.0) -> object | None:
        """Start the running camera pipeline's source again (a new source and capture
        thread: ``camera_restarts.py``); the stopped pipeline, whose capture may still
        hang, or None when no camera pipeline runs."""
        with self._lock:
            old = self.runner
            if self.pipelines is None or not hasattr(old, "capture_hung"):
                return None  # manual entry, the rules-only demo, a source never started
            old.stop(timeout_s)
            self.runner = self.pipelines(self.table, self.source, None)
            self.runner.start()
            return old

    def _stop_runner(self) -> None:
        if self.runner is not None:
            self.runner.stop()
            self.runner = None

    def stop(self) -> None:
        with self._lock:
            self._stop_runner()
