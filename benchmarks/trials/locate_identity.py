"""Trial (issue 61, item 3): does the board location give the same answers before and
after a restructuring? About 100 rendered photos (the wide bench ranges, the training
ranges, a real room, the held-out prints, the scanned board, and photos with no board),
each read by ``BoardReader().read``; per photo: board found, corners (0.1 px), source,
the truth's corner gap in cells, and how often the costly steps ran (grid fits from
corners, the classical search, the board network). Photos are rendered once and kept
in the cache folder, so a second run reads the same JPEGs.

Run from the repository root:
    python benchmarks/trials/locate_identity.py run OUT.json [CACHE] [all-on]
    python benchmarks/trials/locate_identity.py compare BEFORE.json AFTER.json
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

#: (set name, config maker, seed, photos, render options)
SETS = (
    ("wide", "wide", 9001, 20, {}),
    ("training", "training", 8304, 18, {}),
    ("real_room", "real_room", 5201, 18, {}),
    ("held_out_prints", "wide", 9002, 20, {"held_out_prints": True}),
    ("scanned", "wide", 9003, 18, {"scanned": True}),
    ("no_board", "wide", 8303, 6, {"no_board": True}),
)

#: the costly steps counted per photo: (module attribute name, label)
COUNTED = (("fit_from_corners", "fits"), ("locate", "classical"))


def _config(kind: str, opts: dict):
    from zatre_vision.bench.vision_bench import EDGE_PROBABILITY
    from zatre_vision.synth.board_art import HELD_OUT_PRINTS
    from zatre_vision.synth.config import SynthConfig

    cfg = {"wide": lambda: SynthConfig.wide(EDGE_PROBABILITY),
           "training": SynthConfig, "real_room": SynthConfig.real_room}[kind]()
    if opts.get("held_out_prints"):
        prints = tuple(HELD_OUT_PRINTS)
        cfg = replace(cfg, board=replace(cfg.board, prints=prints,
                                         textures_per_seed=2 * len(prints)))
    if opts.get("no_board"):
        cfg = replace(cfg, scene=replace(cfg.scene, no_board_probability=1.0))
    return cfg


def photos(cache: Path):
    """(set, index, JPEG bytes, truth) of every photo, rendered once into ``cache``."""
    from zatre_vision.bench.vision_bench import SIZE, _cached_photo
    from zatre_vision.synth.photos import render_photo
    from zatre_vision.synth.scanned_board import scanned_board_texture
    from zatre_vision.synth.scene import Renderer

    for name, kind, seed, n, opts in SETS:
        folder = cache / name
        renderer = None
        cfg = _config(kind, opts)
        games: dict = {}
        for i in range(1, n + 1):
            have = (folder / f"{i:06d}.jpg").is_file() and (folder / f"{i:06d}.json").is_file()
            if not have and renderer is None:
                art = scanned_board_texture if opts.get("scanned") else None
                renderer = Renderer(cfg, seed, *SIZE, board_art=art)
            jpeg, truth = _cached_photo(folder, i, lambda i=i, r=renderer, c=cfg, s=seed, g=games: render_photo(r, c, s, i, g))
            yield name, i, jpeg, truth


class Counter:
    """Counts calls of the costly steps, wherever a location module holds them."""

    def __init__(self) -> None:
        import zatre_vision.vision.location.grid_fit as grid_fit
        import zatre_vision.vision.location.locate as locate

        self.counts = {label: 0 for _, label in COUNTED}
        originals = {"fits": grid_fit.fit_from_corners, "classical": locate.locate}
        for label, fn in originals.items():
            wrapped = self._wrap(fn, label)
            for mod in list(sys.modules.values()):
                if getattr(mod, "__name__", "").startswith("zatre_vision.vision"):
                    for attr, value in list(vars(mod).items()):
                        if value is fn:
                            setattr(mod, attr, wrapped)

    def _wrap(self, fn, label):
        def counted(*args, **kwargs):
            self.counts[label] += 1
            return fn(*args, **kwargs)
        return counted

    def take(self) -> dict:
        out = dict(self.counts)
        for k in self.counts:
            self.counts[k] = 0
        return out


def run(out: Path, cache: Path, all_on: bool = False) -> None:
    """``all_on``: every fallback switched on (the ablation's first arm), not the card's."""
    from zatre_vision.vision.judge import corner_error_cells
    from zatre_vision.vision.location import LocateFallbacks
    from zatre_vision.vision.reader import BoardReader

    cv2.setNumThreads(1)
    reader = BoardReader(threads=1)
    if all_on:
        reader.locator.fallbacks = LocateFallbacks()
    counter = Counter()
    rows = []
    for name, i, jpeg, truth in photos(cache):
        img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        counter.take()
        t0 = time.perf_counter()
        res = reader.read(img)
        ms = (time.perf_counter() - t0) * 1000
        corners = (np.round(np.asarray(res.corners, float), 1).tolist()
                   if res.board_found else None)
        gap = None
        if res.board_found and truth.get("corners") is not None:
            gap = round(corner_error_cells(np.asarray(res.corners, float),
                                           np.asarray(truth["corners"], float),
                                           res.model.cell_size_px()), 3)
        row = {"photo": f"{name}/{i:03d}", "board": bool(truth["board_found"]),
               "board_found": bool(res.board_found), "corners": corners,
               "source": res.source, "gap_cells": gap, "ms": round(ms, 1),
               **counter.take()}
        rows.append(row)
        print(json.dumps(row), flush=True)
    out.write_text(json.dumps(rows, indent=1), encoding="utf-8")


def _same(a: dict, b: dict) -> bool:
    return all(a[k] == b[k] for k in ("board_found", "corners", "source"))


def _verdict(a: dict, b: dict) -> str:
    """Better or worse against the truth: found or not, then the corner gap."""
    if not a["board"]:
        return ("better" if a["board_found"] and not b["board_found"] else
                "worse" if b["board_found"] and not a["board_found"] else "same")
    if a["board_found"] != b["board_found"]:
        good_b = b["board_found"] and (b["gap_cells"] or 0) < 0.5
        return "better" if good_b else "worse"
    ga, gb = a["gap_cells"] or 0.0, b["gap_cells"] or 0.0
    return "better" if gb < ga - 0.05 else "worse" if gb > ga + 0.05 else "same"


def compare(before: Path, after: Path) -> None:
    a_rows = {r["photo"]: r for r in json.loads(before.read_text(encoding="utf-8"))}
    b_rows = {r["photo"]: r for r in json.loads(after.read_text(encoding="utf-8"))}
    differ = [p for p in a_rows if p in b_rows and not _same(a_rows[p], b_rows[p])]
    print(f"{len(differ)} of {len(a_rows)} photos differ")
    for p in differ:
        a, b = a_rows[p], b_rows[p]
        print(f"  {p}: found {a['board_found']} -> {b['board_found']}, source "
              f"{a['source']} -> {b['source']}, gap {a['gap_cells']} -> {b['gap_cells']} "
              f"cells: {_verdict(a, b)}")
    for key in ("fits", "classical", "ms"):
        sa = sum(r[key] for r in a_rows.values())
        sb = sum(r[key] for r in b_rows.values() if r["photo"] in a_rows)
        print(f"{key}: {sa:.0f} -> {sb:.0f}")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(Path(sys.argv[2]), Path(sys.argv[3] if len(sys.argv) > 3
                                    else "/tmp/locate_identity_photos"),
            all_on=sys.argv[4:5] == ["all-on"])
    else:
        compare(Path(sys.argv[2]), Path(sys.argv[3]))
