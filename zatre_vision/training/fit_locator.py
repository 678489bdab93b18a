"""Which of the board search's fallbacks pay: an ablation on the fitting split, written
into the board model's card.

    python -m zatre_vision.training.fit_locator [--board-model M] [--photos 120]
                                                [--cache DIR] [--dry-run]

Each fitting photo (``fit_reader.FIT_SETS``: wide ranges, a real room and training
ranges, other makers' tiles on half, the training prints; never a bench seed nor a
held-out style or print) is located by the product's own reader (``BoardReader.locate``:
propose, refine, prove, pick) with every fallback on, and with each one off
(``location.LocateFallbacks``). Per arm: boards found on the grid (every corner within
half a cell), boards fitted half a cell or more off, boards claimed on photos without
one, and the median time to locate.

Each photo is scored by the one judge (``vision.judge``). A fallback **pays** when
switching it off does location harm by the judge (``harms``: fewer boards found or on
the grid, more a cell off, more false boards). A last resort
(``fallbacks.LAST_RESORT``: a proposer asked only where nothing before it proved a
board) stays on
whatever the ablation says: the fitting split holds no print the board network has not
seen, so it cannot show what such a fallback is worth. The refine steps that do not pay are
switched off one at a time, the one whose absence saves the most time first, each step
checked again against all on (their cost on boards already found); the switches that
stand are the card's ``locate_fallbacks``, with the table beside it
(``models/board.locate-ablation.md``, ``table_path``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..vision.judge import A_CELL_OFF, PhotoScore, Tally, harms, score_photo
from .fit_reader import FIT_SETS


def table_path(board: Path) -> Path:
    """The ablation's table, beside the board model's card."""
    return board.with_name(f"{board.stem}.locate-ablation.md")


@dataclass(frozen=True)
class ArmFigures:
    """One arm's photos summed by the judge (``vision.judge``), with the time to locate."""

    tally: Tally
    median_ms: float
    mean_ms: float

    @classmethod
    def of(cls, scores: list[PhotoScore]) -> ArmFigures:
        ms = [s.read_ms for s in scores]
        return cls(Tally.of(scores), round(statistics.median(ms), 1) if ms else 0.0,
                   round(statistics.fmean(ms), 1) if ms else 0.0)

    def no_worse_than(self, other: ArmFigures) -> bool:
        """No location harm by the judge: as many boards found and on the grid, no more
        off it, no more false boards."""
        return not harms(other.tally, self.tally, reading=False, location=True)

    def row(self) -> dict:
        t = self.tally
        return {"boards": t.boards, "found": t.found, "on the grid": t.on_grid,
                "a cell off": t.off, "false boards": t.false_boards,
                "median ms": self.median_ms, "mean ms": self.mean_ms}


def photos(cache: Path | None, count: int):
    """(set name, index, JPEG bytes, truth) for ``count`` photos of each fitting set,
    rendered once and kept in ``cache`` when given."""
    from ..bench.vision_bench import _cached_photo
    from ..synth.photos import render_photo
    from ..synth.scene import Renderer

    for fit_set in FIT_SETS:
        cfg = fit_set.synth_config()
        renderer = Renderer(cfg, fit_set.seed, 1280, 960)
        games: dict = {}
        folder = cache / str(fit_set.seed) if cache is not None else None
        for i in range(1, count + 1):
            jpeg, truth = _cached_photo(
                folder, i, lambda i=i, r=renderer, c=cfg, s=fit_set.seed, g=games:
                render_photo(r, c, s, i, g))
            yield fit_set.name, i, jpeg, truth


def outcome(reader, image: np.ndarray, truth: dict) -> PhotoScore:
    """One photo located (``BoardReader.locate``), scored by the judge on location."""
    t0 = time.perf_counter()
    located = reader.locate(image)
    ms = (time.perf_counter() - t0) * 1000
    found = located.board
    if not truth["board_found"] or not found.found:
        return score_photo(board=bool(truth["board_found"]), found=found.found, read_ms=ms)
    f = located.scale
    return score_photo(board=True, found=True, truth_corners=truth["corners"],
                       corners=np.asarray(found.model.corners(), np.float64) / f,
                       cell_px=found.model.cell_size_px() / f, read_ms=ms)


def run_arms(reader, arms: dict, cache: Path | None, count: int, log=print
             ) -> dict[str, ArmFigures]:
    """Every photo located under every arm (name -> ``LocateFallbacks``)."""
    import cv2

    results: dict[str, list[PhotoScore]] = {name: [] for name in arms}
    total, t0 = count * len(FIT_SETS), time.perf_counter()
    for k, (_, _, jpeg, truth) in enumerate(photos(cache, count), 1):
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            continue
        for name, switches in arms.items():
            reader.locator.fallbacks = switches
            results[name].append(outcome(reader, image, truth))
        if k % 20 == 0 or k == total:
            spent = time.perf_counter() - t0
            log(f"fit_locator: {k}/{total} photos, {len(arms)} arms "
                f"({spent:.0f} s, about {spent / k * (total - k):.0f} s left)")
    return {name: ArmFigures.of(rows) for name, rows in results.items()}


