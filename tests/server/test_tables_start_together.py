"""A club evening's tables, each ``zatre serve`` in its own process, on one database
(issue 62): four started at once on a fresh database all come up; then a second server
with a name in use is refused in one line naming the holder's address, and the holder
killed with SIGKILL and started again at its address comes straight back."""

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from zatre_vision.store import open_store
from zatre_vision.store.leases import TableLeases

from ..databases import databases_fixture

databases = databases_fixture()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _db_url(databases) -> str:
    return databases.url or f"sqlite:///{databases.tmp_path / 'club.db'}"


def _serve(databases, name: str, port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "zatre_vision", "serve", "--source", "none", "--host",
         "127.0.0.1", "--port", str(port), "--data-dir", str(databases.tmp_path / name / str(port)),
         "--db", _db_url(databases), "--table", name, "--pin", "2468"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _state(port: int) -> dict | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as r:
            return json.load(r)
    except OSError:
        return None


def _wait_up(proc: subprocess.Popen, port: int, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        state = _state(port)
        if state is not None:
            return state
        time.sleep(0.1)
    raise AssertionError(f"the server on {port} did not come up")


def _stop(procs) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def test_four_tables_start_at_once_then_a_name_in_use_is_refused(databases):
    ports = [_free_port() for _ in range(4)]
    names = [f"table-{i}" for i in range(1, 5)]
    procs = [_serve(databases, n, p) for n, p in zip(names, ports, strict=True)]
    try:
        for proc, port in zip(procs, ports, strict=True):
            assert _wait_up(proc, port)["match_id"] is None
        store = open_store(None, _db_url(databases))
        live = TableLeases(store).live()
        assert [(r["name"], r["address"]) for r in live] == \
            [(n, f"http://127.0.0.1:{p}/") for n, p in zip(names, ports, strict=True)]

        second = _serve(databases, "table-2", _free_port())
        _, err = second.communicate(timeout=60)
        assert second.returncode == 1, err                # systemd tries again later
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("zatre: error: table 'table-2' is already served by "
                                   f"http://127.0.0.1:{ports[1]}/")

        procs[1].send_signal(signal.SIGKILL)           # table-2 dies: no clean stop
        procs[1].wait(10)
        procs[1] = _serve(databases, "table-2", ports[1])   # systemd starts it again
        _wait_up(procs[1], ports[1], timeout=20)       # at once, not after the lease lapses
        holder = TableLeases(store).holder("table-2")
        assert holder["pid"] == procs[1].pid
        _stop(procs[:1])                               # a clean stop gives its name back
        assert [r["name"] for r in TableLeases(store).live()] == names[1:]
        store.close()
    finally:
        _stop(procs)
