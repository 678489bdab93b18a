"""Benchmark: synthetic photos per second at 1280x960 on one core.

Renders N photos exactly as ``zatre synth photos`` does (simulated games, rendering,
JPEG encoding, truth as JSON) with OpenCV limited to one thread, and writes
``benchmarks/results/synth.json``. Texture set-up (a few board and table textures per
seed) is reported separately from the steady-state rate.

    python benchmarks/bench_synth.py [--n 60] [--seed 1]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.photos import render_photo
from zatre_vision.synth.scene import Renderer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "synth.json"))
    args = ap.parse_args()
    cv2.setNumThreads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    cfg = SynthConfig()
    w, h = 1280, 960
    t0 = time.perf_counter()
    renderer = Renderer(cfg, args.seed, w, h)
    for k in range(cfg.board.textures_per_seed):
        renderer.board_texture(k)
    for kind in cfg.table.kinds:
        for k in range(2):
            renderer.table_texture(kind, k)
    setup_s = time.perf_counter() - t0
    games: dict = {}
    times = []
    total0 = time.perf_counter()
    for i in range(1, args.n + 1):
        t = time.perf_counter()
        jpeg, truth = render_photo(renderer, cfg, args.seed, i, games)
        json.dumps(truth)
        times.append(time.perf_counter() - t)
        assert len(jpeg) > 1000
    total = time.perf_counter() - total0
    result = {
        "benchmark": "zatre synth photos",
        "size": [w, h],
        "photos": args.n,
        "opencv_threads": cv2.getNumThreads(),
        "photos_per_second": round(args.n / total, 2),
        "photos_per_second_including_setup": round(args.n / (total + setup_s), 2),
        "median_ms_per_photo": round(statistics.median(times) * 1000, 1),
        "p90_ms_per_photo": round(float(np.percentile(times, 90)) * 1000, 1),
        "texture_setup_s": round(setup_s, 2),
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count(), "opencv": cv2.__version__, "numpy": np.__version__},
        "date": dt.date.today().isoformat(),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
