"""Trial (session 39, proof-dark-lines.md): why oak boards go unfound. For each oak
board among the first N photos of the held-out-prints bench set (seed 9001): the read
(found or not, by which proposer, the print named), then each proposer's refined
candidates with their corner error in cells (under any quarter turn, and as labelled)
and the proof's verdict. The code on PYTHONPATH reads.

    python benchmarks/trials/oak_proposers.py 60
"""
import sys
from dataclasses import replace

import cv2
import numpy as np

from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.photos import render_photo
from zatre_vision.synth.scene import Renderer
from zatre_vision.vision.judge import corner_error_cells
from zatre_vision.vision.location.pipeline import proposals_of
from zatre_vision.vision.location.print_proof import prove
from zatre_vision.vision.location.proposers import Frame
from zatre_vision.vision.reader import BoardReader, work_image

N = int(sys.argv[1]) if len(sys.argv) > 1 else 40
cv2.setNumThreads(1)
cfg = SynthConfig.wide(0.2)
prints = ("amigo", "slate-green", "oak", "night")
cfg = replace(cfg, board=replace(cfg.board, prints=prints, textures_per_seed=8))
r = Renderer(cfg, 9001, 1280, 960)
reader = BoardReader(threads=1)
games = {}


def err(model, truth, f):
    """The judge's corner error (cells of the truth's top edge): under any quarter turn,
    and as labelled."""
    c = np.asarray(model.corners(), np.float64) / f
    t = np.asarray(truth["corners"], np.float64)
    cell = np.linalg.norm(t[1] - t[0]) / 15
    best = min(corner_error_cells(np.roll(c, k, 0), t, cell) for k in range(4))
    return round(best, 2), round(corner_error_cells(c, t, cell), 2)


for i in range(1, N + 1):
    jpeg, truth = render_photo(r, cfg, 9001, i, games)
    if not truth["board_found"] or truth.get("print") != "oak":
        continue
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    res = reader.read(img)
    work, f = work_image(img)
    grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    frame = Frame(work, grey, reader.locator.finder)
    setup_cfg = reader.config.print_proof
    print(f"photo {i}: read found={res.board_found} source={res.source} print={res.board_print}")
    for p in reader.locator.proposers():
        found = proposals_of(p, frame, reader.locator.fallbacks)
        if found is None:
            print(f"   {p.name}: nothing")
            continue
        for model, score in found.candidates[:3]:
            pr = prove(grey, model, setup_cfg, reader.print_expectations)
            print(f"   {p.name}: err(any,labelled)={err(model, truth, f)} score={score:.2f} proved={pr.proved} "
                  f"prints={pr.prints} weakest={pr.weakest:.1f} moved={pr.moved}")
    sys.stdout.flush()
