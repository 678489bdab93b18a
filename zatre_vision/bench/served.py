"""``zatre serve`` (and the table's console commands) as processes, for the benchmarks
that play a guest on the club's network against the real server.

The benchmarks' clients speak HTTP over plain sockets from chosen source addresses
(``http_request``); nothing here imports the server's code."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOKEN_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def zatre(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The ``zatre`` command as the table's console runs it."""
    return subprocess.run([sys.executable, "-m", "zatre_vision", *args], capture_output=True,
                          text=True, timeout=timeout)


def non_loopback_address() -> str | None:
    """This machine's address on its network (where phones come from), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.254", 9))  # no packet is sent: only the route is looked up
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def http_request(port: int, method: str, path: str, *, host: str = "127.0.0.1",
                 source: str | None = None, body: bytes | None = None,
                 headers: dict | None = None, timeout: float = 10.0
                 ) -> tuple[int, dict, bytes]:
    """One request on a new connection from ``source``: (status, headers, body)."""
    conn = http.client.HTTPConnection(host, port, timeout=timeout,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


class Browser:
    """A phone's browser: its cookie, its address, the page's CSRF token."""

    def __init__(self, port: int, source: str, host: str = "127.0.0.1"):
        self.port, self.source, self.host = port, source, host
        self.cookie = ""
        self.token = ""

    def _send(self, method: str, path: str, body: bytes | None = None,
              headers: dict | None = None, timeout: float = 10.0) -> tuple[int, dict, bytes]:
        headers = dict(headers or {})
        if self.cookie:
            headers["Cookie"] = self.cookie
        status, got, data = http_request(self.port, method, path, host=self.host,
                                         source=self.source, body=body, headers=headers,
                                         timeout=timeout)
        cookie = got.get("set-cookie", "")
        if cookie.startswith("session="):
            self.cookie = cookie.split(";", 1)[0]
        return status, got, data

    def open_page(self, path: str = "/login") -> int:
        status, _, data = self._send("GET", path)
        found = TOKEN_RE.search(data.decode("utf-8", "replace"))
        if found:
            self.token = found.group(1)
        return status

    def post(self, path: str, fields: dict, timeout: float = 10.0) -> tuple[int, dict]:
        """A form sent by the page's script (JSON in, JSON out, the CSRF header)."""
        status, _, data = self._send("POST", path, json.dumps(fields).encode(), {
            "Content-Type": "application/json", "Accept": "application/json",
            "X-CSRF-Token": self.token}, timeout)
        try:
            return status, json.loads(data or b"{}")
        except ValueError:
            return status, {}

    def sign_in(self, pin: str) -> tuple[int, dict]:
        if not self.token:
            self.open_page()
        return self.post("/login", {"pin": pin})


class Served:
    """``zatre serve`` on a free port in its own process, until ``close()``."""

    def __init__(self, data: str | None = None, *args: str, host: str = "127.0.0.1",
                 env: dict | None = None, ask: str = "127.0.0.1", log: str | None = None):
        self.data = data or tempfile.mkdtemp(prefix="zatre-guest-")
        self.port = free_port()
        cmd = [sys.executable, "-m", "zatre_vision", "serve", "--host", host, "--port",
               str(self.port), "--data-dir", self.data, *args]
        out = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 - kept open
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=out,
                                        env={**os.environ, **(env or {})})
        deadline = time.monotonic() + 90
        while True:
            try:
                http_request(self.port, "GET", "/api/state", host=ask, timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.close()
                    raise RuntimeError("zatre serve did not start") from None
                time.sleep(0.2)

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


def data_folder_with_pin(pin: str) -> str:
    """A new table's data folder whose PIN was set at the console (``zatre pin set``)."""
    data = tempfile.mkdtemp(prefix="zatre-guest-")
    done = zatre("pin", "set", "--data-dir", data, "--pin", pin)
    if done.returncode != 0:
        raise RuntimeError(f"zatre pin set failed: {done.stderr.strip()}")
    return data


def console_code(data: str) -> str:
    """A one-time sign-in code from the table's console (``zatre pin grant``)."""
    done = zatre("pin", "grant", "--data-dir", data)
    if done.returncode != 0:
        raise RuntimeError(f"zatre pin grant failed: {done.stderr.strip()}")
    return done.stdout.strip()


def rss_mb(pid: int) -> float | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"VmRSS:\s+(\d+) kB", text)
    return round(int(found.group(1)) / 1024, 1) if found else None
