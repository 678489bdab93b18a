"""``zatre bench vision``: the full reader on a held-out synthetic set.

The set is rendered in process with a seed never used in training (``BENCH_SEED``)
and the wider ranges of ``SynthConfig.wide()``, at 1280 x 960, with one thread for
OpenCV and onnxruntime. Figures: board found, corner error, per-cell errors (wrong,
uncertain, strict), whole-board accuracy, the classifier's confusion matrix and time.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from ..vision.geometry import CELL_NAMES
from ..vision.judge import A_CELL_OFF, PhotoScore, score_photo
from ..vision.location import make_calibration
from ..vision.reader import BoardReader, work_image
from ..vision.reading.cells import ALL_CELLS, crops, model_maps, normalise, rectify_board
from ..vision.reading.classify import CLASSES, DEFAULT_MODEL, OCCLUDED
from ..vision.reading.hires import HiresReader
from ..vision.reading.pips import count_all

BENCH_SEED = 9001
#: share of the wide set's boards pushed against the frame's edge, border cut off
#: (``synth.camera.pushed_to_edge``); the training ranges' set has none
EDGE_PROBABILITY = 0.2
SIZE = (1280, 960)


def _truth_labels(truth: dict) -> np.ndarray:
    hidden = set(truth.get("hidden", []))
    cells = truth.get("cells", {})
    return np.array([OCCLUDED if n in hidden else int(cells.get(n, 0)) for n in CELL_NAMES])


def _blur_beyond_training(truth: dict, train) -> bool:
    """The photo's defocus or motion blur is outside the training ranges (``train``: the
    training ``SensorConfig``)."""
    sensor = truth.get("sensor", {})
    return (float(sensor.get("defocus_sigma", 0.0)) > train.defocus_sigma[1]
            or float(sensor.get("motion_px", 0.0)) > train.motion_length[1])


#: distance between neighbouring pips of a six, in cells (synth.tiles: the pips sit 0.52
#: x 0.82 of half the tile's side from its middle; tiles are 0.80-0.88 cell wide)
PIP_SPACING_CELLS = 0.18
#: ``pip_contrast`` bands for ``by_pip_contrast``: below the first the pips are erased
#: (a pattern at the pips' spacing keeps under 5 % of its contrast), below the second faint
PIP_CONTRAST_BANDS = (0.05, 0.3)


def pip_contrast(truth: dict, width: int) -> float:
    """How much of its contrast a pattern at the pips' spacing keeps through the photo's
    blur: exp(-2 pi^2 s^2 / d^2), with s^2 the defocus variance plus a motion streak's
    (length^2 / 12, as if it ran across the pips) and d the pip spacing in pixels (cell
    size from the truth corners). An estimate from the render's own settings: near 1 the
    pips are sharp, below 0.05 nothing tells a 5 from a 6."""
    sensor = truth.get("sensor", {})
    px = width / 1280.0   # the renderer's blur is given at 1280 wide
    defocus = float(sensor.get("defocus_sigma", 0.0)) * px
    motion = float(sensor.get("motion_px", 0.0)) * px
    c = np.asarray(truth["corners"], float)
    cell = float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1))) / 15.0
    spacing = PIP_SPACING_CELLS * cell
    var = defocus ** 2 + motion ** 2 / 12.0
    return float(np.exp(-2.0 * np.pi ** 2 * var / spacing ** 2))


def _pip_band(contrast: float) -> str:
    low, high = PIP_CONTRAST_BANDS
    return "erased" if contrast < low else "faint" if contrast < high else "clear"


def _group_figures(rows: list[tuple[int, ...]]) -> dict:
    """rows: (visible cells, wrong, uncertain[, uncertain partly under a hand]) per photo
    with a board."""
    n = len(rows)
    vis = sum(r[0] for r in rows)
    out = {"photos": n,
           "boards_exactly_right": round(sum(r[1] == 0 and r[2] == 0 for r in rows)
                                         / max(n, 1), 5),
           "boards_without_wrong_cell": round(sum(r[1] == 0 for r in rows) / max(n, 1), 5),
           "wrong_rate": round(sum(r[1] for r in rows) / max(vis, 1), 6),
           "uncertain_rate": round(sum(r[2] for r in rows) / max(vis, 1), 6)}
    if rows and all(len(r) > 3 for r in rows):
        out["boards_exact_but_hand_edges"] = round(
            sum(r[1] == 0 and r[2] == r[3] for r in rows) / n, 5)
    return out


#: ``by_cell_px``: bands of the grid's pixels per cell in the photo
CELL_PX_BANDS = {"under_25": 25.0, "25_to_40": 40.0, "40_to_55": 55.0, "55_and_more": 1e9}


def cell_px_band(truth: dict) -> str:
    """The ``CELL_PX_BANDS`` band of a photo's grid (its outer edges' mean length / 15)."""
    c = np.asarray(truth["corners"], np.float64)
    px = float(np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)) / 15)
    return next(b for b, top in CELL_PX_BANDS.items() if px < top)


def _record(row: tuple[int, int, int, int], group: list, splits: list[list]) -> None:
    """One photo's row (visible cells, wrong, uncertain, uncertain partly under a hand)
    into its blur group (the first three figures) and each of its other splits."""
    group.append(row[:3])
    for rows in splits:
        rows.append(row)


def _cached_photo(cache: Path | None, index: int, render) -> tuple[bytes, dict]:
    """Photo ``index`` from ``cache`` when it holds it, else ``render()`` (and kept
    there)."""
    if cache is None:
        return render()
    jpg, js = cache / f"{index:06d}.jpg", cache / f"{index:06d}.json"
    if jpg.is_file() and js.is_file():
        return jpg.read_bytes(), json.loads(js.read_text(encoding="utf-8"))
    jpeg, truth = render()
    cache.mkdir(parents=True, exist_ok=True)
    jpg.write_bytes(jpeg)
    js.write_text(json.dumps(truth), encoding="utf-8")
    return jpeg, truth


def provenance() -> dict:
    """What made a result file, taken before the run (the code that runs): the fields of
    ``bench/results.py`` (commit, with "+changes" when the tree differs; UTC date;
    machine, with its host name; command line; the paths measured)."""
    import platform

    from .results import command_line, run_info

    info = run_info(command_line())
    info["machine"]["host"] = platform.node()
    return info


def baseline_ms(jpeg: bytes) -> float:
    """The timing baseline, measured on the same frame in the same run: decoding the
    JPEG and one ``cv2.warpPerspective`` of the decoded frame to its own size (one
    thread)."""
    t = time.perf_counter()
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    h, w = img.shape[:2]
    m = np.array([[1.0, 0.02, 3.0], [-0.02, 1.0, 2.0], [1e-6, 0.0, 1.0]])
    cv2.warpPerspective(img, m, (w, h))
    return (time.perf_counter() - t) * 1000


class PipCounterTally:
    """The classical pip count on its own, per true class (0 empty .. 6): cells, counted
    right, counted wrong, abstained (``pips.CANNOT_TELL``), over every visible cell of
    the boards found (crops from the reader's own fit), apart for photos the reader
    takes as blurred (its ``sharp_enough``: there the veto never applies)."""

    def __init__(self, sharp_enough: float) -> None:
        self.sharp_enough = sharp_enough
        self.tables = {"sharp": np.zeros((7, 3), np.int64),      # right, wrong, abstained
                       "blurred": np.zeros((7, 3), np.int64)}

    def add(self, image: np.ndarray, res, labels: np.ndarray) -> None:
        work, _ = work_image(image)
        grey = work if work.ndim == 2 else cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        model = res.model
        board = normalise(rectify_board(grey, model_maps(model), model.cell_size_px()))
        counts = count_all(crops(board), np.ones(len(CELL_NAMES), bool))
        sharp = res.sharpness is None or res.sharpness >= self.sharp_enough
        table = self.tables["sharp" if sharp else "blurred"]
        for truth, count in zip(labels, counts, strict=True):
            if truth == OCCLUDED:
                continue
            k = 2 if count < 0 else 0 if count == truth else 1
            table[int(truth), k] += 1

    def figures(self) -> dict:
        out: dict = {"definition": "the classical pip count alone on every visible cell of "
                                   "the boards found, by true class: accuracy over the "
                                   "cells it counted, and the share it abstained on "
                                   "(cannot tell); photos the reader takes as blurred "
                                   "apart (the veto is off there)"}
        for name, table in self.tables.items():
            out[name] = {}
            for c in range(7):
                right, wrong, abstained = (int(x) for x in table[c])
                counted = right + wrong
                out[name][CLASSES[c]] = {
                    "cells": counted + abstained, "counted_right": right,
                    "counted_wrong": wrong, "accuracy": round(right / max(counted, 1), 5),
                    "abstained": round(abstained / max(counted + abstained, 1), 5)}
        return out


def read_and_score(reader: BoardReader, jpeg: bytes, board: bool,
                   labels: np.ndarray | None, hidden: np.ndarray | None,
                   truth_corners, base_times: list[float], times: list[float],
                   scores: list[PhotoScore] | None):
    """One photo through the reader and the judge: its decoding timed for the baseline
    (appended to ``base_times``), decoded, read (the read's time appended to ``times``)
    and scored (appended to ``scores`` where given). Returns (image, read, score)."""
    base_times.append(baseline_ms(jpeg))
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    res = reader.read(img)
    times.append(res.elapsed_ms)
    score = score_photo(
        board=board, truth=labels, hidden=hidden, truth_corners=truth_corners,
        found=res.board_found, corners=res.corners if res.board_found else None,
        cell_px=res.model.cell_size_px() if res.board_found else 1.0,
        cells=res.cells, uncertain=res.uncertain, names=CELL_NAMES,
        read_ms=res.elapsed_ms, baseline_ms=base_times[-1])
    if scores is not None:
        scores.append(score)
    return img, res, score


def silent_figures(silent: list[int], visible: int) -> dict:
    """Silent errors: cells reported with a wrong value and neither uncertain nor
    occluded (a board not found reports nothing), per photo with a board."""
    return {"definition": "cells reported with a wrong value, not uncertain nor occluded, "
                          "over the visible cells of every photo with a board",
            "silent_errors": int(sum(silent)),
            "silent_error_rate": round(sum(silent) / max(visible, 1), 7),
            "boards_with_5_or_more": int(sum(s >= 5 for s in silent)),
            "boards_with_any": int(sum(s > 0 for s in silent))}


def run_vision_benchmark(photos: int = 300, model_path: Path = DEFAULT_MODEL,
                         seed: int = BENCH_SEED, progress: bool = True,
                         wide: bool = True, scanned_board: bool = False,
                         tiles: str = "training", prints: tuple[str, ...] = ("peri",),
                         hires: bool = False, size: tuple[int, int] | None = None,
                         board_model_path: Path | None = None,
                         photo_cache: Path | None = None,
                         scores: list[PhotoScore] | None = None) -> dict:
    """``scanned_board``: every photo shows the real board's print (a scan,
    ``synth.scanned_board``) instead of the drawn boards the models were trained on;
    the scenes (camera, tiles, hands, light, sensor) are the same photo for photo.
    ``tiles``: "training", a held-out tile set (``synth.tiles.HELD_OUT_STYLES``) or
    "held-out" (one of them per photo); ``prints``: the drawn boards' prints
    (``synth.board_art``; the held-out ones: ``HELD_OUT_PRINTS``). ``hires``: doubtful
    cells read again from the frame at its own resolution (``hires.HiresReader``);
    ``size``: the photos' size (default ``SIZE``). ``board_model_path``: the board
    network (default the committed one); ``photo_cache``: a folder where the rendered
    photos are kept, so that a second model is judged on the same photos without
    rendering them again (``zatre bench gate``); ``scores``: a list that receives each
    photo's score by the judge (``vision.judge.score_photo``), in the photos' order."""
    from ..synth.config import SynthConfig
    from ..synth.photos import render_photo
    from ..synth.scanned_board import scanned_board_texture
    from ..synth.scene import Renderer

    made_by = provenance()     # before the run: the code that runs
    cv2.setNumThreads(1)
    cfg = SynthConfig.wide(EDGE_PROBABILITY) if wide else SynthConfig()
    cfg = cfg.with_tiles(tiles)
    if tuple(prints) != ("peri",):
        cfg = replace(cfg, board=replace(cfg.board, prints=tuple(prints),
                                         textures_per_seed=2 * len(prints)))
    size = tuple(size or SIZE)
    renderer = Renderer(cfg, seed, *size,
                        board_art=scanned_board_texture if scanned_board else None)
    games: dict = {}
    located = {} if board_model_path is None else {"board_model_path": board_model_path}
    reader = BoardReader(model_path, threads=1, **located)
    if hires:
        reader.hires = HiresReader()
    by_cell_px: dict[str, list[tuple[int, ...]]] = {b: [] for b in CELL_PX_BANDS}
    time_by_cell_px: dict[str, list[float]] = {b: [] for b in CELL_PX_BANDS}
    hires_cells = hires_photos = 0
    cal_reader = BoardReader(model_path, threads=1, **located)
    cal_reader.moved_contrast = False  # a fixed camera reads as the live pipeline does
    n_board = n_found = false_pos = a_cell_off = 0
    corner_err: list[float] = []
    times: list[float] = []
    visible = wrong = unsure = 0
    visible_found = wrong_found = 0
    boards_exact = boards_exact_lenient = boards_exact_but_edges = 0
    edge_uncertain = 0
    hidden_total = hidden_flagged = hidden_read_wrong = 0
    recentred = recentred_wrong = 0
    beside = beside_wrong = beside_hidden = beside_hidden_wrong = 0
    cm = np.zeros((len(CLASSES), len(CLASSES)), np.int64)
    failures: list[dict] = []
    cal_times: list[float] = []
    cal_first_times: list[float] = []
    base_times: list[float] = []
    silent: list[int] = []
    counter = PipCounterTally(reader.config.sharp_enough)
    by_blur: dict[str, list[tuple[int, int, int]]] = {"within": [], "beyond": []}
    by_pips: dict[str, list[tuple[int, ...]]] = {"clear": [], "faint": [], "erased": []}
    by_hand: dict[str, list[tuple[int, ...]]] = {"no_hand": [], "hand": []}
    #: photos with clear pips and no hand over the board: reading every cell well posed
    readable: list[tuple[int, ...]] = []
    located_by: dict[str, list[float]] = {}
    #: per true print (``truth["print"]``): photos, boards found, the prints named
    by_print: dict[str, dict] = {}
    doubtful_frames = 0
    read_visible = read_unsure = 0  # on the boards found whose frame was not held back
    train_sensor = SynthConfig().sensor
    for i in tqdm(range(1, photos + 1), desc="bench vision", unit="photo", file=sys.stderr,
                  disable=not progress):
        jpeg, truth = _cached_photo(photo_cache, i, lambda i=i: render_photo(
            renderer, cfg, seed, i, games))
        labels = _truth_labels(truth) if truth["board_found"] else None
        img, res, score = read_and_score(
            reader, jpeg, board=bool(truth["board_found"]), labels=labels,
            hidden=None if labels is None else labels == OCCLUDED,
            truth_corners=truth.get("corners"), base_times=base_times, times=times,
            scores=scores)
        if not truth["board_found"]:
            false_pos += int(res.board_found)
            continue
        n_board += 1
        located_by.setdefault(res.source, []).append(res.elapsed_ms)
        named = by_print.setdefault(truth.get("print", "?"), {"photos": 0, "found": 0,
                                                              "named": {}})
        named["photos"] += 1
        if res.board_found:
            named["found"] += 1
            named["named"][str(res.board_print)] = named["named"].get(str(res.board_print),
                                                                      0) + 1
        vis = labels != OCCLUDED
        n_vis = int(vis.sum())
        hidden_total += int((~vis).sum())
        group = by_blur["beyond" if _blur_beyond_training(truth, train_sensor) else "within"]
        band = _pip_band(pip_contrast(truth, img.shape[1]))
        handed = bool(truth.get("hidden") or truth.get("partly_hidden"))
        # the splits this photo's row goes into (by_blur takes it without its 4th figure)
        px_band = cell_px_band(truth)
        time_by_cell_px[px_band].append(res.elapsed_ms)
        splits = [by_pips[band], by_hand["hand" if handed else "no_hand"], by_cell_px[px_band]]
        if band == "clear" and not handed:
            splits.append(readable)
        if not res.board_found:
            failures.append({"photo": i, "why": "board not found",
                             "score": round(res.locate_score, 3)})
            visible += n_vis
            wrong += int((labels[vis] > 0).sum())   # every tile missed
            _record((n_vis, int((labels[vis] > 0).sum()), 0, 0), group, splits)
            silent.append(0)
            continue
        n_found += 1
        if reader.hires is not None:
            hires_cells += reader.hires.last_cells
            hires_photos += int(reader.hires.last_cells > 0)
        counter.add(img, res, labels)
        doubtful_frames += int(res.doubtful_frame)
        if len(cal_times) < 40:  # fixed camera: calibration saved from this frame
            cal_reader.calibration = make_calibration(img, res.model)
            # its first frame proves the grid against the prints (once a calibration);
            # every later frame only checks that the board has not moved
            cal_first_times.append(cal_reader.read(img).elapsed_ms)
            cal_times.append(cal_reader.read(img).elapsed_ms)
        corner_err.append(score.corner_error)
        a_cell_off += int(score.off)
        np.add.at(cm, (labels, res.classes), 1)
        unc = set(res.uncertain)
        edges = set(truth.get("partly_hidden", []))
        # the judge's counts; the loop below only splits them further
        w, u, e = score.silent, score.uncertain, 0
        settled = set(res.recentred)
        recentred += len(settled)
        beside_cells = set(res.beside_hand)
        beside += len(beside_cells)
        for j, name in enumerate(CELL_NAMES):
            if not vis[j]:
                hidden_flagged += int(name in unc)
                # read although hidden: right only if it matches what lies under the hand
                misread = int(name not in unc and res.cells.get(name, 0)
                              != int(truth.get("cells", {}).get(name, 0)))
                hidden_read_wrong += misread
                beside_hidden += int(name in beside_cells)
                beside_hidden_wrong += misread * int(name in beside_cells)
                continue
            if name in unc:
                e += int(name in edges)
            elif res.cells.get(name, 0) != labels[j]:
                recentred_wrong += int(name in settled)
                beside_wrong += int(name in beside_cells)
        visible += n_vis
        wrong += w
        silent.append(w)
        unsure += u
        visible_found += n_vis
        wrong_found += w
        boards_exact += int(w == 0 and u == 0)
        boards_exact_but_edges += int(w == 0 and u == e)
        edge_uncertain += e
        if not res.doubtful_frame:
            read_visible += n_vis
            read_unsure += u
        _record((n_vis, w, u, e), group, splits)
        boards_exact_lenient += int(w == 0)
        if w or u:
            failures.append({"photo": i, "wrong": w, "uncertain": u,
                             "corner_error_cells": round(corner_err[-1], 3)})
    # the classifier alone on 193 crops, one thread
    crop_batch = np.random.default_rng(0).random((193, 24, 24), dtype=np.float32)
    clf = reader.classifier
    t_clf = []
    for _ in range(200):
        t = time.perf_counter()
        clf.probabilities(crop_batch, ALL_CELLS)
        t_clf.append((time.perf_counter() - t) * 1000)
    ms = np.array(times)
    base = float(np.median(base_times)) if base_times else 1.0
    ce = np.array(corner_err) if corner_err else np.zeros(1)
    res = {
        **made_by,
        "set": {"photos": photos, "seed": seed,
                "config": f"SynthConfig.wide({EDGE_PROBABILITY})" if wide
                else "SynthConfig() (training ranges)",
                "board_art": "scan of a real board (synth/data/board-scan.jpg)" if scanned_board
                else "drawn (board_art.make_board_texture, as in training)",
                **({"tiles": tiles} if tiles != "training" else {}),
                **({"prints": list(prints)} if tuple(prints) != ("peri",) else {}),
                "size": list(size), "photos_with_board": n_board,
                "photos_without_board": photos - n_board},
        "board_found_rate": round(n_found / max(n_board, 1), 5),
        "false_board_rate": round(false_pos / max(photos - n_board, 1), 5),
        "false_boards": false_pos,
        "boards_a_cell_off": a_cell_off,
        "boards_a_cell_off_definition": f"boards found whose corners lie {A_CELL_OFF} cell "
                                        "or more from the truth (fitted a cell off)",
        "silent": silent_figures(silent, visible),
        "pip_counter": counter.figures(),
        "corner_error_cells": {"median": round(float(np.median(ce)), 4),
                               "p95": round(float(np.percentile(ce, 95)), 4),
                               "max": round(float(ce.max()), 4)},
        "cells": {
            "visible_cells": visible,
            "wrong": wrong, "uncertain": unsure,
            "wrong_rate": round(wrong / max(visible, 1), 6),
            "uncertain_rate": round(unsure / max(visible, 1), 6),
            "strict_error_rate": round((wrong + unsure) / max(visible, 1), 6),
            "found_boards_only": {
                "visible_cells": visible_found, "wrong": wrong_found,
                "wrong_rate": round(wrong_found / max(visible_found, 1), 6),
                "uncertain_rate": round(unsure / max(visible_found, 1), 6),
                "strict_error_rate": round((wrong_found + unsure) / max(visible_found, 1), 6)},
            "hidden_cells": hidden_total,
            "hidden_flagged_uncertain": round(hidden_flagged / max(hidden_total, 1), 4),
            "hidden_read_wrong": hidden_read_wrong,
            "hidden_read_wrong_definition": "cells a hand hides that were read anyway (not "
                                            "uncertain) with a value other than the one "
                                            "under the hand; not counted in wrong",
            "recentred": recentred,
            "recentred_wrong": recentred_wrong,
            "recentred_definition": "uncertain cells that a re-centred reading settled "
                                    "(ReaderConfig.recentre_shift), and how many of those on "
                                    "visible cells are wrong (counted in wrong)",
            "beside_hand": beside,
            "beside_hand_wrong": beside_wrong,
            "beside_hand_hidden": beside_hidden,
            "beside_hand_hidden_wrong": beside_hidden_wrong,
            "beside_hand_definition": "uncertain cells at a hand's edge that readings "
                                      "from crops moved away from the hand settled "
                                      "(ReaderConfig.beside_hand_shift); of those, wrong on "
                                      "visible cells (counted in wrong), under the hand "
                                      "(hidden in the truth), and read wrong there "
                                      "(counted in hidden_read_wrong)",
            "uncertain_partly_hidden": edge_uncertain,
            "partly_hidden_definition": "visible cells a hand covers in part (some of "
                                        "the 25 sample points of the cell, fewer than "
                                        "the 30 % that make it hidden) that were left "
                                        "uncertain; counted in uncertain",
            "definition": "over all 193 cells of every photo with a board, except cells "
                          "a hand hides: wrong = reported in cells with a wrong value, or a "
                          "tile neither reported nor marked uncertain (all tiles of a board "
                          "not found count wrong); uncertain = visible cell in uncertain; "
                          "strict = wrong + uncertain",
        },
        "boards_exactly_right": round(boards_exact / max(n_board, 1), 5),
        "boards_without_wrong_cell": round(boards_exact_lenient / max(n_board, 1), 5),
        "boards_exact_but_hand_edges": round(boards_exact_but_edges / max(n_board, 1), 5),
        "boards_exact_but_hand_edges_definition": "no wrong cell, and every uncertain cell "
                                                  "partly under a hand (for reference; "
                                                  "boards_exactly_right is the target)",
        "by_blur": {
            "definition": "photos with a board, split by whether their defocus or motion "
                          "blur lies beyond the training ranges (SensorConfig(): defocus "
                          f"sigma up to {train_sensor.defocus_sigma[1]} px, motion up to "
                          f"{train_sensor.motion_length[1]} px)",
            "within_training_blur": _group_figures(by_blur["within"]),
            "beyond_training_blur": _group_figures(by_blur["beyond"]),
        },
        "by_pip_contrast": {
            "definition": "photos with a board, split by how much contrast the photo's "
                          "blur leaves to the pips (vision.bench.pip_contrast, an estimate "
                          "from the render's defocus, motion streak and cell size: a "
                          f"pattern at the pips' spacing, {PIP_SPACING_CELLS} cell): clear "
                          f"from {PIP_CONTRAST_BANDS[1]}, faint from "
                          f"{PIP_CONTRAST_BANDS[0]}, erased below (no reader can count "
                          "such pips; they are meant to be left uncertain)",
            **{band: _group_figures(rows) for band, rows in by_pips.items()},
        },
        "by_cell_px": {
            "definition": "photos with a board, split by the grid's pixels per cell in the "
                          "photo (its outer edges' mean length / 15); read_ms_median: the "
                          "whole read, one thread",
            **{b: {**_group_figures(rows), "read_ms_median": round(float(np.median(
                time_by_cell_px[b])), 2) if time_by_cell_px[b] else None}
               for b, rows in by_cell_px.items()},
        },
        "hires": ({"cells_reread": hires_cells, "photos": hires_photos,
                   "definition": "doubtful cells read again from the frame at its own "
                                 "resolution (vision/reading/hires.py), and on how many photos"}
                  if hires else None),
        "by_hand": {
            "definition": "photos with a board, split by whether a hand or arm covers "
                          "any cell (hidden or partly hidden in the truth)",
            **{k: _group_figures(rows) for k, rows in by_hand.items()},
        },
        "clear_pips_no_hand": {
            "definition": "photos with a board whose pips keep their contrast (the clear "
                          "band of by_pip_contrast) and with no hand or arm over any cell: "
                          "where reading every cell is well posed (for reference; "
                          "boards_exactly_right is the target)",
            **_group_figures([r[:3] for r in readable]),
        },
        "confusion_matrix": {"classes": list(CLASSES), "rows": "truth", "columns": "CNN argmax",
                             "counts": cm.tolist()},
        "timing_ms_one_thread": {
            "baseline_median": round(base, 2),
            "baseline_definition": "JPEG decode plus one cv2.warpPerspective of the "
                                   "same frame, measured in the same run",
            "read_ratio_to_baseline": round(float(np.median(ms)) / base, 3),
            "read_with_calibration_ratio_to_baseline":
                round(float(np.median(cal_times)) / base, 3) if cal_times else None,
            "read_median": round(float(np.median(ms)), 2),
            "read_p90": round(float(np.percentile(ms, 90)), 2),
            "classifier_193_median": round(float(np.median(t_clf)), 3),
            "read_with_calibration_median": round(float(np.median(cal_times)), 2)
            if cal_times else None,
            "read_with_calibration_first_frame_median":
                round(float(np.median(cal_first_times)), 2) if cal_first_times else None,
            "read_with_calibration_note": "fixed camera: saved calibration, board_moved "
                                          "check, rectify, classify, decide (first 40 "
                                          "boards found); each calibration's second frame "
                                          "(its first also proves the grid against the "
                                          "prints, once: ..._first_frame_median)",
        },
        "targets": {"cell_error_max": 0.0005, "boards_exact_min": 0.95,
                    "board_found_min": 0.995, "read_median_ms_max": 40,
                    "classifier_ms_max": 5},
        "located_by": {
            "definition": "photos with a board by where the board came from (the reader's "
                          "source: locate:net = a fit from the board network's corners, "
                          "locate:classical = the classical search, locate:texture = a fit "
                          "from the search's coarse outline, locate:none = not found), with "
                          "their read median",
            **{src: {"photos": len(t), "read_median_ms": round(float(np.median(t)), 1)}
               for src, t in sorted(located_by.items())},
        },
        "by_print": {
            "definition": "photos with a board by the board's print (a profile of "
                          "calibration/prints/; given: the scan), with the boards found and "
                          "the print the reader named on them (board_print)",
            **dict(sorted(by_print.items())),
        },
        "doubtful_frames": {
            "definition": "boards found on a frame the reader held back (10 or more cells "
                          "in doubt, or 3 on a photo streaked or blurred past its pips: "
                          "no cell reported, all 193 left uncertain; "
                          "ReaderConfig.doubtful_frame, doubtful_frame_streaked)",
            "photos": doubtful_frames,
            "share_of_boards_found": round(doubtful_frames / max(n_found, 1), 5),
            "uncertain_rate_on_the_other_frames": round(read_unsure / max(read_visible, 1),
                                                        6),
        },
        "failures": failures[:60],
    }
    t = res["targets"]
    res["targets_met"] = {
        "cell_error (strict)": res["cells"]["strict_error_rate"] <= t["cell_error_max"],
        "cell_error (wrong only)": res["cells"]["wrong_rate"] <= t["cell_error_max"],
        "boards_exact": res["boards_exactly_right"] >= t["boards_exact_min"],
        "board_found": res["board_found_rate"] >= t["board_found_min"],
        "read_median_ms": res["timing_ms_one_thread"]["read_median"] <= t["read_median_ms_max"],
        "classifier_ms": res["timing_ms_one_thread"]["classifier_193_median"]
        <= t["classifier_ms_max"],
    }
    return res


def run_folder_benchmark(folder: Path, model_path: Path = DEFAULT_MODEL,
                         progress: bool = True, board_model_path: Path | None = None,
                         scores: list[PhotoScore] | None = None) -> dict:
    """The reader on photos from elsewhere: every ``truth.json`` under ``folder`` maps a
    file name beside it to ``{"cells": {...}, "corners": [...]}`` (every tile; other
    cells empty). The same figures as the synthetic benchmark's where they apply;
    ``scores`` receives each photo's score by the judge, in the photos' order."""
    made_by = provenance()
    cv2.setNumThreads(1)
    located = {} if board_model_path is None else {"board_model_path": board_model_path}
    reader = BoardReader(model_path, threads=1, **located)
    truths = sorted(Path(folder).rglob("truth.json"))
    if not truths:
        raise FileNotFoundError(f"no truth.json under {folder}")
    items = [(t.parent / name, truth) for t in truths
             for name, truth in sorted(json.loads(t.read_text()).items())]
    n_found = exact = visible = unsure = 0
    silent: list[int] = []
    times: list[float] = []
    base_times: list[float] = []
    counter = PipCounterTally(reader.config.sharp_enough)
    per_photo = []
    for path, truth in tqdm(items, desc="bench vision (folder)", unit="photo",
                            file=sys.stderr, disable=not progress):
        labels = np.array([int(truth.get("cells", {}).get(n, 0)) for n in CELL_NAMES])
        visible += len(labels)
        name = str(path.relative_to(folder))
        img, res, score = read_and_score(
            reader, path.read_bytes(), board=True, labels=labels, hidden=None,
            truth_corners=truth.get("corners"), base_times=base_times, times=times,
            scores=scores)
        if not res.board_found:
            silent.append(0)
            per_photo.append({"photo": name, "found": False})
            continue
        n_found += 1
        counter.add(img, res, labels)
        w, u = score.silent, score.uncertain
        silent.append(int(w))
        unsure += u
        exact += int(w == 0 and u == 0)
        per_photo.append({"photo": name, "found": True, "silent_errors": int(w),
                          "uncertain": int(u), "doubtful_frame": res.doubtful_frame})
    base = float(np.median(base_times))
    ms = float(np.median(times))
    return {**made_by,
            "set": {"folder": str(folder), "photos": len(items),
                    "note": "photos with a board only; no hands in their truth"},
            "board_found_rate": round(n_found / max(len(items), 1), 5),
            "silent": silent_figures(silent, visible),
            "boards_exactly_right": round(exact / max(len(items), 1), 5),
            "uncertain_rate": round(unsure / max(visible, 1), 6),
            "pip_counter": counter.figures(),
            "timing_ms_one_thread": {"baseline_median": round(base, 2),
                                     "read_median": round(ms, 2),
                                     "read_ratio_to_baseline": round(ms / base, 3)},
            "photos": per_photo}


__all__ = ["BENCH_SEED", "provenance", "run_folder_benchmark", "run_vision_benchmark"]
