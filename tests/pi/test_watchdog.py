"""A hang, and what it restarts (issues 52 and 63):

- a camera whose capture never returns (a first capture included) is shown as
  "stalled" and its pipeline is restarted in the process, with back-off, while the
  watchdog is fed on and turns are entered by hand;
- a web server whose loop hangs (every request times out), here a real ``zatre serve``
  stopped with SIGSTOP while the feeder probes it, stops the pings, so that systemd
  restarts the service; they come back when the hang ends."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from zatre_vision.camera.base import Frame, make_lores
from zatre_vision.sd_notify import TableHealth, WatchdogFeeder, http_answers, self_url
from zatre_vision.server.camera import CameraControl
from zatre_vision.server.camera_restarts import CameraRestarts, RestartPolicy
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


class HangingCameras:
    """The pipelines factory of CameraControl: each start is a camera service over a new
    source whose capture hangs until ``release``d (all of them at once)."""

    def __init__(self, stall_s):
        self.stall_s, self.sources, self.services = stall_s, [], []

    def __call__(self, table, source, players):
        camera = FirstCaptureHangs()
        self.sources.append(camera)
        service = CameraService(table, camera, NoBoardReader, stall_s=self.stall_s,
                                watch_every_s=0.05)
        self.services.append(service)
        return service

    def release(self):
        for camera in self.sources:
            camera.release.set()


def test_a_camera_that_hangs_is_restarted_while_the_table_plays_on_by_hand(tmp_path):
    stall_s = 0.6
    table = Table(open_store(tmp_path), "table-1")
    table.new_match(["Ann", "Ben"], "Ann", source="camera")
    cameras = HangingCameras(stall_s)
    control = CameraControl(table, pipelines=cameras)
    restarts = CameraRestarts(table, control, RestartPolicy(first_wait_s=0.5, max_hung=3,
                                                            check_every_s=0.05))
    pings = Pings()
    feeder = WatchdogFeeder(0.15, TableHealth(None), send=pings)
    started = time.monotonic()
    control.start("picamera2")
    restarts.start()
    feeder.start()
    try:
        assert wait_until(lambda: table.camera.get("state") == "stalled", 5 * stall_s)
        assert stall_s <= time.monotonic() - started < stall_s + 1.0
        assert "restarted on its own" in table.camera["message"]
        placed = [{"H8": 6, "H7": 5, "G7": 5}, {"I8": 4}, {}]
        for turn in placed:                              # by hand, through the hang
            assert table.commit_turn(turn, source="manual")["legal"]
        assert wait_until(lambda: restarts.restarts_in_all >= 3, 10)
        assert len(cameras.sources) == 4                 # the first and three restarts
        assert table.camera["restarts"] == 3             # the state (and dashboard) says so
        time.sleep(1.0)
        assert restarts.restarts_in_all == 3 and restarts.hung() == 3   # no more: max_hung
        assert "no longer restarted" in table.camera["message"]
        assert pings.at and pings.after(time.monotonic() - 0.3), "the watchdog is fed on"
        assert not any("not fed" in m for m in pings.status)
        assert table.state()["turns_played"] == len(placed)
        cameras.release()                                # the camera comes back
        assert wait_until(lambda: table.camera.get("state") != "stalled", 5.0)
        assert wait_until(lambda: restarts.hung() == 0, 5.0)
        assert cameras.sources[0].closed.wait(5)         # the left-behind capture ended
    finally:
        cameras.release()
        feeder.stop()
        restarts.stop()
        control.stop()
        table.close()


def test_restarts_back_off_and_their_policy_is_bounded():
    policy = RestartPolicy(first_wait_s=30, max_wait_s=600)
    assert [policy.wait_before(n) for n in range(7)] == [0, 30, 60, 120, 240, 480, 600]
    for bad in ({"first_wait_s": 0}, {"max_wait_s": 1}, {"max_hung": 0},
                {"check_every_s": 100}):
        with pytest.raises(ValueError):
            RestartPolicy(**bad)


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
    feeder = WatchdogFeeder(0.6, TableHealth(url, timeout_s=0.3),
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
