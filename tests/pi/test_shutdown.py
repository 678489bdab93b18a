"""Two SIGTERMs 1 ms apart (systemd, then `kill -- -PGID` of a process group) and the
server has exited within 5 s, cleanly (issue 45: it used to log "shutting down" three
times and stay up, the second signal deadlocking on the camera's lock)."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_serving(proc, port, limit_s=60.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}: {proc.stderr.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("server did not start")


def wait_for_frames(port, limit_s=60.0) -> None:
    """Until the demo camera has delivered frames (its model is loaded)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as r:
                if (json.loads(r.read()).get("camera") or {}).get("frames", 0) > 0:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError("the demo camera gave no frame")


@pytest.mark.parametrize("signals", [(signal.SIGTERM, signal.SIGTERM),
                                     (signal.SIGTERM, signal.SIGTERM, signal.SIGTERM),
                                     (signal.SIGINT, signal.SIGTERM)])
def test_repeated_signals_during_shutdown_do_not_hang(tmp_path, signals):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "zatre_vision", "serve", "--demo", "--host", "127.0.0.1",
         "--port", str(port), "--data-dir", str(tmp_path / "data"), "--pin", "4821"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        wait_until_serving(proc, port)
        wait_for_frames(port)  # the demo's camera thread is running
        for sig in signals:
            proc.send_signal(sig)
            time.sleep(0.001)
        t0 = time.monotonic()
        proc.wait(5)
        assert time.monotonic() - t0 < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
            pytest.fail("the server was still running 5 s after the signals")
    err = proc.stderr.read()
    assert err.count("shutting down") == 1, err
    assert "Traceback" not in err, err
    assert proc.returncode == 0, err
