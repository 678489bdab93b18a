"""``python -m zatre_vision.training.fit_reader``: fit the reader's decision to a pip
network, on a split that looks like the world it will meet, and write it into the
network's model card (``reader_thresholds``), where ``ReaderConfig.from_card`` and the
classifier read it.

The fitting split (``FIT_SETS``): photos with other makers' tiles on half of them, the
training prints, real-room conditions (a cheap lens of either sign with no lens
calibration, glare on glossy tiles, casts, dim light and its noise, slight motion blur),
hands and the grid at the frame's edge. Its seeds (``seeds.FIT_SEEDS``) are never a
benchmark's, and held-out tile styles and prints are never drawn.

Steps, each on the same located boards (the reader's own fit, proved against the print).
Each candidate config is weighed by the reader's own decision
(``vision.reading.decide.decide``) on evidence measured once per photo and calibration
(``vision.reading.measure``: the moved readings of every cell any config may ask about),
so the fit and the live reader cannot drift apart:
1. **calibration**: a temperature per cell kind and a log prior per class, by maximum
   likelihood over every cell of every board fitted within half a cell
   (``vision/reading/calibrated.py``);
2. **the rule for "uncertain"** and **the frame hold-back count**: ``min_confidence`` and
   ``doubtful_frame`` chosen for the most exact boards among the choices that keep the
   silent cells (a wrong value not flagged) at or under ``SILENT_TARGET`` and no board
   at 5 or more, over every board (a board fitted a cell off is the locator's error, but a
   higher bar leaves more of its cells uncertain instead of silently wrong; the card
   reports the silent cells on aligned and misaligned boards apart);
3. **ablation**: each pass and extra threshold switched off in turn; it goes only where
   switching it off gains exact boards and costs no silent cell nor board with 5 or
   more (a pass that changes nothing on the split guards against what the split lacks,
   and stays).
The card records the fitted values, the ablation table, the fitting split, the command,
commit, machine and wall time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..vision.judge import (
    A_CELL_OFF,
    MANY_SILENT,
    Tally,
    cell_counts,
    corner_error_cells,
    harms,
)

#: the silent-cell rate the decision is fitted to stay under (the issue's target on the
#: wide set)
SILENT_TARGET = 1e-4
#: the choices tried for the rule for "uncertain" and the hold-back count
MIN_CONFIDENCE_GRID = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
DOUBTFUL_FRAME_GRID = (6, 8, 10, 12, 16, 24, 40)


@dataclass(frozen=True)
class FitSet:
    """One part of the fitting split: a name, a seed, a renderer preset ("wide",
    "real_room", "training"), the share of photos with other makers' tiles."""

    name: str
    seed: int
    preset: str
    makers: float

    def synth_config(self):
        from ..synth.board_art import TRAINING_PRINTS
        from ..synth.config import SynthConfig

        base = {"wide": lambda: SynthConfig.wide(0.2), "real_room": SynthConfig.real_room,
                "training": SynthConfig}[self.preset]()
        return base.with_world(self.makers, TRAINING_PRINTS)


#: the fitting split; its seeds are ``seeds.FIT_SEEDS``
FIT_SETS = (
    FitSet("wide ranges, makers and prints", 5101, "wide", 0.5),
    FitSet("real room", 5201, "real_room", 0.5),
    FitSet("training ranges, makers and prints", 5301, "training", 0.5),
)


@dataclass
class Case:
    """One fitting photo as the reader located it: the rectified board, its 193 crops,
    the network's logits, the truth per cell (7 = hidden by a hand), the board's
    sharpness and whether its orientation is known. ``found`` False: no board proved
    (the rest empty)."""

    found: bool
    labels: np.ndarray
    aligned: bool = False
    board: np.ndarray | None = None
    crops: np.ndarray | None = None
    logits: np.ndarray | None = None
    sharpness: float = 0.0
    orientation_known: bool = True
    #: which fitting set, and the photo's number in it
    set_name: str = ""
    index: int = 0


def locate_case(reader, image: np.ndarray, truth: dict) -> Case:
    """The reader's own location of one photo (``BoardReader.locate``, as
    ``BoardReader.read`` does), kept for the decision to be tried on again and again."""
    from ..bench.vision_bench import _truth_labels
    from ..vision.reading.cell_evidence import sharpness
    from ..vision.reading.cells import ALL_CELLS

    labels = _truth_labels(truth)
    located = reader.locate(image)
    found, f = located.board, located.scale
    if not found.found:
        return Case(False, labels)
    model, cr, board = found.model, found.reading.crops, found.reading.board
    err = corner_error_cells(np.asarray(model.corners(), np.float64) / f, truth["corners"],
                             model.cell_size_px() / f)
    # only boards on the grid teach the calibration (one a cell off would teach it its
    # neighbours' labels)
    aligned = err < A_CELL_OFF
    return Case(True, labels, aligned, board, cr, reader.classifier.logits(cr, ALL_CELLS),
                sharpness(board), found.orientation_known)


