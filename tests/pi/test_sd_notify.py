"""sd_notify without a dependency: READY=1 when `zatre serve` serves, WATCHDOG=1 while
the camera makes progress and none once it has stalled (issue 45)."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time

from zatre_vision.sd_notify import TableHealth, WatchdogFeeder, notify, watchdog_interval_s


def listener(tmp_path):
    path = str(tmp_path / "notify.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(0.2)
    return s, path


def received(s, until, limit_s=60.0):
    got = []
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and until not in got:
        with contextlib.suppress(TimeoutError):
            got.append(s.recv(4096).decode())
    return got


def test_notify_sends_one_datagram(tmp_path):
    s, path = listener(tmp_path)
    try:
        assert notify("STATUS=hello", {"NOTIFY_SOCKET": path})
        assert s.recv(100) == b"STATUS=hello"
    finally:
        s.close()
    assert notify("READY=1", {}) is False  # not under systemd: nothing, no error
    assert notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")}) is False


def test_watchdog_interval():
    assert watchdog_interval_s({"WATCHDOG_USEC": "60000000"}, pid=5) == 60.0
    assert watchdog_interval_s({"WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "4"}, pid=5) is None
    assert watchdog_interval_s({}, pid=5) is None


def test_the_feeder_says_why_it_stops_and_when_it_feeds_again():
    sent, answers = [], [True]
    health = TableHealth("http://127.0.0.1:1/api/state", probe=lambda url, t: answers[-1])
    feeder = WatchdogFeeder(3.0, health, send=sent.append)
    assert feeder.beat() and sent == ["WATCHDOG=1"]
    answers.append(False)  # the web loop hangs: let systemd restart us
    assert not feeder.beat() and sent.count("WATCHDOG=1") == 1
    assert sent[-1].startswith("STATUS=watchdog not fed: the web server did not answer")
    answers.append(True)
    assert feeder.beat() and sent.count("WATCHDOG=1") == 2


def test_serve_says_ready_and_feeds_the_watchdog(tmp_path):
    s, path = listener(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "300000"}
    env.pop("WATCHDOG_PID", None)
    proc = subprocess.Popen([sys.executable, "-m", "zatre_vision", "serve", "--source", "none",
                             "--host", "127.0.0.1", "--port", str(port), "--data-dir",
                             str(tmp_path / "data"), "--pin", "4821"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        got = received(s, "READY=1")
        assert "READY=1" in got
        got = received(s, "WATCHDOG=1", limit_s=10)
        assert "WATCHDOG=1" in got
        proc.send_signal(signal.SIGTERM)
        assert "STOPPING=1" in received(s, "STOPPING=1", limit_s=10)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        s.close()
