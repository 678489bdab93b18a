"""Browser tests: the real server (waitress, in its own process) and Debian's Chromium
driven by Playwright. Skipped, with the reason, only when no Chromium binary exists."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

PIN = "4321"
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``python -m zatre_vision.server`` on a loopback port with its own data folder."""

    def __init__(self, data_dir: Path, *extra: str, env: dict[str, str] | None = None):
        self.data_dir = data_dir
        self.env = {**os.environ, **(env or {})}
        self.port = free_port()
        self.extra = extra
        self.proc: subprocess.Popen | None = None
        self.url = f"http://127.0.0.1:{self.port}"

    def _spawn(self, log) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "zatre_vision.server", "--host", "127.0.0.1", "--port",
             str(self.port), "--data-dir", str(self.data_dir), "--pin", PIN, *self.extra],
            stdout=log, stderr=subprocess.STDOUT, env=self.env)

    def start(self) -> Server:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log_path = self.data_dir.parent / f"server-{self.port}.log"
        with open(log_path, "ab") as log:  # the child keeps its own copy of the handle
            self.proc = self._spawn(log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                self.get("/api/state")
                return self
            except (OSError, urllib.error.URLError):
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def stop(self, sig=signal.SIGTERM) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=5) as r:
            return json.loads(r.read())

    def post(self, path: str, body: dict) -> dict:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "X-Table-PIN": PIN}, method="POST")
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read())


@pytest.fixture
def server(tmp_path):
    servers: list[Server] = []

    def make(*extra: str, data_dir: Path | None = None,
             env: dict[str, str] | None = None) -> Server:
        s = Server(data_dir or tmp_path / "data", *extra, env=env).start()
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.stop()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    ctx.close()
    assert not errors, errors


def sign_in(page, base: str) -> None:
    page.goto(f"{base}/login")
    page.fill("#pin", PIN)
    page.click("#login-submit")
    page.wait_for_selector("#controls")
