"""Load test of the live dashboard: 50 spectators on the event stream while a game plays.

Starts ``zatre serve`` (waitress, 96 threads) on 127.0.0.1 in its own process, opens
50 server-sent-event clients, plays a whole simulated game through the HTTP API at a
fast pace (one turn every ``--pace`` seconds, then the minus points), and checks that
every client received every state version, in order. Meanwhile a prober times
``GET /api/state``. Writes benchmarks/results/sse_load.json.

    python benchmarks/bench_sse.py [--clients 50] [--pace 0.1] [--seed 1]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from zatre_vision.simulate import Simulation

PIN = "5555"
RESULTS = Path(__file__).resolve().parent / "results" / "sse_load.json"


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--pace", type=float, default=0.1, help="seconds between turns")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=96)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()

    port = free_port()
    data = tempfile.mkdtemp(prefix="zatre-bench-")
    server = subprocess.Popen(
        [sys.executable, "-m", "zatre_vision.server", "--host", "127.0.0.1", "--port", str(port),
         "--data-dir", data, "--pin", PIN, "--source", "none", "--threads", str(args.threads)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        sim = Simulation(["Ann", "Ben", "Cleo"], args.seed)
        post(port, "/setup", {"players": ["Ann", "Ben", "Cleo"], "starter": sim.game.seat.name,
                              "camera": "none"})

        stop = threading.Event()
        clients = [Client(port, stop) for _ in range(args.clients)]
        for c in clients:
            c.start()
        for c in clients:
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
            time.sleep(max(0.0, args.pace - (time.perf_counter() - t0)))
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
        for c in clients:
            got = [v for v, _ in c.events if v >= first_version]
            missed += len(set(expected) - set(got))
            out_of_order += sum(1 for a, b in zip(got, got[1:], strict=False) if b != a + 1)
            for v, t in c.events:
                if v in sent:
                    delivery_ms.append((t - sent[v]) * 1000)
        errors = [c.error for c in clients if c.error]
        ok = (missed == 0 and out_of_order == 0 and not errors
              and final["sheets"]["Ann"]["total"] == sim.game.seats[0].sheet.total)
        result = {
            "benchmark": "sse_load",
            "ok": ok,
            "clients": args.clients,
            "server_threads": args.threads,
            "turns": turns,
            "state_versions": len(expected),
            "events_expected": len(expected) * args.clients,
            "events_missed": missed,
            "events_out_of_order": out_of_order,
            "client_errors": errors,
            "game_seconds": round(duration, 2),
            "pace_s": args.pace,
            "delivery_ms": {"p50": round(statistics.median(delivery_ms), 1),
                            "p95": round(pct(delivery_ms, 0.95), 1),
                            "max": round(max(delivery_ms), 1)},
            "api_state_ms": {"requests": len(api_ms), "p50": round(statistics.median(api_ms), 1),
                             "p95": round(pct(api_ms, 0.95), 1), "max": round(max(api_ms), 1)},
            "turn_post_ms": {"p50": round(statistics.median(post_ms), 1),
                             "p95": round(pct(post_ms, 0.95), 1)},
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                        "platform": platform.platform()},
            "note": "server and all clients on one machine, loopback only; delivery = from "
                    "the request that made the change to the event's arrival at a client",
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result, indent=2))
        return 0 if ok else 1
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    sys.exit(main())