def _collect_one(job: tuple[str, FitSet, int, int, str | None, str | None]) -> list[Case]:
    """Worker: render photos ``start..stop-1`` of one fitting set (or take them from the
    photo cache, ``cache/SEED/NNNNNN.jpg``, which ``fit_locator`` shares) and locate
    them."""
    import cv2

    from ..bench.vision_bench import _cached_photo
    from ..synth.photos import render_photo
    from ..synth.scene import Renderer
    from ..vision.reader import BoardReader
    from ..vision.reading.calibrated import ProbabilityCalibration

    model, fit_set, start, stop, board_model, cache = job
    folder = Path(cache) / str(fit_set.seed) if cache else None
    cv2.setNumThreads(1)
    cfg = fit_set.synth_config()
    renderer = Renderer(cfg, fit_set.seed, 1280, 960)
    kwargs = {"board_model_path": board_model} if board_model else {}
    reader = BoardReader(model, threads=1, **kwargs)
    # location compares candidate fits by the network's own readings, whatever the card
    reader.classifier.calibration = ProbabilityCalibration()
    games: dict = {}
    out = []
    for i in range(start, stop):
        jpeg, truth = _cached_photo(folder, i, lambda i=i: render_photo(
            renderer, cfg, fit_set.seed, i, games))
        if not truth["board_found"]:
            continue
        img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        case = locate_case(reader, img, truth)
        case.set_name, case.index = fit_set.name, i
        out.append(case)
    return out


def collect(model: Path, photos: int, workers: int = 2, board_model: str | None = None,
            progress: bool = True, photo_cache: str | None = None) -> list[Case]:
    """``photos`` photos of each fitting set, located by the reader with ``model``;
    ``photo_cache``: a folder where the rendered photos are kept (and found)."""
    from multiprocessing import get_context

    chunk = 10
    jobs = [(str(model), s, a, min(a + chunk, photos + 1), board_model, photo_cache)
            for s in FIT_SETS for a in range(1, photos + 1, chunk)]
    cases: list[Case] = []
    t0 = time.perf_counter()
    # spawn, not fork: a fork of a process whose OpenCV or onnxruntime threads hold a
    # lock deadlocks in the child (seen under pytest, where earlier tests read photos)
    ctx = get_context("spawn")
    with ctx.Pool(max(1, workers)) as pool:
        for k, part in enumerate(pool.imap(_collect_one, jobs), 1):
            cases.extend(part)
            if progress:
                done = k / len(jobs)
                spent = time.perf_counter() - t0
                print(f"fit_reader: located {len(cases)} boards, {100 * done:.0f} % "
                      f"({spent:.0f} s, about {spent / done - spent:.0f} s left)",
                      file=sys.stderr, flush=True)
    return cases


# -- 1. calibration ---------------------------------------------------------------------
def fit_calibration(cases: list[Case], steps: int = 600, lr: float = 0.05):
    """The temperature per cell kind and log prior per class that maximise the
    likelihood of the truth over every cell of the aligned boards (Adam on the mean
    negative log-likelihood; a small pull of the priors towards 0 fixes their common
    offset). Returns the ``ProbabilityCalibration`` and the NLL before and after."""
    from ..vision.geometry import IS_LIGHT
    from ..vision.reading.calibrated import ProbabilityCalibration, softmax

    use = [c for c in cases if c.found and c.aligned]
    if not use:
        raise SystemExit("fit_reader: no aligned board to fit on")
    logits = np.concatenate([c.logits for c in use])
    labels = np.concatenate([c.labels for c in use])
    light = np.tile(IS_LIGHT, len(use))
    onehot = np.eye(8)[labels]
    theta = np.zeros(10)          # log T dark, log T light, log prior x 8
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)

    def nll_grad(th):
        t = np.where(light, np.exp(th[1]), np.exp(th[0]))[:, None]
        z = logits / t + th[2:]
        p = softmax(z)
        nll = -np.mean(np.log(p[np.arange(len(p)), labels] + 1e-12)) + 1e-4 * np.sum(th[2:] ** 2)
        d = (p - onehot) / len(p)
        g = np.empty_like(th)
        dz_dlogt = -logits / t
        g[0] = np.sum((d * dz_dlogt)[~light])
        g[1] = np.sum((d * dz_dlogt)[light])
        g[2:] = d.sum(axis=0) + 2e-4 * th[2:]
        return nll, g

    before, _ = nll_grad(theta)
    for k in range(1, steps + 1):
        _, g = nll_grad(theta)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        theta -= lr * (m / (1 - 0.9 ** k)) / (np.sqrt(v / (1 - 0.999 ** k)) + 1e-8)
    after, _ = nll_grad(theta)
    prior = theta[2:] - theta[2:].mean()
    cal = ProbabilityCalibration(float(np.exp(theta[0])), float(np.exp(theta[1])),
                                 tuple(float(x) for x in prior))
    return cal, float(before), float(after), len(logits)


