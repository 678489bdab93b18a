"""Load benchmark of ``zatre serve``: a full room and a hostile guest against the operator.

Starts ``zatre serve`` (manual entry, a fresh data folder) on 127.0.0.1 in its own
process and runs two phases of ``seconds`` each on a new match:

1. **baseline**: only the operator: ``GET /api/state`` at ``rate`` per second (4
   threads, a new connection each) and a turn posted (``X-Table-PIN``, with the
   revision it was made from) every ``turn_every_s``;
2. **load**: the same, while ``streams`` clients hold ``GET /events`` open and read
   every state, and ``idle`` sockets from the same address connect and send nothing
   (each one the server closes is opened again at once, as a stranger would).

Every request is timed; any refusal, error or timeout counts as an error. After the
load phase every stream must have seen every state version from its first one to the
last (missed versions are counted) and still be open. The result (p50, p99 and max
per phase, their ratio, errors, missed versions, idle sockets the server closed) goes
to ``benchmarks/results/serve_load.json`` with the commit, date, machine and command.
Everything is loopback and bounded in time: the benchmark stops by itself.
"""

from __future__ import annotations

import errno
import http.client
import json
import os
import platform
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone

from .results import current_commit

PIN = "4711"
VERSION_RE = re.compile(rb'"version":(\d+)')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port: int, method: str, path: str, body: dict | None = None,
            timeout: float = 10.0) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers |= {"Content-Type": "application/json", "X-Table-PIN": PIN}
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        conn.close()


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else 0.0


def summary(ms: list[float]) -> dict:
    return {"requests": len(ms), "p50_ms": round(statistics.median(ms), 1) if ms else None,
            "p99_ms": round(pct(ms, 0.99), 1), "max_ms": round(max(ms), 1) if ms else None}


