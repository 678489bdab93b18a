"""``zatre bench gate CANDIDATE.onnx``: the gate a model passes before it replaces the
committed one.

The committed models and the candidate, each with its own fitted decision (its card's
``reader_thresholds``, ``training/fit_reader.py``), read the same photos of every bench
set: the wide set, seed 8101, the training ranges, the held-out tile styles, the
held-out prints, the scanned board (240 photos each for the three held-out sets), and
the outside renderer's folder where it is present. Each set is rendered once
(``photo_cache``; kept between runs with ``cache``) and read by both; every photo is
scored by the one judge (``vision.judge``).

The rule (the owner's, issue 60):

- pooled over all sets, the candidate has no more silent cells and no more boards with
  5 or more silent cells; where the board network changes, no fewer boards found and no
  more boards a cell off (``judge.harms``, raw counts);
- on each set, no figure is significantly worse by a one-sided exact test
  (``judge.set_tests``): silent cells as a count (the candidate's b of n = a + b is
  Binomial(n, 1/2) if the two are equally good; the set fails where P(X >= b) < 0.05),
  boards with 5+ silent cells and, with a new board network, boards not found, a cell off
  and false boards by exact McNemar on the photos where the two disagree.

The table shows every p-value and the pooled totals.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..vision.judge import MANY_SILENT, SIGNIFICANCE, PhotoScore, Tally, harms, set_tests


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


#: the held-out sets hold 240 photos each, so that the exact tests have power
HELD_OUT_PHOTOS = 240
GATE_SETS = (
    GateSet("wide", 150),
    GateSet("seed 8101", 300, seed=8101),
    GateSet("training ranges", 200, seed=9002, wide=False),
    GateSet("held-out tiles", HELD_OUT_PHOTOS, tiles="held-out"),
    GateSet("held-out prints", HELD_OUT_PHOTOS, prints="held-out"),
    GateSet("scanned board", HELD_OUT_PHOTOS, scanned=True),
    GateSet("outside renderer", 0, folder=True),
)


def _figures(res: dict, tally: Tally) -> dict:
    """The figures the gate shows for one model on one set: the judge's sums, and the
    uncertain share and read times from the bench result."""
    cells = res.get("cells", {})
    return {"photos": tally.photos, "boards": tally.boards, "found": tally.found,
            "found_rate": round(tally.found_rate, 5), "silent": tally.silent,
            "silent_rate": round(tally.silent_rate, 7),
            "boards_5_silent": tally.many_silent,
            "uncertain_rate": cells.get("uncertain_rate", res.get("uncertain_rate")),
            "exact": tally.exact, "a_cell_off": tally.off,
            "false_boards": tally.false_boards,
            "read_ratio": res["timing_ms_one_thread"]["read_ratio_to_baseline"],
            "calibrated_ratio": res["timing_ms_one_thread"].get(
                "read_with_calibration_ratio_to_baseline")}


def judge_pair(committed: list[PhotoScore], candidate: list[PhotoScore],
               board_changed: bool) -> tuple[list[dict], list[str]]:
    """One set's tests (rows) and why it fails (empty: it passes)."""
    tests = set_tests(committed, candidate, location=board_changed)
    why = [f"{t.figure} {t.base} -> {t.trial} (P = {t.p:.4f} < {SIGNIFICANCE})"
           for t in tests if t.worse]
    return [t.row() for t in tests], why


def pooled_verdict(committed: Tally, candidate: Tally, board_changed: bool) -> list[str]:
    """Why the candidate fails on the pooled totals (empty: it passes there)."""
    why = harms(committed, candidate, reading=True, location=False)
    if board_changed:
        why += [w for w in harms(committed, candidate, reading=False, location=True)
                if w.startswith(("boards found", "boards a cell off"))]
    return why


