"""Trial (issue 61, item 2): how often each board network's own proposal (its heat-map
corners, before any grid fit, refine or fallback) lies within half a cell of the truth,
on the held-out prints and, as a control, on training prints.

    python benchmarks/trials/proposer_compare.py NAME=MODEL.onnx ... [--photos 60]
        [--out benchmarks/trials/proposer-compare.md]

A photo's error is the largest of its four corners' distances to the truth, in cells
(the truth's grid cell size at that corner's side); "within half a cell" is the share
of photos with a board whose error is under 0.5; "up to a quarter turn" the share
within half a cell when the corners may be read in any cyclic order (a turned label);
"mask outline alone": within half a cell from the corners of the mask's outline before
the heat map moved them (``BoardOutline.outline_corners``): the two heads of the one
network, a region's outline against corner keypoints.
Photos: the renderer's training ranges (``SynthConfig()``), seed 8600 + the print's
index, the print on every board. Each network sees the same photos.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from zatre_vision.bench.results import run_info
from zatre_vision.synth.board_art import HELD_OUT_PRINTS
from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.photos import render_photo
from zatre_vision.synth.scene import Renderer
from zatre_vision.vision.location import BoardFinder

CONTROL = ("peri", "navy")


def photos(print_name: str, seed: int, count: int, size=(1280, 960)):
    cfg = SynthConfig()
    cfg = replace(cfg, board=replace(cfg.board, prints=(print_name,)))
    renderer = Renderer(cfg, seed, *size)
    games: dict = {}
    for i in range(count):
        jpeg, truth = render_photo(renderer, cfg, seed, i, games)
        if truth.get("corners") is None:
            continue
        yield cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), truth


def errors(pred: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """(error as labelled, least error over the four cyclic orders), in cells."""
    side = np.mean([np.linalg.norm(truth[i] - truth[(i + 1) % 4]) for i in range(4)]) / 15.0

    def err(p: np.ndarray) -> float:
        return float(np.linalg.norm(p - truth, axis=1).max() / side)

    return err(pred), min(err(np.roll(pred, k, axis=0)) for k in range(4))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="NAME=PATH of a board network (card beside)")
    ap.add_argument("--photos", type=int, default=60)
    ap.add_argument("--out", default="benchmarks/trials/proposer-compare.md")
    args = ap.parse_args(argv)
    nets = {}
    for spec in args.models:
        name, _, path = spec.partition("=")
        nets[name] = BoardFinder(path, threads=1)
    prints = (*HELD_OUT_PRINTS, *CONTROL)
    rows = []
    t0 = time.perf_counter()
    for k, pname in enumerate(prints):
        # boards, proposed, within, within turned, within by the mask's outline alone
        counts = {n: [0, 0, 0, 0, 0] for n in nets}
        for img, truth in photos(pname, 8600 + k, args.photos):
            true = np.asarray(truth["corners"], np.float64)
            for n, net in nets.items():
                c = counts[n]
                c[0] += 1
                found = net.find(img)
                if found is None:
                    continue
                c[1] += 1
                e, e_turned = errors(np.asarray(found.corners, np.float64), true)
                c[2] += e < 0.5
                c[3] += e_turned < 0.5
                outline = (found.outline_corners if found.outline_corners is not None
                           else found.corners)
                c[4] += errors(np.asarray(outline, np.float64), true)[0] < 0.5
        for n, (boards, proposed, within, turned, outline) in counts.items():
            lo, hi = wilson(within, boards)
            rows.append((pname, n, boards, proposed, within, turned, lo, hi, outline))
        print(pname, {n: c for n, c in counts.items()}, f"{time.perf_counter() - t0:.0f} s",
              flush=True)
    info = run_info(" ".join(["python", *sys.argv]))
    lines = ["# The board networks' own proposals (issue 61, item 2)", "",
             f"Made by `{info['command']}` at commit {info['commit']}, {info['date']}.", "",
             __doc__.split("\n\n", 2)[2].strip(), "",
             "| print | network | boards | proposed | within half a cell | 95 % interval "
             "| up to a quarter turn | mask outline alone |", "|---|---|---|---|---|---|---|---|"]
    for pname, n, boards, proposed, within, turned, lo, hi, outline in rows:
        held = "held out" if pname in HELD_OUT_PRINTS else "training"
        lines.append(f"| {pname} ({held}) | {n} | {boards} | {proposed} | {within} "
                     f"({within / max(boards, 1):.0%}) | {lo:.0%}-{hi:.0%} | {turned} "
                     f"| {outline} |")
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
