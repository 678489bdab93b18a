"""The systemd watchdog sees a hang (issue 52): WATCHDOG=1 goes out only while the camera
gave a frame within its stall limit (or is known to be off) and the web server answers
a request the feeder makes to itself. Two hangs that used to be fed for good:

- a camera whose first capture never returns (the stall check waited for a first frame);
- a web server whose loop hangs (every request times out), here a real ``zatre serve``
  stopped with SIGSTOP while the feeder probes it.

In both the pings stop within the stall limit, and come back when the hang ends."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np

from zatre_vision.camera.base import Frame, make_lores
from zatre_vision.sd_notify import TableHealth, WatchdogFeeder, http_answers, self_url
from zatre_vision.store import open_store
from zatre_vision.table import Table
from zatre_vision.tracking.service import CameraService


class Pings:
    """Collects the feeder's WATCHDOG=1 with the time each went out."""

    def __init__(self):
        self.at: list[float] = []
        self.status: list[str] = []

    def __call__(self, message: str) -> None:
        if message == "WATCHDOG=1":
            self.at.append(time.monotonic())
        else:
            self.status.append(message)

    def after(self, t: float) -> list[float]:
        return [p for p in self.at if p > t]


def wait_until(condition, limit_s: float) -> bool:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


class FirstCaptureHangs:
    """A camera that opens, then whose first capture does not return until released."""

    name = "picamera2"

    def __init__(self):
        self.release = threading.Event()
        self.closed = threading.Event()

    def open(self):
        pass

    def read(self):
        self.release.wait()
        time.sleep(0.02)
        image = np.zeros((60, 80, 3), np.uint8)
        return Frame(image, make_lores(image), 0, 0.0)

    def close(self):
        self.closed.set()


class NoBoardReader:
    def read(self, image):
        raise AssertionError("no match is set up: nothing should be read")


def test_a_first_capture_that_never_returns_stops_the_pings_within_the_stall_limit(tmp_path):
    stall_s = 0.8
    table = Table(open_store(tmp_path), "table-1")
    source = FirstCaptureHangs()
    service = CameraService(table, source, NoBoardReader, stall_s=stall_s, watch_every_s=0.05)
    pings = Pings()
    feeder = WatchdogFeeder(0.15, TableHealth(lambda: table.camera, None), send=pings)
    started = time.monotonic()
    service.start()
    feeder.start()
    try:
        assert wait_until(lambda: table.camera.get("state") == "stalled", 5 * stall_s)
        stalled_at = time.monotonic()
        # told once the stall limit has passed (plus a watch period and the scheduler's
        # slack on a busy machine), not never as before
        assert stall_s <= stalled_at - started < stall_s + 1.0
        time.sleep(0.5)  # ten feeder periods
        assert pings.at, "no ping while the camera was starting"
        assert pings.after(stalled_at + 0.1) == []  # at most the beat under way
        assert any("watchdog not fed: camera stalled" in m for m in pings.status)
        # the capture comes back: the state leaves "stalled" and the pings go on
        source.release.set()
        assert wait_until(lambda: table.camera.get("state") != "stalled", 5.0)
        back = time.monotonic()
        assert wait_until(lambda: pings.after(back), 2.0)
    finally:
        source.release.set()
        feeder.stop()
        service.stop()
        table.close()


def test_a_camera_known_to_be_off_is_fed():
    pings = Pings()
    feeder = WatchdogFeeder(0.3, TableHealth(lambda: {"state": "off"}, None), send=pings)
    assert feeder.beat() and len(pings.at) == 1
    lost = TableHealth(lambda: {"state": "lost", "message": "no camera"}, None)
    assert lost()  # away: the reconnect logic has it, a restart would not help


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_hung_server_loop_stops_the_pings_within_the_stall_limit(tmp_path):
    """A real `zatre serve`; the feeder asks it GET /api/state as the service's own
    feeder does. SIGSTOP hangs its loop: every request times out."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "zatre_vision", "serve", "--source", "none",
                             "--host", "127.0.0.1", "--port", str(port), "--data-dir",
                             str(tmp_path / "data"), "--pin", "4821"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={k: v for k, v in os.environ.items()
                                 if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")})
    url = self_url("0.0.0.0", port)
    assert url == f"http://127.0.0.1:{port}/api/state"
    stall_s = 2.0
    pings = Pings()
    feeder = WatchdogFeeder(0.6, TableHealth(lambda: {"state": "off"}, url, timeout_s=0.3),
                            send=pings)
    try:
        assert wait_until(lambda: http_answers(url, 1.0), 60), "zatre serve did not start"
        feeder.start()
        assert wait_until(lambda: len(pings.at) >= 2, 5)
        proc.send_signal(signal.SIGSTOP)
        hung_at = time.monotonic()
        time.sleep(stall_s)
        # at most the beat that was already under way when the loop stopped
        assert len(pings.after(hung_at)) <= 1
        assert pings.after(hung_at + 0.6) == []
        assert any("did not answer" in m for m in pings.status)
        proc.send_signal(signal.SIGCONT)
        back = time.monotonic()
        assert wait_until(lambda: pings.after(back), 5)
    finally:
        feeder.stop()
        proc.send_signal(signal.SIGCONT)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_the_probe_says_no_to_a_closed_port_and_to_a_server_error():
    assert not http_answers(f"http://127.0.0.1:{free_port()}/api/state", 0.5)
    assert self_url("::", 80) == "http://[::1]:80/api/state"
    assert self_url("192.168.1.5", 8000) == "http://192.168.1.5:8000/api/state"
