"""Fit the tile adaptation's constants (``vision.reading.tile_adapt.AdaptConfig``) on tile sets
that ``zatre bench adapt`` never renders (``synth.tiles.FITTING_STYLES``).

    python -m zatre_vision.training.fit_tile_adaptation [--test N] [--out FILE] [--cache DIR]

Per fitting style: the two calibration photos of the suggested layout and N test photos
of games (camera, light, hands: ``SynthConfig()`` ranges), rendered as the benchmark
does but with seeds of their own (5100, 5200; the benchmark's are 4100, 4200). A head
is fitted on the two calibration photos (``calibrate.tiles.fit_head``) for each
``ridge`` of RIDGES, and the test photos are read with it (the held-back check is not
applied: the head itself is measured). Cost: WRONG_COST x silently wrong + uncertain
visible cells, summed over the styles; the ridge with the least cost wins, then
``temperature`` among TEMPERATURES and ``count_seen`` among COUNT_SEENS are chosen the
same way, each with the values chosen before it. Prints the chosen values and writes
every figure to ``benchmarks/results/adapt-fit.json`` (``make bench`` runs it: its
file is held to the code it measures like a benchmark's); the defaults of
``AdaptConfig`` are set from it by hand. ``--cache DIR`` keeps the rendered photos (``STYLE.pkl``) for
another run.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import cv2
import numpy as np

from zatre_vision.bench.adapt_bench import _add, _score, calibration_photo
from zatre_vision.bench.results import current_commit, write_result_file
from zatre_vision.calibrate.tiles import WRONG_COST, Truth, fit_head, load_photo
from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.photos import render_photo
from zatre_vision.synth.scene import Renderer
from zatre_vision.synth.tiles import FITTING_STYLES
from zatre_vision.vision.reader import BoardReader
from zatre_vision.vision.reading.classify import DEFAULT_MODEL
from zatre_vision.vision.reading.tile_adapt import AdaptConfig, attach

CALIBRATION_SEED = 5100
TEST_SEED = 5200
RIDGES = (1e-5, 1e-4, 1e-3, 1e-2)
TEMPERATURES = (1.0, 1.5, 2.0)
COUNT_SEENS = (0.02, 0.05, 0.1, 0.2)
SIZE = (1280, 960)


def _decode(jpeg: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)


def rendered(style: str, test: int, cache: Path | None) -> dict:
    """The style's calibration photos (PNG bytes, layout) and test photos (JPEG bytes,
    truth), from ``cache`` when it holds as many."""
    path = cache / f"{style}.pkl" if cache else None
    if path is not None and path.is_file():
        with path.open("rb") as f:
            d = pickle.load(f)
        if len(d["cal"]) >= 2 and len(d["test"]) >= test:
            return d
    cfg = SynthConfig().with_tiles(style)
    cfg = replace(cfg, scene=replace(cfg.scene, no_board_probability=0.0))
    cal = []
    for i in range(2):
        img, layout = calibration_photo(cfg, CALIBRATION_SEED, i, SIZE)
        cal.append((cv2.imencode(".png", img)[1].tobytes(), layout))
    renderer = Renderer(cfg, TEST_SEED, *SIZE)
    games: dict = {}
    d = {"cal": cal, "test": [render_photo(renderer, cfg, TEST_SEED, i, games)
                              for i in range(1, test + 1)]}
    if path is not None:
        cache.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            pickle.dump(d, f)
    return d


def style_set(reader, style: str, test: int, cache: Path | None):
    d = rendered(style, test, cache)
    photos = [load_photo(reader, _decode(png), f"calibration-{i + 1}.jpg",
                         Truth(layout, frozenset()))
              for i, (png, layout) in enumerate(d["cal"][:2])]
    return photos, [(_decode(jpeg), truth) for jpeg, truth in d["test"][:test]]


def read_all(reader, head, tests) -> dict:
    attach(reader.classifier, head)
    try:
        total: dict = {}
        for img, truth in tests:
            total = _add(total, _score(reader.read(img), truth))
        return total
    finally:
        attach(reader.classifier, None)


def cost(d: dict) -> int:
    """Cells under a hand read with a wrong value are silent errors too. (Added after the
    committed fit, whose cost left them out: its photos, 12 a style, and 24 a style
    too, happen to show no hand, so the ridge it chose, 1e-5, was never weighed
    against hands; the benchmark then read 158 hidden cells wrong. Fitting photos
    with hands are still to be drawn.)"""
    return WRONG_COST * (d["wrong"] + d["hidden_read_wrong"]) + d["uncertain"]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--test", type=int, default=24, help="test photos per style")
    ap.add_argument("--out", default="benchmarks/results/adapt-fit.json")
    ap.add_argument("--cache", default=None, help="folder keeping the rendered photos")
    args = ap.parse_args(argv)
    reader = BoardReader(DEFAULT_MODEL, threads=1)
    sets = {}
    for style in FITTING_STYLES:
        print(f"rendering {style}", file=sys.stderr)
        sets[style] = style_set(reader, style, args.test,
                                Path(args.cache) if args.cache else None)
    rows: list[dict] = []

    def measure(config: AdaptConfig, heads: dict | None = None) -> tuple[dict, dict]:
        per, heads = {}, dict(heads or {})
        for style, (photos, tests) in sets.items():
            if style not in heads:
                heads[style] = fit_head(reader, photos, config=config)
            head = heads[style]
            head.count_seen = config.count_seen
            head.temperature = config.temperature
            per[style] = read_all(reader, head, tests)
        total: dict = {}
        for d in per.values():
            total = _add(total, d)
        rows.append({"ridge": config.ridge, "temperature": config.temperature,
                     "count_seen": config.count_seen,
                     "cost": cost(total), "total": total, "styles": per})
        print(json.dumps(rows[-1]["total"] | {k: rows[-1][k] for k in (
            "ridge", "temperature", "count_seen")}), file=sys.stderr)
        return total, heads

    base = {s: read_all(reader, None, t) for s, (_, t) in sets.items()}
    fitted = {}
    for ridge in RIDGES:
        total, heads = measure(AdaptConfig(ridge=ridge, temperature=1.0))
        fitted[ridge] = (cost(total), heads)
    ridge = min(fitted, key=lambda r: fitted[r][0])
    heads = fitted[ridge][1]
    t_cost = {1.0: fitted[ridge][0]}
    for t in TEMPERATURES:
        if t not in t_cost:
            t_cost[t] = cost(measure(AdaptConfig(ridge=ridge, temperature=t), heads)[0])
    temperature = min(t_cost, key=t_cost.get)
    seen_cost = {AdaptConfig().count_seen: t_cost[temperature]}
    for seen in COUNT_SEENS:
        if seen not in seen_cost:
            seen_cost[seen] = cost(measure(AdaptConfig(ridge=ridge, temperature=temperature,
                                                       count_seen=seen), heads)[0])
    seen = min(seen_cost, key=seen_cost.get)
    result = {
        "fit": "tile adaptation constants (vision.reading.tile_adapt.AdaptConfig)",
        "commit": current_commit(),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": "python -m zatre_vision.training.fit_tile_adaptation " + " ".join(argv),
        "styles": list(FITTING_STYLES), "test_photos_per_style": args.test,
        "calibration_seed": CALIBRATION_SEED, "test_seed": TEST_SEED,
        "cost": f"{WRONG_COST} x (wrong + hidden cells read wrong) + uncertain visible "
                "cells, all fitting styles",
        "chosen": {"ridge": ridge, "temperature": temperature, "count_seen": seen},
        "base_model": base, "runs": rows,
        "seconds": round(time.process_time(), 1),
    }
    write_result_file(args.out, result)   # with the machine and what it measures
    print(json.dumps(result["chosen"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