def photo_cache_key() -> str:
    """What the rendered photos depend on: the renderer's code, data and the prints'
    profiles. A cache folder is reused only under the same key."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    files = sorted([*(root / "synth").rglob("*"), *(root / "board_prints.py",),
                    *(root.parent / "calibration" / "prints").glob("*.json")])
    for f in files:
        if f.is_file() and "__pycache__" not in f.parts:
            h.update(f.relative_to(root.parent).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _run_set(job):
    """Worker: one set read by both pairs of models (rendered once)."""
    import cv2

    from .vision_bench import run_folder_benchmark, run_vision_benchmark

    gs, pairs, scale, outside, cache_root = job
    cv2.setNumThreads(1)
    out = {}
    if gs.folder:
        if outside is None:
            return gs.name, None
        for who, (pips, board) in pairs.items():
            scores: list[PhotoScore] = []
            res = run_folder_benchmark(Path(outside), Path(pips), progress=False,
                                       board_model_path=board, scores=scores)
            out[who] = (res, scores)
        return gs.name, out
    from ..synth.board_art import HELD_OUT_PRINTS

    photos = max(5, round(gs.photos * scale))
    prints = tuple(HELD_OUT_PRINTS) if gs.prints == "held-out" else (gs.prints,)
    seed = gs.seed if gs.seed is not None else (9001 if gs.wide else 9002)
    cache = Path(cache_root) / f"{gs.name.replace(' ', '-')}-{seed}"
    for who, (pips, board) in pairs.items():
        scores = []
        res = run_vision_benchmark(photos, Path(pips), seed=seed, progress=False,
                                   wide=gs.wide, scanned_board=gs.scanned,
                                   tiles=gs.tiles, prints=prints,
                                   board_model_path=board, photo_cache=cache,
                                   scores=scores)
        out[who] = (res, scores)
    return gs.name, out


def run_gate(candidate: Path, candidate_board: Path | None, committed: Path,
             committed_board: Path, outside: Path | None, scale: float = 1.0,
             workers: int = 2, log=print, sets: tuple[GateSet, ...] = GATE_SETS,
             cache: Path | None = None) -> dict:
    """Both pairs of models on every set (``sets``); the table and the verdict.
    ``cache``: a folder where the rendered photos are kept between runs (under a key of
    the renderer's code, ``photo_cache_key``); without it they are rendered into a
    temporary folder and removed."""
    from multiprocessing import get_context

    from .vision_bench import provenance

    made_by = provenance()
    board_changed = candidate_board is not None
    pairs = {"committed": (str(committed), str(committed_board)),
             "candidate": (str(candidate), str(candidate_board or committed_board))}
    rows: dict[str, dict] = {}
    failures: dict[str, list[str]] = {}
    pooled = {"committed": Tally(), "candidate": Tally()}
    if cache is not None:
        cache_root = str(Path(cache) / photo_cache_key())
        Path(cache_root).mkdir(parents=True, exist_ok=True)
    else:
        cache_root = tempfile.mkdtemp(prefix="zatre-gate-")
    try:
        # the slowest sets first, so that two workers finish together
        order = sorted(sets, key=lambda g: -(g.photos * (3 if g.prints == "held-out" else 1)))
        jobs = [(gs, pairs, scale, str(outside) if outside else None, cache_root)
                for gs in order]
        # spawn, not fork: a fork of a process whose OpenCV or onnxruntime threads hold
        # a lock deadlocks in the child (seen under pytest after other tests read photos)
        ctx = get_context("spawn")
        with ctx.Pool(max(1, workers)) as pool:
            for name, out in pool.imap_unordered(_run_set, jobs):
                if out is None:
                    log(f"gate: {name}: skipped (no folder)")
                    continue
                (res_a, sc_a), (res_b, sc_b) = out["committed"], out["candidate"]
                ta, tb = Tally.of(sc_a), Tally.of(sc_b)
                pooled["committed"] += ta
                pooled["candidate"] += tb
                tests, why = judge_pair(sc_a, sc_b, board_changed)
                if why:
                    failures[name] = why
                rows[name] = {"set": name, "committed": _figures(res_a, ta),
                              "candidate": _figures(res_b, tb), "tests": tests,
                              "passes": not why, "why": why}
                log(f"gate: {name}: {'passes' if not why else 'FAILS: ' + '; '.join(why)}")
    finally:
        if cache is None:
            shutil.rmtree(cache_root, ignore_errors=True)
    pooled_why = pooled_verdict(pooled["committed"], pooled["candidate"], board_changed)
    if pooled_why:
        failures["pooled"] = pooled_why
    log(f"gate: pooled: {'passes' if not pooled_why else 'FAILS: ' + '; '.join(pooled_why)}")
    ordered = [rows[g.name] for g in sets if g.name in rows]
    return {**made_by, "candidate": str(candidate),
            "candidate_board": str(candidate_board) if candidate_board else None,
            "committed": str(committed), "committed_board": str(committed_board),
            "scale": scale, "board_changed": board_changed,
            "rule": "pooled over all sets: no more silent cells, no more boards with "
                    f"{MANY_SILENT}+ silent cells, and with a new board network no fewer "
                    "boards found and no more a cell off; on each set no figure "
                    f"significantly worse (one-sided exact tests, P < {SIGNIFICANCE}): "
                    "silent cells as Binomial(a + b, 1/2), per-photo figures by exact "
                    "McNemar on the photos where the two disagree",
            "pooled": {who: t.row() for who, t in pooled.items()},
            "pooled_why": pooled_why,
            "sets": ordered, "passes": not failures and bool(ordered), "failures": failures}


def table(result: dict) -> str:
    """The side-by-side table, the tests with their p-values and the pooled totals, as
    Markdown."""
    head = ("| set | model | found | silent cells (rate) | boards 5+ silent | uncertain | "
            "exact | a cell off | read / baseline | with calibration |")
    lines = [head, "|" + "---|" * 10]
    for row in result["sets"]:
        for who in ("committed", "candidate"):
            f = row[who]
            unc = f["uncertain_rate"]
            cal = f["calibrated_ratio"]
            boards = max(f["boards"], 1)
            lines.append(
                f"| {row['set']} | {who} | {f['found']} of {f['boards']} "
                f"({100 * f['found'] / boards:.1f} %) | {f['silent']} "
                f"({100 * f['silent_rate']:.4f} %) | {f['boards_5_silent']} | "
                f"{'' if unc is None else f'{100 * unc:.2f} %'} | "
                f"{f['exact']} ({100 * f['exact'] / boards:.1f} %) | "
                f"{f['a_cell_off']} | {f['read_ratio']:.2f} | "
                f"{'' if cal is None else f'{cal:.2f}'} |")
    lines += ["", "Each set's tests (one-sided exact; committed -> candidate; for a "
              "per-photo figure, the photos only one of the two failed on):", "",
              "| set | figure | committed | candidate | only committed | only candidate "
              "| P | significantly worse |", "|" + "---|" * 8]
    for row in result["sets"]:
        for t in row["tests"]:
            lines.append(f"| {row['set']} | {t['figure']} | {t['base']} | {t['trial']} | "
                         f"{t.get('only_base_failed', '')} | {t.get('only_trial_failed', '')}"
                         f" | {t['p']:.4f} | {'**yes**' if t['significantly_worse'] else 'no'}"
                         " |")
    pooled = result.get("pooled")
    if pooled:
        keys = list(pooled["committed"])
        lines += ["", "Pooled over all sets:", "", "| model | " + " | ".join(keys) + " |",
                  "|" + "---|" * (len(keys) + 1)]
        for who in ("committed", "candidate"):
            lines.append(f"| {who} | " + " | ".join(str(pooled[who][k]) for k in keys)
                         + " |")
    verdict_line = ("**passes**" if result["passes"] else
                    "**fails**: " + "; ".join(f"{k}: {', '.join(v)}"
                                              for k, v in result["failures"].items()))
    return "\n".join(lines) + f"\n\nRule: {result['rule']}.\n\nGate: {verdict_line}\n"


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


__all__ = ["GATE_SETS", "HELD_OUT_PHOTOS", "install", "judge_pair", "photo_cache_key",
           "pooled_verdict", "run_gate", "table"]