class Crowd(threading.Thread):
    """The spectators' streams and the stranger's idle sockets, in one selector thread."""

    def __init__(self, port: int, streams: int, idle: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.port, self.n_streams, self.n_idle, self.stop = port, streams, idle, stop
        self.sel = selectors.DefaultSelector()
        self.versions: list[set[int]] = [set() for _ in range(streams)]
        self.buffers: list[bytes] = [b""] * streams
        self.status: list[int | None] = [None] * streams
        self.stream_errors: list[str] = []
        self.idle_closed_by_server = 0
        self.idle_open = 0
        self.ready = threading.Event()

    def _connect(self) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        s.setblocking(False)
        return s

    def _open_idle(self) -> None:
        s = self._connect()
        self.sel.register(s, selectors.EVENT_READ, ("idle", None))
        self.idle_open += 1

    def run(self) -> None:
        for i in range(self.n_streams):
            s = self._connect()
            s.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
            self.sel.register(s, selectors.EVENT_READ, ("stream", i))
        for _ in range(self.n_idle):
            self._open_idle()
        self.ready.set()
        while not self.stop.is_set():
            for key, _ in self.sel.select(timeout=0.1):
                kind, i = key.data
                try:
                    chunk = key.fileobj.recv(262144)
                except OSError as exc:
                    if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                        continue
                    chunk = b""
                if kind == "idle":
                    if not chunk:  # the server let an idle socket go: open another
                        self.sel.unregister(key.fileobj)
                        key.fileobj.close()
                        self.idle_closed_by_server += 1
                        self.idle_open -= 1
                        if not self.stop.is_set():
                            self._open_idle()
                    continue
                if not chunk:
                    self.stream_errors.append(f"stream {i} closed by the server")
                    self.sel.unregister(key.fileobj)
                    key.fileobj.close()
                    continue
                self._read_stream(i, chunk)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()
        self.sel.close()

    def _read_stream(self, i: int, chunk: bytes) -> None:
        buf = self.buffers[i] + chunk
        if self.status[i] is None:
            if b"\r\n\r\n" not in buf:
                self.buffers[i] = buf
                return
            head, buf = buf.split(b"\r\n\r\n", 1)
            self.status[i] = int(head.split()[1])
            if self.status[i] != 200:
                self.stream_errors.append(f"stream {i} refused ({self.status[i]})")
        *blocks, rest = buf.split(b"\n\n")
        for block in blocks:
            if block.startswith(b"event: state"):
                m = VERSION_RE.search(block)
                if m:
                    self.versions[i].add(int(m.group(1)))
        self.buffers[i] = rest


class Operator:
    """GET /api/state at ``rate``/s from 4 threads and a turn every ``turn_every_s``."""

    def __init__(self, port: int, rate: float, turn_every_s: float, turns):
        self.port, self.rate, self.turn_every_s, self.turns = port, rate, turn_every_s, turns
        self.state_ms: list[float] = []
        self.turn_ms: list[float] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()

    def _timed(self, into: list[float], method: str, path: str, body=None) -> dict | None:
        t0 = time.perf_counter()
        try:
            status, reply = request(self.port, method, path, body)
        except (OSError, http.client.HTTPException) as exc:
            with self._lock:
                self.errors.append(f"{method} {path}: {type(exc).__name__}")
            return None
        ms = (time.perf_counter() - t0) * 1000
        with self._lock:
            into.append(ms)
            if status >= 300:
                self.errors.append(f"{method} {path}: {status} {reply.get('error', '')}")
                return None
        return reply

    def run(self, seconds: float) -> None:
        end = time.perf_counter() + seconds
        workers = 4
        interval = workers / self.rate

        def poll(offset: float) -> None:
            next_at = time.perf_counter() + offset
            while next_at < end:
                time.sleep(max(0.0, next_at - time.perf_counter()))
                self._timed(self.state_ms, "GET", "/api/state")
                next_at += interval

        threads = [threading.Thread(target=poll, args=(k * interval / workers,), daemon=True)
                   for k in range(workers)]
        for t in threads:
            t.start()
        next_turn = time.perf_counter()
        while next_turn < end:
            time.sleep(max(0.0, next_turn - time.perf_counter()))
            turn = next(self.turns, None)
            if turn is None:
                break
            _, state = request(self.port, "GET", "/api/state")
            self._timed(self.turn_ms, "POST", "/table/turn",
                        {"placed": turn.result.placed, "hand": list(turn.hand),
                         "revision": state["revision"], "boot": state["boot"]})
            next_turn += self.turn_every_s
        for t in threads:
            t.join(seconds + 30)


def _new_match(port: int, seed: int):
    from ..simulate import Simulation

    sim = Simulation(["Ann", "Ben", "Cleo"], seed)
    status, reply = request(port, "POST", "/setup", {
        "players": ["Ann", "Ben", "Cleo"], "starter": sim.game.seat.name, "camera": "none",
        "replace": True})
    if status != 200:
        raise RuntimeError(f"setup failed: {status} {reply}")
    return iter(sim)


def _phase(port: int, seconds: float, rate: float, turn_every_s: float, seed: int) -> dict:
    op = Operator(port, rate, turn_every_s, _new_match(port, seed))
    op.run(seconds)
    return {"api_state": summary(op.state_ms), "turn_post": summary(op.turn_ms),
            "all": summary(op.state_ms + op.turn_ms), "errors": op.errors,
            "turns_posted": len(op.turn_ms)}


def run_load_benchmark(streams: int = 200, idle: int = 200, rate: float = 20.0,
                       turn_every_s: float = 1.0, seconds: float = 20.0, seed: int = 3,
                       command: str = "zatre bench load") -> dict:
    from ..server.stream_hub import raise_open_files_limit

    raise_open_files_limit(streams + idle + 256)
    port = free_port()
    data = tempfile.mkdtemp(prefix="zatre-load-")
    server = subprocess.Popen(
        [sys.executable, "-m", "zatre_vision", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--data-dir", data, "--pin", PIN, "--source", "none"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                request(port, "GET", "/api/state", timeout=1)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("zatre serve did not start") from None
                time.sleep(0.2)
        baseline = _phase(port, seconds, rate, turn_every_s, seed)

        stop = threading.Event()
        crowd = Crowd(port, streams, idle, stop)
        crowd.start()
        crowd.ready.wait(60)
        time.sleep(1.0)  # every stream has its first state
        loaded = _phase(port, seconds, rate, turn_every_s, seed + 1)
        time.sleep(1.0)  # the last states reach every stream
        _, final = request(port, "GET", "/api/state")
        stop.set()
        crowd.join(30)

        missed = expected = 0
        streaming = 0
        for seen in crowd.versions:
            if not seen:
                continue
            streaming += 1
            due = set(range(min(seen), final["version"] + 1))
            expected += len(due)
            missed += len(due - seen)
        never = streams - streaming
        errors = loaded["errors"] + baseline["errors"] + crowd.stream_errors
        p99 = loaded["all"]["p99_ms"]
        ok = p99 < 200 and not errors and missed == 0 and never == 0
        return {
            "benchmark": "serve_load",
            "ok": ok,
            "command": command,
            "commit": current_commit(),
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                        "platform": platform.platform()},
            "setup": {"streams": streams, "idle_sockets": idle, "api_state_per_s": rate,
                      "turn_every_s": turn_every_s, "seconds_per_phase": seconds,
                      "address": "127.0.0.1 (every client)"},
            "target": {"p99_ms_under": 200, "errors": 0, "missed_versions": 0},
            "baseline": baseline,
            "load": loaded,
            "p99_ratio_load_to_baseline": (round(p99 / baseline["all"]["p99_ms"], 2)
                                           if baseline["all"]["p99_ms"] else None),
            "streams": {"streaming": streaming, "never_got_a_state": never,
                        "final_version": final["version"], "versions_expected": expected,
                        "missed_versions": missed,
                        "errors": crowd.stream_errors[:20]},
            "idle": {"closed_by_server": crowd.idle_closed_by_server},
            "errors": len(errors),
            "note": "server and all clients on one shared machine; times are per request "
                    "from connect to the last byte of the reply",
        }
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(5)
