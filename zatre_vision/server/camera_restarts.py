"""A camera that hangs leaves the table playable: its pipeline is restarted on its own.

The camera service says "stalled" when a connected camera gives no frame for its stall
limit (``tracking/service.py``), a first capture that never returns included. Then
:class:`CameraRestarts` (one thread, started by ``zatre serve``) has
:class:`~zatre_vision.server.camera.CameraControl` start the same source again: a new
source object and capture thread; the hung one is stopped and left behind (a read in a
driver cannot be interrupted; if it ever returns, it commits nothing). The dashboard
shows the camera as "stalled" with the restart in its message, and turns are entered by
hand meanwhile; the systemd watchdog is not involved (it restarts the service only for
a hung web loop, ``sd_notify.py``). Restarts back off (``RestartPolicy``), and stop once
``max_hung`` capture threads hang at once, so a camera that never recovers costs a few
threads, not one a minute."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RestartPolicy:
    """When a stalled camera pipeline is started again: at once the first time, then
    after ``first_wait_s``, doubling up to ``max_wait_s``; the count starts over once a
    restarted camera gave frames. Checked every ``check_every_s``."""

    first_wait_s: float = 30.0
    max_wait_s: float = 600.0
    max_hung: int = 6
    check_every_s: float = 1.0

    def __post_init__(self):
        if not 0.01 <= self.first_wait_s <= 3600:
            raise ValueError("first_wait_s is 0.01 to 3600 s")
        if not self.first_wait_s <= self.max_wait_s <= 24 * 3600:
            raise ValueError("max_wait_s is first_wait_s to a day")
        if not 1 <= self.max_hung <= 100:
            raise ValueError("max_hung is 1 to 100")
        if not 0.01 <= self.check_every_s <= 60:
            raise ValueError("check_every_s is 0.01 to 60 s")

    def wait_before(self, restarts: int) -> float:
        """The wait before restart number ``restarts + 1`` since frames last came."""
        if restarts == 0:
            return 0.0
        return min(self.max_wait_s, self.first_wait_s * 2.0 ** min(restarts - 1, 30))


class CameraRestarts:
    """Watches ``table.camera`` and restarts ``control``'s camera pipeline when it says
    "stalled" (see the module doc). ``clock``: monotonic seconds."""

    def __init__(self, table, control, policy: RestartPolicy | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.table, self.control = table, control
        self.policy = policy or RestartPolicy()
        self.clock = clock
        self.restarts = 0          # since frames last came
        self.restarts_in_all = 0
        self._last_at: float | None = None
        self._left: list = []      # stopped pipelines whose capture may still hang
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def hung(self) -> int:
        """Capture threads left behind that still hang."""
        self._left = [r for r in self._left if getattr(r, "capture_hung", False)]
        return len(self._left)

    def check(self) -> bool:
        """One look: restarts the pipeline when it is due; True when it did."""
        camera = self.table.camera or {}
        if camera.get("state") != "stalled":
            if camera.get("state") == "ok":
                self.restarts = 0
            return False
        now = self.clock()
        if self._last_at is not None and now - self._last_at < self.policy.wait_before(
                self.restarts):
            return False
        if self.hung() >= self.policy.max_hung:
            self.table.set_camera_status({**camera, "message": (
                f"camera stalled: {self.hung()} captures hang, so it is no longer restarted; "
                "enter turns by hand, and reconnect the camera or restart the service")})
            self._last_at = now
            return False
        old = self.control.restart_camera()
        if old is None:
            return False
        self._left.append(old)
        self.restarts += 1
        self.restarts_in_all += 1
        self._last_at = now
        self.table.set_camera_status({"restarts": self.restarts_in_all})  # the state shows it
        return True

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="camera-restarts", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.policy.check_every_s):
            try:
                self.check()
            except Exception:  # noqa: BLE001 - the watcher must outlive one bad look
                continue

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
