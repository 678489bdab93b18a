"""systemd's notify protocol without a dependency: one datagram to ``$NOTIFY_SOCKET``.

The unit is ``Type=notify`` with ``WatchdogSec``: ``zatre serve`` says ``READY=1`` once it
serves and ``STOPPING=1`` when it stops; a :class:`WatchdogFeeder` thread says
``WATCHDOG=1`` every third of the watchdog interval *while the web server answers* a
request the feeder makes to itself (``GET /api/state``, which also takes the table's
lock): :class:`TableHealth`. A hung web loop stops the feeding, and systemd restarts the
service instead of the table waiting for a person. A camera that hangs does not: its
pipeline is restarted on its own in the process (``server/camera_restarts.py``) and the
dashboard says "stalled", while turns are entered by hand. Outside systemd (no
``NOTIFY_SOCKET``) everything here does nothing.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping

log = logging.getLogger("zatre.watchdog")


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
        self._was_ok = True

    def beat(self) -> bool:
        try:
            ok = bool(self.healthy())
        except Exception:  # noqa: BLE001 - a failing health check is not healthy
            ok = False
        if ok:
            self.send("WATCHDOG=1")
            self.fed += 1
        if ok != self._was_ok:  # the journal and systemctl status say why, once
            why = getattr(self.healthy, "reason", "") or "the health check failed"
            line = "watchdog fed again" if ok else f"watchdog not fed: {why}"
            (log.info if ok else log.warning)("%s", line)
            self.send(f"STATUS={line}")
            self._was_ok = ok
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


def http_answers(url: str, timeout_s: float) -> bool:
    """True when ``GET url`` gets an answer below 500 within ``timeout_s`` (no proxy)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout_s) as answer:
            answer.read(1 << 20)
            return answer.status < 500
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except (OSError, ValueError):  # refused, timed out, reset
        return False


def self_url(host: str, port: int, path: str = "/api/state") -> str:
    """Where this process's own server answers: 0.0.0.0 and :: are asked on loopback."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}{path}"


class TableHealth:
    """The watchdog's question: does the table show life? With a ``url``, the web server
    answers it within ``timeout_s`` (the camera is not asked: a stalled camera is
    restarted in the process, and hand entry goes on meanwhile). ``reason`` says what
    failed last."""

    def __init__(self, url: str | None, timeout_s: float = 5.0,
                 probe: Callable[[str, float], bool] = http_answers):
        self.url, self.timeout_s, self.probe = url, timeout_s, probe
        self.reason = ""

    def __call__(self) -> bool:
        if self.url is not None and not self.probe(self.url, self.timeout_s):
            self.reason = (f"the web server did not answer {self.url} within "
                           f"{self.timeout_s:g} s")
            return False
        self.reason = ""
        return True
