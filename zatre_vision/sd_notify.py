"""systemd's notify protocol without a dependency: one datagram to ``$NOTIFY_SOCKET``.

The unit is ``Type=notify`` with ``WatchdogSec``: ``zatre serve`` says ``READY=1`` once it
serves and ``STOPPING=1`` when it stops; a :class:`WatchdogFeeder` thread says
``WATCHDOG=1`` every third of the watchdog interval *while the camera makes progress*.
A camera hung in its read (the service's state "stalled") stops the feeding, and
systemd restarts the service, instead of the table waiting for a person. Outside
systemd (no ``NOTIFY_SOCKET``) everything here does nothing.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Mapping


def notify(message: str, env: Mapping[str, str] | None = None) -> bool:
    """Send ``message`` (``READY=1``, ``WATCHDOG=1``, ``STATUS=...``); False when not
    under systemd or the socket cannot be reached (never raises)."""
    env = os.environ if env is None else env
    path = env.get("NOTIFY_SOCKET", "")
    if not path:
        return False
    address = "\0" + path[1:] if path.startswith("@") else path  # abstract namespace
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.connect(address)
            s.sendall(message.encode("utf-8", "replace"))
        return True
    except OSError:
        return False


def watchdog_interval_s(env: Mapping[str, str] | None = None, pid: int | None = None
                        ) -> float | None:
    """The unit's WatchdogSec (from ``WATCHDOG_USEC``) when it is meant for this process."""
    env = os.environ if env is None else env
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    owner = env.get("WATCHDOG_PID")
    if owner and owner.isdigit() and int(owner) != (os.getpid() if pid is None else pid):
        return None
    return usec / 1e6 if usec > 0 else None


class WatchdogFeeder:
    """Says WATCHDOG=1 every ``interval / 3`` seconds while ``healthy()`` is true."""

    def __init__(self, interval_s: float, healthy: Callable[[], bool],
                 send: Callable[[str], object] = notify):
        self.every = max(interval_s / 3, 0.05)
        self.healthy, self.send = healthy, send
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.fed = 0

    def beat(self) -> bool:
        try:
            ok = bool(self.healthy())
        except Exception:  # noqa: BLE001 - a failing health check is not healthy
            ok = False
        if ok:
            self.send("WATCHDOG=1")
            self.fed += 1
        return ok

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="sd-watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.beat()
            self._stop.wait(self.every)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None


def camera_progressing(state: Callable[[], dict], stalled_states=("stalled",)) -> bool:
    """Healthy unless the camera says it is connected but gives no frame."""
    camera = state() or {}
    return camera.get("state") not in stalled_states
