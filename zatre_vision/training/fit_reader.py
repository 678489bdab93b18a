"""Fit the reader's decision to the pip model: ``python -m zatre_vision.training.fit_reader``.

Renders a validation split from its own seed (``seeds.FIT_SEED``: never used by the
training data nor by a benchmark, which refuses it), wide ranges as the benchmark's
(``SynthConfig.wide``, boards pushed to the frame's edge too), at 1280 x 960. Each photo
goes through the reader's ``look`` (locate, rectify, classify, prove, steady) once;
then, with no more rendering:

1. the probability calibration (``vision/prob_calibration.py``): a temperature per
   photo band and a log prior per band and cell kind, by maximum likelihood over the
   cells of the boards located right (corners within 0.35 cell; hidden cells are
   "occluded");
2. the one level below which a cell is uncertain (``min_confidence``) and every number
   of the cross-checks that stays (``ReaderConfig.MODEL_DEPENDENT``), by coordinate
   search over a grid of values each: the fewest uncertain visible cells (a frame held
   back counts all of its cells) with silent errors (a visible cell reported with a
   wrong value, not uncertain) at most ``--target`` of the visible cells, ``decide``
   run on every photo for every value.

Writes them, with how and on what they were fitted, into the card's
``reader_thresholds`` (``models/pips.onnx.json``), from which ``ReaderConfig`` takes its
defaults. Re-run it after every retrain of the pip model. Needs no torch; numpy and the
renderer only. One core: ``--photos 300`` took 17 minutes on the shared, loaded 2-core
development machine (12 to render and look, 5 to search); ``--cache`` skips the first part.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from ..vision.bench import EDGE_PROBABILITY, SIZE, _truth_labels
from ..vision.classify import DEFAULT_MODEL, OCCLUDED
from ..vision.geometry import CELL_NAMES, IS_LIGHT
from ..vision.pips import count_all
from ..vision.prob_calibration import BANDS, KINDS, N_CLASSES, ProbabilityCalibration
from ..vision.reader import UNFITTED, BoardReader, ReaderConfig
from .seeds import FIT_SEED

#: silent errors allowed on the split, as a share of its visible cells: half the
#: benchmark's target (0.01 %), a margin for a split of a few hundred photos
TARGET_SILENT = 0.00005
#: a board whose corners lie this many cells or more from the truth is not used to fit
#: the calibration (its cells are its neighbours'); it still counts in the search
LOCATED_RIGHT = 0.35
#: the values tried for each number (coordinate search, two rounds)
GRIDS = {
    "min_confidence": [0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95,
                       0.97, 0.98, 0.99],
    "veto_confidence": [0.8, 0.85, 0.9, 0.95, 0.97, 0.99, 1.0],
    "unconfirmed_confidence": [0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98],
    "uncounted_margin": [0.0, 0.05, 0.1, 0.2, 0.3],
    "light_empty_blurred": [0.5, 0.7, 0.8, 0.9, 0.95, 0.99],
    "bright_empty_below": [0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95],
    "tile_face_bright": [0.7, 0.8, 0.85, 0.9, 0.95],
    "doubtful_frame": [3, 5, 8, 10, 12, 15, 20, 30],
    "doubtful_frame_streaked": [1, 2, 3, 4, 6, 10],
}


@dataclass
class Photo:
    """One validation photo as the decision sees it, with its truth."""

    found: bool
    labels: np.ndarray                # per cell: 0..6, OCCLUDED where a hand hides it
    crops: np.ndarray | None = None
    probs: np.ndarray | None = None   # the network's, steadied
    counts: np.ndarray | None = None  # classical pip count of every crop
    blurred: bool = False
    clear: bool = False
    corner_error: float = 0.0         # in cells


def collect(photos: int, seed: int, model_path: Path, progress: bool = True) -> list[Photo]:
    """Render and look at the split (one thread)."""
    from ..synth.config import SynthConfig
    from ..synth.photos import render_photo
    from ..synth.scene import Renderer

    cv2.setNumThreads(1)
    cfg = SynthConfig.wide(EDGE_PROBABILITY)
    renderer = Renderer(cfg, seed, *SIZE)
    reader = BoardReader(model_path, threads=1)
    games: dict = {}
    out = []
    t0 = time.perf_counter()
    for i in range(1, photos + 1):
        jpeg, truth = render_photo(renderer, cfg, seed, i, games)
        if not truth["board_found"]:
            continue
        img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        seen = reader.look(img)
        labels = _truth_labels(truth)
        if seen.model is None:
            out.append(Photo(False, labels))
            continue
        corners = np.array(seen.model.corners()) / seen.scale
        err = np.linalg.norm(corners - np.array(truth["corners"]), axis=1).max()
        out.append(Photo(True, labels, seen.crops, seen.probs,
                         count_all(seen.crops, np.ones(len(CELL_NAMES), bool)),
                         seen.blurred, seen.clear,
                         float(err / seen.model.cell_size_px() * seen.scale)))
        if progress and i % 25 == 0:
            print(f"  {i}/{photos} photos, {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    return out


def _band(p: Photo) -> int:
    return 0 if p.blurred else 2 if p.clear else 1


def fit_calibration(photos: list[Photo], steps: int = 600, l2: float = 1e-3
                    ) -> tuple[ProbabilityCalibration, dict]:
    """Temperature per band and log prior per (kind, band) by maximum likelihood (Adam
    on the mean negative log-likelihood, a little L2 on the prior) over the cells of
    the boards located right. Returns the calibration and the NLL before and after."""
    z, y, kind, band = [], [], [], []
    for p in photos:
        if not p.found or p.corner_error >= LOCATED_RIGHT:
            continue
        z.append(np.log(np.clip(p.probs, 1e-12, 1.0)))
        y.append(p.labels)
        kind.append(IS_LIGHT.astype(np.intp))
        band.append(np.full(len(CELL_NAMES), _band(p), np.intp))
    z, y = np.concatenate(z), np.concatenate(y)
    kind, band = np.concatenate(kind), np.concatenate(band)
    onehot = np.eye(N_CLASSES)[y]
    inv_t = np.ones(len(BANDS))
    b = np.zeros((len(KINDS), len(BANDS), N_CLASSES))
    group = kind * len(BANDS) + band
    n = len(y)

    def nll(inv_t, b) -> tuple[float, np.ndarray]:
        s = z * inv_t[band][:, None] + b[kind, band]
        s -= s.max(axis=1, keepdims=True)
        q = np.exp(s)
        q /= q.sum(axis=1, keepdims=True)
        return float(-np.log(np.clip(q[np.arange(n), y], 1e-300, None)).mean()), q

    before, _ = nll(inv_t, b)
    m = [np.zeros_like(inv_t), np.zeros_like(b)]
    v = [np.zeros_like(inv_t), np.zeros_like(b)]
    lr = 0.05
    for step in range(1, steps + 1):
        _, q = nll(inv_t, b)
        d = (q - onehot) / n
        g_t = np.bincount(band, weights=(d * z).sum(axis=1), minlength=len(BANDS))
        g_b = np.zeros(len(KINDS) * len(BANDS) * N_CLASSES)
        for c in range(N_CLASSES):
            g_b[c::N_CLASSES] = np.bincount(group, weights=d[:, c],
                                            minlength=len(KINDS) * len(BANDS))
        g_b = g_b.reshape(b.shape) + l2 * b
        for k, (param, g) in enumerate(((inv_t, g_t), (b, g_b))):
            m[k] = 0.9 * m[k] + 0.1 * g
            v[k] = 0.999 * v[k] + 0.001 * g * g
            param -= lr * (m[k] / (1 - 0.9 ** step)) / (
                np.sqrt(v[k] / (1 - 0.999 ** step)) + 1e-8)
        np.clip(inv_t, 0.1, 5.0, out=inv_t)
        np.clip(b, -9.0, 9.0, out=b)
    b -= b.mean(axis=2, keepdims=True)   # a prior is defined up to a constant
    after, _ = nll(inv_t, b)
    cal = ProbabilityCalibration(tuple(float(1.0 / t) for t in inv_t),
                                 tuple(tuple(tuple(float(x) for x in row) for row in kb)
                                       for kb in b))
    return cal, {"cells": n, "nll_network": round(before, 5), "nll_calibrated": round(after, 5)}


@dataclass
class Tally:
    visible: int = 0
    silent: int = 0
    uncertain: int = 0
    boards: int = 0
    exact: int = 0
    boards_5_silent: int = 0


def evaluate(photos: list[Photo], config: ReaderConfig, reader: BoardReader) -> Tally:
    """``decide`` with ``config`` on every photo: silent errors, uncertain visible
    cells, exact boards (a board not found reports nothing: its cells are neither)."""
    kept, reader.config = reader.config, config
    t = Tally()
    for p in photos:
        vis = p.labels != OCCLUDED
        t.visible += int(vis.sum())
        t.boards += 1
        if not p.found:
            continue
        res = reader.decide(p.crops, p.probs, blurred=p.blurred, clear=p.clear,
                            counts=p.counts)
        unc = set(res.uncertain)
        w = u = 0
        for j, name in enumerate(CELL_NAMES):
            if not vis[j]:
                continue
            if name in unc:
                u += 1
            elif res.cells.get(name, 0) != p.labels[j]:
                w += 1
        t.silent += w
        t.uncertain += u
        t.exact += int(w == 0 and u == 0)
        t.boards_5_silent += int(w >= 5)
    reader.config = kept
    return t


def fit_levels(photos: list[Photo], config: ReaderConfig, reader: BoardReader,
               target: float, rounds: int = 2, log=print) -> tuple[ReaderConfig, Tally]:
    """Coordinate search of ``GRIDS``: each number in turn takes the value with the
    fewest uncertain cells among those that keep silent errors within ``target`` (ties:
    fewer silent errors, then the value already held). Where no value keeps within it,
    the one with the fewest silent errors."""
    visible = evaluate(photos, config, reader).visible
    allowed = target * visible

    def key(t: Tally, same: bool) -> tuple:
        return (t.silent > allowed, t.silent if t.silent > allowed else 0,
                t.uncertain, t.silent, not same)

    best = evaluate(photos, config, reader)
    for r in range(rounds):
        for name, grid in GRIDS.items():
            current = getattr(config, name)
            scored = []
            for value in grid:
                cfg = replace(config, **{name: value})
                scored.append((key(evaluate(photos, cfg, reader), value == current), value))
            _, value = min(scored)
            config = replace(config, **{name: value})
            best = evaluate(photos, config, reader)
            log(f"  round {r + 1}: {name} = {value}: silent {best.silent}, uncertain "
                f"{best.uncertain}, exact {best.exact}/{best.boards}")
    return config, best


def model_digest(model_path: Path) -> str:
    return hashlib.sha256(Path(model_path).read_bytes()).hexdigest()[:16]


def fit(photos: int, seed: int, model_path: Path, target: float, write: bool = True,
        log=print, cache: Path | None = None) -> dict:
    """Collect the split (or take it from ``cache``, a file of an earlier run with the
    same model, photos and seed), fit, and write the card's ``reader_thresholds``."""
    t0 = time.perf_counter()
    digest = model_digest(model_path)
    if cache is not None and cache.is_file():
        with cache.open("rb") as fh:
            kept = pickle.load(fh)
        split = kept["split"] if kept.get("key") == (digest, photos, seed) else None
    else:
        split = None
    if split is None:
        log(f"rendering and looking at {photos} photos (seed {seed}) ...")
        split = collect(photos, seed, model_path)
        if cache is not None:
            with cache.open("wb") as fh:
                pickle.dump({"key": (digest, photos, seed), "split": split}, fh)
    t_collect = time.perf_counter() - t0
    cal, nll = fit_calibration(split)
    log(f"calibration: {json.dumps(cal.to_card())}; NLL {nll}")
    reader = BoardReader(model_path, threads=1)
    start = ReaderConfig.for_model(model_path, calibration=cal, **UNFITTED)
    network = evaluate(split, ReaderConfig.for_model(
        model_path, calibration=ProbabilityCalibration.identity(), **UNFITTED), reader)
    config, got = fit_levels(split, start, reader, target, log=log)
    found = sum(p.found for p in split)
    fitted_by = (f"python -m zatre_vision.training.fit_reader --photos {photos} --seed "
                 f"{seed} --target {target}: SynthConfig.wide({EDGE_PROBABILITY}) at "
                 f"{SIZE[0]}x{SIZE[1]}, a seed no training set nor benchmark uses")
    entry = config.model_card_entry(fitted_by)
    entry["fit"] = {
        "model_sha256_16": digest,
        "photos_with_board": len(split), "boards_found": found,
        "boards_located_right": sum(p.found and p.corner_error < LOCATED_RIGHT
                                    for p in split),
        "target_silent_rate": target,
        "calibration_nll": nll,
        "on_the_split": {"visible_cells": got.visible, "silent_errors": got.silent,
                         "uncertain_cells": got.uncertain,
                         "boards_exactly_right": got.exact,
                         "boards_with_5_or_more_silent": got.boards_5_silent,
                         "note": "decide alone (the refine passes not run)"},
        "before_on_the_split": {
            "what": "the unfitted values (UNFITTED) on the network's own probabilities",
            "silent_errors": network.silent, "uncertain_cells": network.uncertain,
            "boards_exactly_right": network.exact},
        "seconds": round(time.perf_counter() - t0, 1),
        "seconds_rendering_and_looking": round(t_collect, 1),
    }
    if write:
        card_path = Path(str(model_path) + ".json")
        card = json.loads(card_path.read_text(encoding="utf-8"))
        card["reader_thresholds"] = entry
        card_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
        log(f"wrote reader_thresholds into {card_path}")
    return entry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", type=int, default=300)
    ap.add_argument("--seed", type=int, default=FIT_SEED)
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--target", type=float, default=TARGET_SILENT,
                    help="silent errors allowed, share of the visible cells")
    ap.add_argument("--dry-run", action="store_true", help="fit and print, write nothing")
    ap.add_argument("--cache", type=Path, default=None,
                    help="keep the looked-at split in this file and reuse it")
    a = ap.parse_args(argv)
    if a.photos < 20 or not 0.0 <= a.target < 0.1:
        print("error: --photos from 20, --target in 0..0.1", file=sys.stderr)
        return 2
    if not a.model.is_file():
        print(f"error: {a.model}: no such model", file=sys.stderr)
        return 2
    entry = fit(a.photos, a.seed, a.model, a.target, write=not a.dry_run,
                log=lambda m: print(m, file=sys.stderr, flush=True), cache=a.cache)
    print(json.dumps(entry, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
