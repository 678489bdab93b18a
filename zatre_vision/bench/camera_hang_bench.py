"""Hand entry through a camera that hangs: ``zatre bench camera-hang``.

The camera is a stream whose reads never return: ``file://`` on a named pipe that
this benchmark holds open for writing and never writes to (the same blocked read as a
hung camera driver), read by OpenCV in the real camera pipeline. A match is set up
under ``zatre serve --source none``; the server is restarted with that camera as its
source, resumes the match and starts the camera; the benchmark acts as systemd
(``NOTIFY_SOCKET``, ``WATCHDOG_USEC`` as the unit's ``WatchdogSec=60``). For
``hang_s`` seconds the operator enters a turn by hand every ``turn_every_s`` (a
simulated game's turns, ``X-Table-PIN``) and a screen asks ``GET /api/state`` twice a
second. Measured: every turn recorded, every request answered (and the slowest), the
camera states shown and the pipeline's restarts, and the watchdog's longest silence
(over ``WatchdogSec``, systemd would have restarted the service). Result:
``benchmarks/results/camera_hang.json``."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

from .served import Served, http_request

PIN = "642135"
WATCHDOG_S = 60.0


class Systemd(threading.Thread):
    """The notify socket: when each ``WATCHDOG=1`` came."""

    def __init__(self, folder: Path):
        super().__init__(daemon=True)
        self.path = str(folder / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.5)
        self.pings: list[float] = []
        self.status: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                message = self.sock.recv(4096).decode("utf-8", "replace")
            except TimeoutError:
                continue
            except OSError:
                return
            if message == "WATCHDOG=1":
                self.pings.append(time.monotonic())
            elif message.startswith("STATUS="):
                self.status.append(message[7:])


def _turns(seed: int):
    from ..simulate import Simulation

    sim = Simulation(["Ann", "Ben"], seed)
    return sim, iter(sim)


def _post_turn(port: int, body: dict) -> tuple[int, dict]:
    status, _, data = http_request(port, "POST", "/table/turn", body=json.dumps(body).encode(),
                                   headers={"Content-Type": "application/json",
                                            "Accept": "application/json", "X-Table-PIN": PIN})
    return status, json.loads(data or b"{}")


def run_camera_hang_benchmark(hang_s: float = 300.0, turn_every_s: float = 10.0,
                              seed: int = 63) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="zatre-hang-"))
    data = str(folder / "data")
    sim, turns = _turns(seed)
    first = Served(data, "--source", "none", "--pin", PIN)
    try:
        status, _, reply = http_request(first.port, "POST", "/setup", body=json.dumps({
            "players": ["Ann", "Ben"], "starter": sim.game.seat.name, "camera": "none",
            "replace": True}).encode(), headers={"Content-Type": "application/json",
                                                 "Accept": "application/json",
                                                 "X-Table-PIN": PIN})
        if status != 200:
            raise RuntimeError(f"setup failed: {status} {reply[:200]!r}")
    finally:
        first.close()

    pipe = folder / "camera.mjpg"
    os.mkfifo(pipe)
    holder: dict = {}

    def hold_open():  # a writer that never writes: every read of the pipe blocks
        holder["fd"] = os.open(pipe, os.O_WRONLY)

    threading.Thread(target=hold_open, daemon=True).start()
    systemd = Systemd(folder)
    systemd.start()
    served = Served(data, "--source", f"file://{pipe}", "--pin", PIN,
                    env={"NOTIFY_SOCKET": systemd.path,
                         "WATCHDOG_USEC": str(int(WATCHDOG_S * 1e6))})
    polls, poll_ms, states, messages = {"answered": 0, "failed": 0}, [], [], set()
    posted, refused = 0, []
    seen = {"restarts": 0}
    stop = threading.Event()

    def screen():
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                status, _, body = http_request(served.port, "GET", "/api/state", timeout=10)
                ok = status == 200
            except OSError:
                ok, body = False, b""
            poll_ms.append((time.perf_counter() - t0) * 1000)
            polls["answered" if ok else "failed"] += 1
            if ok:
                camera = json.loads(body).get("camera") or {}
                if not states or states[-1] != camera.get("state"):
                    states.append(camera.get("state"))
                if camera.get("message"):
                    messages.add(camera["message"])
                seen["restarts"] = max(seen["restarts"], int(camera.get("restarts") or 0))
            stop.wait(max(0.0, 0.5 - (time.perf_counter() - t0)))

    started = time.monotonic()
    watcher = threading.Thread(target=screen, daemon=True)
    watcher.start()
    try:
        while time.monotonic() - started < hang_s:
            turn = next(turns, None)
            if turn is None:
                break
            _, _, body = http_request(served.port, "GET", "/api/state")
            state = json.loads(body)
            fields = {"placed": turn.result.placed, "revision": state["revision"],
                      "boot": state["boot"]}
            if turn.hand is not None:
                fields["hand"] = list(turn.hand)
            status, reply = _post_turn(served.port, fields)
            posted += 1
            if status != 200:
                refused.append(f"{status} {reply.get('error', '')}"[:200])
            time.sleep(max(0.0, turn_every_s - (time.monotonic() - started) % turn_every_s))
        stop.set()
        watcher.join(15)
        _, _, body = http_request(served.port, "GET", "/api/state")
        recorded = json.loads(body)["turns_played"]
        alive = served.process.poll() is None
    finally:
        stop.set()
        served.close()
        systemd.stop.set()
        with contextlib.suppress(KeyError, OSError):
            os.close(holder["fd"])
    elapsed = time.monotonic() - started
    pings = systemd.pings
    gaps = [b - a for a, b in zip(pings, pings[1:], strict=False)]
    longest = max([*gaps, (pings[0] - started) if pings else elapsed], default=elapsed)
    restarts = seen["restarts"]
    ok = (recorded == posted and not refused and polls["failed"] == 0
          and "stalled" in states and longest < WATCHDOG_S and alive)
    return {
        "ok": ok,
        "summary": {"ok": ok, "hang_s": round(elapsed), "turns_entered": posted,
                    "turns_recorded": recorded, "web_answered": polls["answered"],
                    "web_failed": polls["failed"],
                    "web_p99_ms": round(sorted(poll_ms)[int(0.99 * (len(poll_ms) - 1))], 1)
                    if poll_ms else None,
                    "camera_shown_stalled": "stalled" in states,
                    "pipeline_restarts_seen": restarts,
                    "watchdog_longest_silence_s": round(longest, 1),
                    "service_restarts": int(longest >= WATCHDOG_S or not alive)},
        "setup": {"camera": "file:// on a named pipe held open and never written (every "
                            "read blocks), through OpenCV in the camera pipeline",
                  "hand_entry": f"a simulated game's turns, one every {turn_every_s:g} s, "
                                "X-Table-PIN", "screen": "GET /api/state twice a second",
                  "watchdog": f"NOTIFY_SOCKET, WATCHDOG_USEC as WatchdogSec={WATCHDOG_S:g}"},
        "web": {**polls, "p50_ms": round(statistics.median(poll_ms), 1) if poll_ms else None,
                "max_ms": round(max(poll_ms), 1) if poll_ms else None},
        "camera_states_in_order": states,
        "camera_messages": sorted(messages),
        "turns_refused": refused,
        "watchdog": {"pings": len(pings), "longest_silence_s": round(longest, 1),
                     "status": systemd.status[-5:]},
        "targets": {"turns_recorded": "every one", "web_failed": 0,
                    "watchdog_longest_silence_s_under": WATCHDOG_S},
    }
