"""``zatre bench sse``: load test of the live dashboard, spectators on the event stream
while a game plays.

Starts ``zatre serve`` (waitress, ``threads`` threads) on 127.0.0.1 in its own process,
opens ``clients`` server-sent-event clients, plays a whole simulated game through the
HTTP API at a fast pace (one turn every ``pace`` seconds, then the minus points), and
checks that every client received every state version, in order. Meanwhile a prober
times ``GET /api/state``.
"""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from ..simulate import Simulation

PIN = "5555"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client(threading.Thread):
    """One spectator: reads the stream, records (version, arrival time) per event."""

    def __init__(self, port: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.events: list[tuple[int, float]] = []
        self.connected = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
            resp = conn.getresponse()
            self.connected.set()
            event, data = None, None
            while not self.stop.is_set():
                line = resp.fp.readline()
                if not line:
                    break
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif line == "":
                    if event == "state" and data:
                        self.events.append((json.loads(data)["version"], time.perf_counter()))
                    event, data = None, None
            conn.close()
        except Exception as exc:  # noqa: BLE001 - reported in the results
            self.error = f"{exc.__class__.__name__}: {exc}"
            self.connected.set()


def post(port: int, path: str, body: dict) -> dict:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", "X-Table-PIN": PIN},
                                 method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def run_sse_benchmark(clients: int = 50, pace: float = 0.1, seed: int = 1,
                      threads: int = 96) -> dict:
    """One game under ``clients`` spectators; ``ok`` when none missed an event."""
    port = free_port()
    data = tempfile.mkdtemp(prefix="zatre-bench-")
    server = subprocess.Popen(
        [sys.executable, "-m", "zatre_vision.server", "--host", "127.0.0.1", "--port", str(port),
         "--data-dir", data, "--pin", PIN, "--source", "none", "--threads", str(threads)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        sim = Simulation(["Ann", "Ben", "Cleo"], seed)
        post(port, "/setup", {"players": ["Ann", "Ben", "Cleo"], "starter": sim.game.seat.name,
                              "camera": "none"})

        stop = threading.Event()
        spectators = [Client(port, stop) for _ in range(clients)]
        for c in spectators:
            c.start()
        for c in spectators:
            c.connected.wait(10)
        time.sleep(0.5)  # every client has its first state

        api_ms: list[float] = []

        def probe() -> None:
            while not stop.is_set():
                t0 = time.perf_counter()
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10).read()
                api_ms.append((time.perf_counter() - t0) * 1000)
                time.sleep(0.05)

        prober = threading.Thread(target=probe, daemon=True)
        prober.start()

        sent: dict[int, float] = {}  # version -> time the change was requested
        post_ms: list[float] = []
        t_start = time.perf_counter()
        turns = 0
        for turn in sim:
            t0 = time.perf_counter()
            state = post(port, "/table/turn", {"placed": turn.result.placed, "hand": list(turn.hand)})["state"]
            post_ms.append((time.perf_counter() - t0) * 1000)
            sent[state["version"]] = t0
            turns += 1
            time.sleep(max(0.0, pace - (time.perf_counter() - t0)))
        t0 = time.perf_counter()
        minus = {s.name: s.sheet.minus for s in sim.game.seats}
        final = post(port, "/table/finish", {"minus": minus})["state"]
        sent[final["version"]] = t0
        duration = time.perf_counter() - t_start
        time.sleep(1.0)  # let the last event reach everyone
        stop.set()
        prober.join(5)

        first_version = min(sent)
        expected = list(range(first_version, final["version"] + 1))
        missed = 0
        out_of_order = 0
        delivery_ms: list[float] = []
        for c in spectators:
            got = [v for v, _ in c.events if v >= first_version]
            missed += len(set(expected) - set(got))
            out_of_order += sum(1 for a, b in zip(got, got[1:], strict=False) if b != a + 1)
            for v, t in c.events:
                if v in sent:
                    delivery_ms.append((t - sent[v]) * 1000)
        errors = [c.error for c in spectators if c.error]
        ok = (missed == 0 and out_of_order == 0 and not errors
              and final["sheets"]["Ann"]["total"] == sim.game.seats[0].sheet.total)
        result = {
            "benchmark": "sse_load",
            "ok": ok,
            "clients": clients,
            "server_threads": threads,
            "turns": turns,
            "state_versions": len(expected),
            "events_expected": len(expected) * clients,
            "events_missed": missed,
            "events_out_of_order": out_of_order,
            "client_errors": errors,
            "game_seconds": round(duration, 2),
            "pace_s": pace,
            "delivery_ms": {"p50": round(statistics.median(delivery_ms), 1),
                            "p95": round(pct(delivery_ms, 0.95), 1),
                            "max": round(max(delivery_ms), 1)},
            "api_state_ms": {"requests": len(api_ms), "p50": round(statistics.median(api_ms), 1),
                             "p95": round(pct(api_ms, 0.95), 1), "max": round(max(api_ms), 1)},
            "turn_post_ms": {"p50": round(statistics.median(post_ms), 1),
                             "p95": round(pct(post_ms, 0.95), 1)},
            "note": "server and all clients on one machine, loopback only; delivery = from "
                    "the request that made the change to the event's arrival at a client",
        }
        result["summary"] = {k: result[k] for k in ("ok", "clients", "turns", "events_missed",
                                                    "events_out_of_order", "delivery_ms")}
        return result
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)