# -- 2 and 3. the decision, judged on the fitting split --------------------------------------
@dataclass(frozen=True)
class Figures:
    boards: int
    exact: int
    silent: int
    boards_5_silent: int
    uncertain: int
    visible: int
    held_back: int

    @property
    def silent_rate(self) -> float:
        return self.silent / max(self.visible, 1)

    def row(self) -> dict:
        return {"boards": self.boards, "exact": self.exact, "silent": self.silent,
                "boards_5_or_more_silent": self.boards_5_silent,
                "uncertain_rate": round(self.uncertain / max(self.visible, 1), 5),
                "silent_rate": round(self.silent_rate, 7), "held_back": self.held_back}

    @property
    def tally(self) -> Tally:
        return Tally(boards=self.boards, silent=self.silent,
                     many_silent=self.boards_5_silent, uncertain=self.uncertain,
                     visible=self.visible, exact=self.exact)

    def better_or_equal(self, other: Figures) -> bool:
        """No reading harm by the judge (``vision.judge.harms``: no more silent cells
        nor boards with 5 or more), and no fewer exact boards."""
        return not harms(other.tally, self.tally) and self.exact >= other.exact


class Judge:
    """Weighs candidate configs on the located cases with the reader's own decision
    (``vision.reading.decide.decide``) and counts against the truth. Each case's
    evidence (``vision.reading.measure``: steadied readings, pip counts, readings from
    moved crops of every cell any config may ask about) is measured once per
    calibration and measurement settings (``measure.MEASURE_FIELDS``), then kept: a
    candidate config costs only its decision."""

    def __init__(self, classifier, cases: list[Case]):
        self.classifier = classifier
        self.cases = cases
        self._evidence: dict = {}

    def evidence(self, config, calibration) -> list:
        """Per case, its ``Evidence`` under ``calibration`` and the measurement settings
        of ``config`` (None for a board not found)."""
        from ..vision.reading.cells import ALL_CELLS
        from ..vision.reading.decide import cells_any_config_may_reread
        from ..vision.reading.measure import (
            evidence_of,
            measure_settings,
            steadied,
            with_rereads,
        )

        key = (calibration, measure_settings(config))
        if key not in self._evidence:
            self.classifier.calibration = calibration
            out = []
            for c in self.cases:
                if not c.found:
                    out.append(None)
                    continue
                p = calibration.probabilities(c.logits, ALL_CELLS)
                if config.pass_steadied:
                    p = steadied(self.classifier, c.board, p, c.crops, config.recheck_below)
                ev = evidence_of(c.crops, p, c.sharpness, c.orientation_known)
                recentre, beside_hand = cells_any_config_may_reread(ev)
                out.append(with_rereads(ev, self.classifier, c.board, recentre, beside_hand,
                                        config))
            self._evidence[key] = out
        return self._evidence[key]

    def figures(self, config, calibration, detail: dict | None = None,
                aligned_only: bool = False) -> Figures:
        """The decision's figures over every case; ``detail`` (a dict) also receives
        the silent cells by fitting set and by whether the board was fitted within half a
        cell, and the cases with 5 or more. ``aligned_only``: only the boards fitted
        within half a cell (what the decision itself answers for: a board fitted a cell
        off is wrong whatever the thresholds)."""
        from ..vision.geometry import CELL_NAMES
        from ..vision.reading.classify import OCCLUDED
        from ..vision.reading.decide import decide

        evidence = self.evidence(config, calibration)
        boards = exact = silent = b5 = uncertain = visible = held = 0
        for case, ev in zip(self.cases, evidence, strict=True):
            if aligned_only and not case.aligned:
                continue
            vis = case.labels != OCCLUDED
            visible += int(vis.sum())
            boards += 1
            if not case.found:
                continue
            result = decide(ev, config)
            w, u, _ = cell_counts(case.labels, ~vis, result.cells, set(result.uncertain),
                                  CELL_NAMES)
            silent += w
            uncertain += u
            if detail is not None:
                for key in (f"set: {case.set_name}",
                            "aligned" if case.aligned else "fitted half a cell or more off"):
                    d = detail.setdefault(key, {"boards": 0, "silent": 0, "exact": 0})
                    d["boards"] += 1
                    d["silent"] += w
                    d["exact"] += int(w == 0 and u == 0)
                if w >= MANY_SILENT:
                    detail.setdefault("boards with 5 or more", []).append(
                        {"set": case.set_name, "photo": case.index, "silent": w,
                         "aligned": case.aligned, "held_back": result.doubtful_frame})
            exact += int(w == 0 and u == 0)
            b5 += int(w >= MANY_SILENT)
            held += int(result.doubtful_frame)
        return Figures(boards, exact, silent, b5, uncertain, visible, held)


