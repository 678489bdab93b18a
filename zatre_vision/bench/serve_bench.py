"""``zatre bench serve``: ``zatre serve`` on this machine: start-up time, resident memory
during a replayed game, and the per-frame pipeline cost behind the Pi 4 frame budget.

The game is a recorded one (``--game DIR``, as ``zatre synth game DIR --seed 5
--max-turns 10 --size 1280x960`` makes it), rendered afresh into a temporary folder
when none is given. The benchmark

1. starts ``zatre serve`` (loopback, fresh data folder, no camera) ``runs`` times and
   times each start to the first 200 on ``/`` (median);
2. starts it once more, sets a match up through the API with the folder as the
   camera, samples the server's resident memory (RSS, /proc) every 0.5 s while the
   camera service replays the game through vision, tracking and rules, and records
   the turns the table committed;
3. reads every frame of the game in this process with the board reader (one thread)
   and runs the live pipeline over the folder, giving the per-frame cost, from which
   it estimates the Pi 4 frame budget (stated slowdown factor, 5 fps = 200 ms).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PIN = "2468"
#: Cortex-A72 at 1.5-1.8 GHz against one core of this x86 machine, for numpy/OpenCV/
#: onnxruntime work: 4x (NEON-friendly kernels) to 6x (branchy Python and memory-bound
#: code). An assumption, not a measurement; see docs/pi-notes.md.
PI4_SLOWDOWN = (4.0, 6.0)
FRAME_BUDGET_MS = 200.0  # 5 fps


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def get(url: str, timeout: float = 2.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()


def post_json(url: str, body: dict):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          "X-Table-PIN": PIN, "Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def start_server(data: Path, port: int, source: str, model: str | None):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if model:
        env["ZATRE_CAMERA__MODEL"] = model
    cmd = [sys.executable, "-m", "zatre_vision", "serve", "--host", "127.0.0.1", "--port",
           str(port), "--data-dir", str(data), "--pin", PIN, "--source", source]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def wait_first_page(proc, port: int, t0: float, timeout: float = 30.0) -> float:
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"zatre serve exited: {proc.stderr.read()[-500:]}")
        try:
            status, _ = get(f"http://127.0.0.1:{port}/", 1.0)
            if status == 200:
                return time.perf_counter() - t0
        except OSError:
            pass
        time.sleep(0.01)
    raise RuntimeError("no page within the timeout")


def stop(proc) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def startup_times(game: Path, model: str | None, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            port = free_port()
            t0 = time.perf_counter()
            proc = start_server(Path(tmp) / "data", port, "none", model)
            try:
                times.append(wait_first_page(proc, port, t0))
            finally:
                stop(proc)
    return times


def replay_memory(game: Path, model: str | None, timeout: float) -> dict:
    meta = json.loads((game / "meta.json").read_text())
    n_frames = len([p for p in game.iterdir() if p.suffix in (".jpg", ".png")])
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        t0 = time.perf_counter()
        proc = start_server(Path(tmp) / "data", port, "none", model)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_first_page(proc, port, t0)
            idle_rss = rss_mb(proc.pid)
            post_json(f"{base}/setup", {"players": meta["players"],
                                        "starter": meta.get("starter") or meta["players"][0],
                                        "camera": str(game)})
            samples, state = [], {}
            start = time.perf_counter()
            last_change, last_frames = start, -1
            while time.perf_counter() - start < timeout:
                samples.append(round(rss_mb(proc.pid), 1))
                state = json.loads(get(f"{base}/api/state")[1])
                cam = state.get("camera", {})
                frames = int(cam.get("frames") or 0)
                if frames != last_frames:
                    last_frames, last_change = frames, time.perf_counter()
                if cam.get("state") == "error":
                    raise RuntimeError(f"camera error: {cam.get('message')}")
                if frames >= n_frames or time.perf_counter() - last_change > 8:
                    break
                time.sleep(0.5)
            elapsed = time.perf_counter() - start
            samples.append(round(rss_mb(proc.pid), 1))
        finally:
            stop(proc)
    return {"frames_in_game": n_frames, "frames_reported": last_frames,
            "replay_s": round(elapsed, 1), "turns_committed": state.get("turns_played"),
            "camera": {k: state.get("camera", {}).get(k) for k in ("state", "fps", "frames")},
            "rss_mb": {"idle_before_match": round(idle_rss, 1), "peak": max(samples),
                       "median": statistics.median(samples), "samples": len(samples),
                       "every_s": 0.5}}


def frame_costs(game: Path, model: str | None) -> dict:
    import cv2

    from zatre_vision.tracking.replay import replay_folder
    from zatre_vision.vision.reader import BoardReader
    from zatre_vision.vision.reading.classify import DEFAULT_MODEL

    cv2.setNumThreads(1)
    reader = BoardReader(Path(model) if model else DEFAULT_MODEL, threads=1)
    ms = []
    for p in sorted(game.glob("*.jpg")):
        img = cv2.imread(str(p))
        t = time.perf_counter()
        reader.read(img)
        ms.append((time.perf_counter() - t) * 1000)
    ms.sort()
    t = time.perf_counter()
    out = replay_folder(game, reader)
    wall = time.perf_counter() - t
    rep = out["replay"]
    read_median = statistics.median(ms)
    read_p90 = ms[int(0.9 * (len(ms) - 1))]
    live_ms = wall * 1000 / max(1, rep["frames"])  # incl. JPEG decoding of each frame
    est = {f"{f:g}x": {"full_read_median_ms": round(read_median * f, 1),
                       "full_read_p90_ms": round(read_p90 * f, 1),
                       "live_pipeline_mean_ms": round(live_ms * f, 1)}
           for f in PI4_SLOWDOWN}
    return {
        "reader_one_thread_ms": {"median": round(read_median, 1), "p90": round(read_p90, 1),
                                 "max": round(ms[-1], 1), "frames": len(ms)},
        "live_pipeline": {"frames": rep["frames"], "frames_read": rep["frames_read"],
                          "mean_ms_per_frame": round(live_ms, 1),
                          "turns": len(out["turns"])},
        "pi4_estimate": {"slowdown_assumed": list(PI4_SLOWDOWN),
                         "budget_ms_at_5fps": FRAME_BUDGET_MS, **est,
                         "fits_5fps_worst_case": bool(read_p90 * PI4_SLOWDOWN[1]
                                                      <= FRAME_BUDGET_MS),
                         "max_fps_full_read_worst_case": round(
                             1000 / (read_median * PI4_SLOWDOWN[1]), 1)},
    }


#: how the game is rendered when none is given (the committed figures' game)
GAME_SEED, GAME_TURNS, GAME_SIZE = 5, 10, (1280, 960)


def run_serve_benchmark(game: Path | None, model: str | None, runs: int = 5,
                        timeout: float = 300.0) -> dict:
    """The three measurements on ``game`` (rendered afresh when None)."""
    with tempfile.TemporaryDirectory() as tmp:
        made_with = "given folder"
        if game is None:
            from ..synth.game_frames import generate_game

            game = Path(tmp) / "game"
            generate_game(game, GAME_SEED, *GAME_SIZE, max_turns=GAME_TURNS, progress=False)
            made_with = (f"zatre synth game GAME --seed {GAME_SEED} --max-turns {GAME_TURNS} "
                         f"--size {GAME_SIZE[0]}x{GAME_SIZE[1]}")
        starts = startup_times(game, model, runs)
        print(f"start-up to first page: {[round(s, 2) for s in starts]}", file=sys.stderr)
        memory = replay_memory(game, model, timeout)
        print(f"memory: {memory['rss_mb']}", file=sys.stderr)
        costs = frame_costs(game, model)
    result = {
        "game": {"folder": game.name, "made_with": made_with},
        "model": model or "models/pips.onnx",
        "startup_to_first_page_s": {"runs": [round(s, 3) for s in starts],
                                    "median": round(statistics.median(starts), 3),
                                    "target": 5.0},
        "serve_replay": memory,
        "rss_target_mb": 300,
        "frame_cost": costs,
    }
    result["targets_met"] = {
        "startup_le_5s": result["startup_to_first_page_s"]["median"] <= 5.0,
        "rss_le_300mb": memory["rss_mb"]["peak"] <= 300,
    }
    result["summary"] = {"startup_median_s": result["startup_to_first_page_s"]["median"],
                         "rss_peak_mb": memory["rss_mb"]["peak"],
                         "turns_committed": memory["turns_committed"],
                         **result["targets_met"]}
    return result
