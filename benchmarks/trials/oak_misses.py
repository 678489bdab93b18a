"""Trial (session 39, proof-dark-lines.md): the oak boards among the first N photos
of the held-out-prints bench set (seed 9001), each read found or not, by which
proposer, named which print, and its corner error in cells (the code on PYTHONPATH).

    python benchmarks/trials/oak_misses.py 60
"""
import sys
from dataclasses import replace

import cv2
import numpy as np

from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.photos import render_photo
from zatre_vision.synth.scene import Renderer
from zatre_vision.vision.reader import BoardReader

cv2.setNumThreads(1)
cfg = SynthConfig.wide(0.2)
cfg = replace(cfg, board=replace(cfg.board, prints=("amigo", "slate-green", "oak", "night"), textures_per_seed=8))
r = Renderer(cfg, 9001, 1280, 960)
reader = BoardReader(threads=1)
games = {}
N = int(sys.argv[1])
for i in range(1, N + 1):
    jpeg, truth = render_photo(r, cfg, 9001, i, games)
    if not truth["board_found"] or truth.get("print") != "oak":
        continue
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    res = reader.read(img)
    if res.board_found:
        t = np.asarray(truth["corners"], float)
        c = np.asarray(res.corners, float)
        cell = np.linalg.norm(t[1]-t[0]) / 15
        err = np.max(np.linalg.norm(c - t, axis=1)) / cell
    else:
        err = None
    print(i, "found" if res.board_found else "-", res.source, res.board_print, None if err is None else round(err, 2), flush=True)