def _choose(scored: list[tuple[object, Figures]]) -> tuple[object, Figures]:
    """The most exact boards (then the fewest uncertain cells) among the choices within
    SILENT_TARGET and with no board at 5 silent cells or more; if none is, the fewest
    silent cells."""
    ok = [s for s in scored if s[1].silent_rate <= SILENT_TARGET and s[1].boards_5_silent == 0]
    if ok:
        return max(ok, key=lambda s: (s[1].exact, -s[1].uncertain))
    return min(scored, key=lambda s: (s[1].boards_5_silent, s[1].silent, -s[1].exact))


#: what the ablation switches off, in order: (name, the change that switches it off)
ABLATIONS = (
    ("steadied", {"pass_steadied": False}),
    ("recentred", {"pass_recentred": False}),
    ("beside_hand", {"pass_beside_hand": False}),
    ("count veto", {"count_veto": False}),
    ("unconfirmed bar", {"unconfirmed_bar": False}),
    ("blurred bar", {"blurred_bar": False}),
    ("light cell on a blurred photo", {"light_blurred_bar": False}),
    ("bright-empty doubt", {"bright_empty_doubt": False}),
    ("streaked hold-back", {"streaked_hold_back": False}),
    ("empty odds raised (dark cells)", {"empty_odds_sharp": 1.0}),
    ("empty odds raised (light cells)", {"light_empty_odds": 1.0}),
)


def fit_decision(judge: Judge, calibration, start, log=print):
    """Steps 2 and 3 (see the module): returns the fitted config, the table of choices
    and the ablation table."""
    from ..vision.reading.calibrated import ProbabilityCalibration

    cfg = start
    choices = []
    for _ in range(2):   # coordinate passes over the two numbers
        scored = []
        for mc in MIN_CONFIDENCE_GRID:
            c = replace(cfg, min_confidence=mc, blurred_confidence=max(mc, cfg.blurred_confidence))
            scored.append((c, judge.figures(c, calibration)))
        cfg, fig = _choose(scored)
        choices += [{"min_confidence": c.min_confidence, **f.row()} for c, f in scored]
        log(f"fit_reader: min_confidence {cfg.min_confidence}: {fig.row()}")
        scored = []
        for df in DOUBTFUL_FRAME_GRID:
            c = replace(cfg, doubtful_frame=df)
            scored.append((c, judge.figures(c, calibration)))
        cfg, fig = _choose(scored)
        choices += [{"doubtful_frame": c.doubtful_frame, **f.row()} for c, f in scored]
        log(f"fit_reader: doubtful_frame {cfg.doubtful_frame}: {fig.row()}")
    base = judge.figures(cfg, calibration)
    ablation = [{"switched off": "(none: the fitted decision)", **base.row(), "kept": None}]
    # the calibration itself: the network's own softmax with the same decision
    raw = judge.figures(cfg, ProbabilityCalibration())
    ablation.append({"switched off": "calibration (temperatures and prior)", **raw.row(),
                     "kept": not raw.better_or_equal(base)})
    for name, change in ABLATIONS:
        trial = replace(cfg, **change)
        fig = judge.figures(trial, calibration)
        # a pass goes only where switching it off gains exact boards and costs no silent
        # cell: one that changes nothing on the split is a guard against what the split
        # lacks, and stays (a silent error is the worst failure)
        pays = not (fig.better_or_equal(base) and fig.exact > base.exact)
        ablation.append({"switched off": name, **fig.row(), "kept": pays})
        log(f"fit_reader: without {name}: {fig.row()} -> {'kept' if pays else 'dropped'}")
        if not pays:
            cfg, base = trial, fig
    return cfg, base, choices, ablation


