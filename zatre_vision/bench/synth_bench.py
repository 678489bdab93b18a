"""``zatre bench synth``: synthetic photos per second at 1280x960 on one core.

Renders ``n`` photos exactly as ``zatre synth photos`` does (simulated games, rendering,
JPEG encoding, truth as JSON) with OpenCV limited to one thread. Texture set-up (a few
board and table textures per seed) is reported separately from the steady-state rate.
"""

from __future__ import annotations

import json
import os
import statistics
import time

import cv2
import numpy as np

from ..synth.config import SynthConfig
from ..synth.photos import render_photo
from ..synth.scene import Renderer


def run_synth_benchmark(n: int = 60, seed: int = 1) -> dict:
    """Render ``n`` photos of seed ``seed``; the rates and times per photo."""
    cv2.setNumThreads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    cfg = SynthConfig()
    w, h = 1280, 960
    t0 = time.perf_counter()
    renderer = Renderer(cfg, seed, w, h)
    for k in range(cfg.board.textures_per_seed):
        renderer.board_texture(k)
    for kind in cfg.table.kinds:
        for k in range(2):
            renderer.table_texture(kind, k)
    setup_s = time.perf_counter() - t0
    games: dict = {}
    times = []
    total0 = time.perf_counter()
    for i in range(1, n + 1):
        t = time.perf_counter()
        jpeg, truth = render_photo(renderer, cfg, seed, i, games)
        json.dumps(truth)
        times.append(time.perf_counter() - t)
        if len(jpeg) <= 1000:
            raise RuntimeError(f"photo {i}: only {len(jpeg)} bytes of JPEG")
    total = time.perf_counter() - total0
    result = {
        "benchmark": "zatre synth photos",
        "size": [w, h],
        "photos": n,
        "opencv_threads": cv2.getNumThreads(),
        "photos_per_second": round(n / total, 2),
        "photos_per_second_including_setup": round(n / (total + setup_s), 2),
        "median_ms_per_photo": round(statistics.median(times) * 1000, 1),
        "p90_ms_per_photo": round(float(np.percentile(times, 90)) * 1000, 1),
        "texture_setup_s": round(setup_s, 2),
    }
    result["summary"] = {k: result[k] for k in ("photos", "photos_per_second",
                                                "median_ms_per_photo")}
    return result