def ablate(reader, cache: Path | None, count: int, log=print):
    """The fitted switches and the ablation's rows (see the module's doc)."""
    from ..vision.location import LAST_RESORT, LocateFallbacks

    everything = LocateFallbacks()
    names = LocateFallbacks.names()
    first = run_arms(reader, {"all on": everything,
                              **{f"without {n}": everything.without(n) for n in names}},
                     cache, count, log)
    base = first["all on"]
    rows = [{"arm": "all on", **base.row(), "pays": None}]
    idle = []
    for n in names:
        fig = first[f"without {n}"]
        pays = not fig.no_worse_than(base)
        rows.append({"arm": f"without {n}", **fig.row(), "pays": pays,
                     **({"kept": "last resort"} if n in LAST_RESORT else {})})
        if not pays and n not in LAST_RESORT:
            idle.append((base.mean_ms - fig.mean_ms, n))
    # switch off the idle ones one at a time, the one whose absence saves the most time
    # first, each step checked again against all on (two fallbacks may stand in for
    # each other: off alone each costs nothing, off together they may)
    switches = everything
    for _, n in sorted(idle, reverse=True):
        trial = switches.without(n)
        off = [m for m in names if m not in trial]
        fig = run_arms(reader, {"trial": trial}, cache, count, log)["trial"]
        kept = not fig.no_worse_than(base)
        rows.append({"arm": "without " + ", ".join(off), **fig.row(), "pays": kept})
        log(f"fit_locator: without {', '.join(off)}: {fig.row()} -> "
            f"{'put back' if kept else 'off'}")
        if not kept:
            switches = trial
    return switches, rows


def table(entry: dict) -> str:
    """The ablation as the markdown table kept beside the card."""
    heads = ["arm", "boards", "found", "on the grid", "a cell off", "false boards",
             "median ms", "mean ms", "pays"]
    lines = ["# Board search fallbacks: ablation on the fitting split", "",
             f"Made by `{entry['fitted_by']}` at commit {entry['made_by']['commit']} on "
             f"{entry['made_by']['date']} ({entry['made_by']['machine'].get('cpus', '?')} CPUs); "
             f"{entry['photos_per_set']} photos of each fitting set "
             f"({', '.join(str(s['seed']) for s in entry['sets'])}).", "",
             "A fallback pays when switching it off finds fewer boards (found, or on the "
             "grid), more a cell off, or more false boards (vision.judge.harms). A last "
             "resort (it runs only where nothing else found a board) stays on whatever "
             "the ablation says. Switches fitted: "
             + ", ".join(f"{k} {'on' if v else 'off'}" for k, v in entry["switches"].items())
             + ".", "",
             "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for row in entry["ablation"]:
        pays = {None: "", True: "yes", False: "no"}[row["pays"]]
        if row.get("kept"):
            pays += f" (kept: {row['kept']})"
        lines.append("| " + " | ".join([row["arm"], *(str(row[h]) for h in heads[1:-1]),
                                        pays]) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(prog="python -m zatre_vision.training.fit_locator",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--board-model", default=None,
                    help="the board network (default models/board.onnx); its card is "
                         "written")
    ap.add_argument("--model", default=None,
                    help="the pip model that reads the candidates (default models/pips.onnx)")
    ap.add_argument("--photos", type=int, default=120, help="photos per fitting set")
    ap.add_argument("--cache", default=None, help="keep the rendered photos here")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the fitted entry, leave the card as it is")
    args = ap.parse_args(argv)
    from ..bench.results import run_info
    from ..vision.location import DEFAULT_BOARD_MODEL, FALLBACKS_ABOUT, LAST_RESORT
    from ..vision.reader import BoardReader
    from ..vision.reading.classify import DEFAULT_MODEL, ModelError
    from .fit_inputs import card_of

    board = Path(args.board_model) if args.board_model else DEFAULT_BOARD_MODEL
    card_path = card_of("fit_locator", board, args.photos)
    if card_path is None:
        return 2
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
        reader = BoardReader(Path(args.model) if args.model else DEFAULT_MODEL, threads=1,
                             board_model_path=board)
    except (OSError, ValueError, ModelError) as exc:
        print(f"fit_locator: {exc}", file=sys.stderr)
        return 2
    import cv2

    cv2.setNumThreads(1)
    command = "python -m zatre_vision.training.fit_locator " + " ".join(argv)
    made_by = run_info(command.strip())
    t0 = time.perf_counter()
    switches, rows = ablate(reader, Path(args.cache) if args.cache else None, args.photos,
                            log=lambda s: print(s, file=sys.stderr, flush=True))
    entry = {"switches": switches.as_dict(), "about": FALLBACKS_ABOUT,
             "fitted_by": command.strip(),
             "sets": [{"name": s.name, "seed": s.seed, "preset": s.preset,
                       "makers": s.makers} for s in FIT_SETS],
             "photos_per_set": args.photos,
             "rule": "a fallback pays when switching it off finds fewer boards, fewer on "
                     f"the grid (every corner within {A_CELL_OFF} cell), more off it, or "
                     "more false boards (vision.judge.harms); a last resort "
                     f"({', '.join(LAST_RESORT)}: it runs only where nothing else found a "
                     "board) stays on whatever the ablation says; refiners that do not "
                     "pay are switched off one at a time, "
                     "the one whose absence saves the most mean time first, each step "
                     "checked against all on",
             "ablation": rows, "made_by": made_by,
             "wall_seconds": round(time.perf_counter() - t0, 1)}
    if args.dry_run:
        print(json.dumps(entry, indent=1))
        return 0
    card["locate_fallbacks"] = entry
    card_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    table_path(board).write_text(table(entry), encoding="utf-8")
    print(f"fit_locator: {card_path} and {table_path(board)} written; "
          f"switches {switches.as_dict()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