def _provenance(argv: list[str]) -> dict:
    import platform

    from ..bench.results import run_info

    info = run_info("python -m zatre_vision.training.fit_reader " + " ".join(argv))
    info["machine"]["host"] = platform.node()
    return info


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(prog="python -m zatre_vision.training.fit_reader",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=None, help="the pip model (default models/pips.onnx)")
    ap.add_argument("--board-model", default=None, help="the board network to locate with")
    ap.add_argument("--photos", type=int, default=150, help="photos per fitting set")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cases", default=None,
                    help="keep the located photos in this file and reuse them when it "
                         "exists (a refit skips rendering and locating)")
    ap.add_argument("--photo-cache", default=None,
                    help="keep the rendered photos here (fit_locator's --cache: the same "
                         "photos are rendered once for both fits)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the fitted entry, leave the card as it is")
    args = ap.parse_args(argv)
    from ..vision.reader import BoardReader, ReaderConfig
    from ..vision.reading.classify import DEFAULT_MODEL, ModelError
    from .fit_inputs import card_of

    model = Path(args.model) if args.model else DEFAULT_MODEL
    card_path = card_of("fit_reader", model, args.photos)
    if card_path is None:
        return 2
    made_by = _provenance(argv)
    t0 = time.perf_counter()
    cases = None
    if args.cases and Path(args.cases).is_file():
        import pickle

        with open(args.cases, "rb") as fh:
            cases = pickle.load(fh)
        print(f"fit_reader: {len(cases)} located photos from {args.cases}", file=sys.stderr)
    if cases is None:
        cases = collect(model, args.photos, args.workers, args.board_model,
                        photo_cache=args.photo_cache)
        if args.cases:
            import pickle

            Path(args.cases).parent.mkdir(parents=True, exist_ok=True)
            with open(args.cases, "wb") as fh:
                pickle.dump(cases, fh, protocol=pickle.HIGHEST_PROTOCOL)
    calibration, nll0, nll1, cells = fit_calibration(cases)
    print(f"fit_reader: calibration {calibration.to_card()} (NLL {nll0:.4f} -> {nll1:.4f} "
          f"over {cells} cells)", file=sys.stderr)
    try:
        reader = BoardReader(model, threads=1, config=ReaderConfig())
    except ModelError as exc:
        print(f"fit_reader: {exc}", file=sys.stderr)
        return 2
    judge = Judge(reader.classifier, cases)
    cfg, fitted, choices, ablation = fit_decision(
        judge, calibration, ReaderConfig(), log=lambda s: print(s, file=sys.stderr, flush=True))
    entry = cfg.model_card_entry(fitted_by="python -m zatre_vision.training.fit_reader "
                                           + " ".join(argv))
    entry["calibration"] = {**calibration.to_card(), "nll_before": round(nll0, 5),
                            "nll_after": round(nll1, 5), "cells": cells}
    entry["fitting_split"] = {
        "sets": [{"name": s.name, "seed": s.seed, "preset": s.preset, "makers": s.makers}
                 for s in FIT_SETS],
        "photos_per_set": args.photos, "boards": len(cases),
        "boards_found": sum(c.found for c in cases),
        "boards_aligned": sum(c.aligned for c in cases),
        "prints": "synth.board_art.TRAINING_PRINTS (held-out prints never drawn)",
        "tiles": "training ranges, and other makers' tiles (synth.tiles.maker_style) on "
                 "half the photos; held-out styles never drawn"}
    entry["silent_target"] = SILENT_TARGET
    entry["fitted_figures"] = fitted.row()
    detail: dict = {}
    judge.figures(cfg, calibration, detail)
    entry["fitted_figures_by_group"] = detail
    print(f"fit_reader: by group {json.dumps(detail)}", file=sys.stderr)
    entry["choices"] = choices
    entry["ablation"] = ablation
    entry["made_by"] = {**made_by, "wall_seconds": round(time.perf_counter() - t0, 1)}
    text = json.dumps(entry, indent=1)
    if args.dry_run:
        print(text)
        return 0
    card = json.loads(card_path.read_text(encoding="utf-8"))
    card["reader_thresholds"] = entry
    card_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print(f"fit_reader: wrote reader_thresholds into {card_path} "
          f"({time.perf_counter() - t0:.0f} s); fitted: {fitted.row()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
