"""``zatre bench gate CANDIDATE.onnx``: the gate a model passes before it replaces the
committed one.

The committed models and the candidate, each with its own fitted decision (its card's
``reader_thresholds``, ``training/fit_reader.py``), read the same photos of every bench
set: the wide set, seed 8101, the training ranges, the held-out tile styles, the
held-out prints, the scanned board, and the outside renderer's folder where it is
present. Each set is rendered once (``photo_cache``) and read by both. The candidate
passes when, on every set, it has no more silent cells (a wrong value not flagged) and
no more boards with 5 or more of them than the committed model; where the board network
changes too, it must also find at least as many boards and fit no more a cell off.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class GateSet:
    """One bench set as ``zatre bench vision`` renders it (the Makefile's photo counts)."""

    name: str
    photos: int
    seed: int | None = None
    wide: bool = True
    scanned: bool = False
    tiles: str = "training"
    prints: str = "peri"
    folder: bool = False


GATE_SETS = (
    GateSet("wide", 150),
    GateSet("seed 8101", 300, seed=8101),
    GateSet("training ranges", 200, seed=9002, wide=False),
    GateSet("held-out tiles", 60, tiles="held-out"),
    GateSet("held-out prints", 60, prints="held-out"),
    GateSet("scanned board", 60, scanned=True),
    GateSet("outside renderer", 0, folder=True),
)


def _figures(res: dict) -> dict:
    """The figures the gate compares and shows, from a bench result."""
    silent = res["silent"]
    cells = res.get("cells", {})
    return {"found": res["board_found_rate"],
            "silent": silent["silent_errors"],
            "silent_rate": silent["silent_error_rate"],
            "boards_5_silent": silent["boards_with_5_or_more"],
            "uncertain_rate": cells.get("uncertain_rate", res.get("uncertain_rate")),
            "exact": res["boards_exactly_right"],
            "a_cell_off": res.get("boards_a_cell_off", 0),
            "read_ratio": res["timing_ms_one_thread"]["read_ratio_to_baseline"],
            "calibrated_ratio": res["timing_ms_one_thread"].get(
                "read_with_calibration_ratio_to_baseline")}


def verdict(committed: dict, candidate: dict, board_changed: bool) -> list[str]:
    """Why the candidate fails on one set (empty: it passes there)."""
    why = []
    if candidate["silent"] > committed["silent"]:
        why.append(f"silent cells {committed['silent']} -> {candidate['silent']}")
    if candidate["boards_5_silent"] > committed["boards_5_silent"]:
        why.append(f"boards with 5+ silent {committed['boards_5_silent']} -> "
                   f"{candidate['boards_5_silent']}")
    if board_changed and candidate["found"] < committed["found"]:
        why.append(f"boards found {committed['found']} -> {candidate['found']}")
    if board_changed and candidate["a_cell_off"] > committed["a_cell_off"]:
        why.append(f"boards a cell off {committed['a_cell_off']} -> {candidate['a_cell_off']}")
    return why


def _run_set(job):
    """Worker: one set read by both pairs of models (rendered once)."""
    import cv2

    from .bench import run_folder_benchmark, run_vision_benchmark

    gs, pairs, scale, outside, cache_root = job
    cv2.setNumThreads(1)
    out = {}
    if gs.folder:
        if outside is None:
            return gs.name, None
        for who, (pips, board) in pairs.items():
            out[who] = run_folder_benchmark(Path(outside), Path(pips), progress=False,
                                            board_model_path=board)
        return gs.name, out
    from ..synth.board_art import HELD_OUT_PRINTS

    photos = max(5, round(gs.photos * scale))
    prints = tuple(HELD_OUT_PRINTS) if gs.prints == "held-out" else (gs.prints,)
    seed = gs.seed if gs.seed is not None else (9001 if gs.wide else 9002)
    cache = Path(cache_root) / gs.name.replace(" ", "-")
    for who, (pips, board) in pairs.items():
        out[who] = run_vision_benchmark(photos, Path(pips), seed=seed, progress=False,
                                        wide=gs.wide, scanned_board=gs.scanned,
                                        tiles=gs.tiles, prints=prints,
                                        board_model_path=board, photo_cache=cache)
    return gs.name, out


def run_gate(candidate: Path, candidate_board: Path | None, committed: Path,
             committed_board: Path, outside: Path | None, scale: float = 1.0,
             workers: int = 2, log=print, sets: tuple[GateSet, ...] = GATE_SETS) -> dict:
    """Both pairs of models on every set (``sets``); the table and the verdict."""
    from multiprocessing import get_context

    from .bench import provenance

    made_by = provenance()
    board_changed = candidate_board is not None
    pairs = {"committed": (str(committed), str(committed_board)),
             "candidate": (str(candidate), str(candidate_board or committed_board))}
    rows = []
    failures = {}
    cache_root = tempfile.mkdtemp(prefix="zatre-gate-")
    try:
        jobs = [(gs, pairs, scale, str(outside) if outside else None, cache_root)
                for gs in sets]
        # spawn, not fork: a fork of a process whose OpenCV or onnxruntime threads hold
        # a lock deadlocks in the child (seen under pytest after other tests read photos)
        ctx = get_context("spawn")
        with ctx.Pool(max(1, workers)) as pool:
            for name, out in pool.imap(_run_set, jobs):
                if out is None:
                    log(f"gate: {name}: skipped (no folder)")
                    continue
                a, b = _figures(out["committed"]), _figures(out["candidate"])
                why = verdict(a, b, board_changed)
                if why:
                    failures[name] = why
                rows.append({"set": name, "committed": a, "candidate": b,
                             "passes": not why, "why": why})
                log(f"gate: {name}: {'passes' if not why else 'FAILS: ' + '; '.join(why)}")
    finally:
        shutil.rmtree(cache_root, ignore_errors=True)
    return {**made_by, "candidate": str(candidate),
            "candidate_board": str(candidate_board) if candidate_board else None,
            "committed": str(committed), "committed_board": str(committed_board),
            "scale": scale, "board_changed": board_changed,
            "rule": "on every set: silent cells and boards with 5 or more silent cells no "
                    "more than the committed model's; with a new board network also boards "
                    "found no fewer and boards a cell off no more",
            "sets": rows, "passes": not failures and bool(rows), "failures": failures}


def table(result: dict) -> str:
    """The side-by-side table, as Markdown."""
    head = ("| set | model | found | silent cells (rate) | boards 5+ silent | uncertain | "
            "exact | a cell off | read / baseline | with calibration |")
    lines = [head, "|" + "---|" * 10]
    for row in result["sets"]:
        for who in ("committed", "candidate"):
            f = row[who]
            unc = f["uncertain_rate"]
            cal = f["calibrated_ratio"]
            lines.append(
                f"| {row['set']} | {who} | {100 * f['found']:.1f} % | {f['silent']} "
                f"({100 * f['silent_rate']:.4f} %) | {f['boards_5_silent']} | "
                f"{'' if unc is None else f'{100 * unc:.2f} %'} | {100 * f['exact']:.1f} % | "
                f"{f['a_cell_off']} | {f['read_ratio']:.2f} | "
                f"{'' if cal is None else f'{cal:.2f}'} |")
    verdict_line = ("**passes**" if result["passes"] else
                    "**fails**: " + "; ".join(f"{k}: {', '.join(v)}"
                                              for k, v in result["failures"].items()))
    return "\n".join(lines) + f"\n\nGate: {verdict_line}\n"


def install(candidate: Path, candidate_board: Path | None, models: Path) -> list[Path]:
    """Copy a candidate that passed (and its card) into ``models`` as ``pips.onnx``
    (and ``board.onnx``), each through a temporary file: a reader that loads the models
    meanwhile never sees half a file. ``zatre bench gate --install`` and ``make models``
    both land this way."""
    written = []
    models.mkdir(parents=True, exist_ok=True)
    for src, name in ((candidate, "pips.onnx"), (candidate_board, "board.onnx")):
        if src is None:
            continue
        for suffix in ("", ".json"):
            d = models / (name + suffix)
            tmp = d.with_name(f".{d.name}.{os.getpid()}.tmp")
            shutil.copyfile(Path(str(src) + suffix), tmp)
            os.replace(tmp, d)
            written.append(d)
    return written


__all__ = ["GATE_SETS", "install", "run_gate", "table", "verdict"]
