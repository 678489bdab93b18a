"""Trial (session 40, issue 61 item 4): what each part of a read costs on wide photos
with no calibration, unprofiled, one thread, as a ratio to the bench's baseline (JPEG
decode plus one warpPerspective of the same frame) measured in the same run. The code
on PYTHONPATH reads.

    python benchmarks/trials/speed_parts.py 20 3
"""
import functools
import sys
import time

import cv2
import numpy as np

import zatre_vision.vision.location.pipeline as pipeline
import zatre_vision.vision.location.proposers as proposers
from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.photos import render_photo
from zatre_vision.synth.scene import Renderer
from zatre_vision.vision.location.board_net import BoardFinder
from zatre_vision.vision.reader import BoardReader

PHOTOS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
cv2.setNumThreads(1)
cfg = SynthConfig.wide(0.2)
renderer = Renderer(cfg, 9001, 1280, 960)
games: dict = {}
jpegs = []
for i in range(1, PHOTOS + 1):
    jpeg, truth = render_photo(renderer, cfg, 9001, i, games)
    if truth["board_found"]:
        jpegs.append(jpeg)


def baseline(jpeg: bytes) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    cv2.warpPerspective(img, np.eye(3), (img.shape[1], img.shape[0]))
    return img


spent: dict[str, float] = {}


def timed(owner, name: str, label: str) -> None:
    f = getattr(owner, name)

    @functools.wraps(f)
    def wrapper(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            spent[label] = spent.get(label, 0.0) + time.perf_counter() - t
    setattr(owner, name, wrapper)


timed(BoardFinder, "find", "board network")
timed(proposers, "settled_fit", "grid fit")
timed(pipeline, "prove", "print proof")
timed(BoardReader, "measure", "reading the cells")
timed(BoardReader, "read", "whole read")
reader = BoardReader(threads=1)
for j in jpegs[:2]:
    reader.read(baseline(j))
for _ in range(REPEATS):
    spent.clear()
    t = time.perf_counter()
    for j in jpegs:
        baseline(j)
    base = (time.perf_counter() - t) / len(jpegs)
    for j in jpegs:
        reader.read(baseline(j))
    print(f"{len(jpegs)} photos, baseline {base * 1000:.1f} ms; " + "; ".join(
        f"{k} {v / len(jpegs) / base:.2f}x" for k, v in spent.items()), flush=True)
