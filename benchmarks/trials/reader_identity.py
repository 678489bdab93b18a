"""Trial (issue 64, item 2): does a change to the reader leave every read as it was?

Renders 100 photos (25 from each of four worlds: the wide ranges, the training ranges,
the real room, and the held-out prints under the wide ranges; the renderer of
``zatre_vision.synth``, cached under the output folder), reads each with several readers
(the committed model with its card's decision; the decision's defaults,
``ReaderConfig()``; the network from before issue 60, whose card leaves the re-reading
passes more to do; the committed model with the high-resolution re-reading), and writes
every read's outcome to a JSON file. Run it before a change and after, then compare:

    python benchmarks/trials/reader_identity.py read /tmp/reader-identity/before.json
    python benchmarks/trials/reader_identity.py read /tmp/reader-identity/after.json
    python benchmarks/trials/reader_identity.py compare /tmp/reader-identity/before.json \\
        /tmp/reader-identity/after.json

Run from the repository root. ``compare`` prints, per reader, how many of the 100 reads
differ in anything recorded, and exits 1 when any does."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

PHOTOS_PER_WORLD = 25
OLD_NETWORK = Path("tests/vision/data/pips-before-issue60.onnx")


def worlds():
    """(name, seed, synth config) of the four worlds."""
    from zatre_vision.synth.board_art import HELD_OUT_PRINTS
    from zatre_vision.synth.config import SynthConfig

    wide = SynthConfig.wide(0.2)
    held = tuple(HELD_OUT_PRINTS)
    held_out = replace(wide, board=replace(wide.board, prints=held,
                                           textures_per_seed=2 * len(held)))
    return (("wide", 6411, wide), ("training", 6412, SynthConfig()),
            ("real_room", 6413, SynthConfig.real_room()), ("held-out prints", 6414, held_out))


def photos(cache: Path):
    """(world, index, decoded photo) of every photo, rendered once into ``cache``."""
    from zatre_vision.synth.photos import render_photo
    from zatre_vision.synth.scene import Renderer

    for name, seed, cfg in worlds():
        folder = cache / name.replace(" ", "-")
        folder.mkdir(parents=True, exist_ok=True)
        renderer = None
        games: dict = {}
        for i in range(1, PHOTOS_PER_WORLD + 1):
            jpg = folder / f"{i:06d}.jpg"
            if not jpg.is_file():
                renderer = renderer or Renderer(cfg, seed, 1280, 960)
                jpeg, _ = render_photo(renderer, cfg, seed, i, games)
                jpg.write_bytes(jpeg)
            img = cv2.imdecode(np.frombuffer(jpg.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
            yield name, i, img


def readers() -> dict:
    from zatre_vision.vision.reader import BoardReader, ReaderConfig
    from zatre_vision.vision.reading.hires import HiresReader

    hires = BoardReader(threads=1)
    hires.hires = HiresReader()
    return {"card": BoardReader(threads=1),
            "defaults": BoardReader(threads=1, config=ReaderConfig()),
            "old network": BoardReader(OLD_NETWORK, threads=1),
            "hires": hires}


def outcome(res) -> dict:
    """Everything a read reports, as JSON."""
    def listed(a):
        return None if a is None else np.asarray(a).tolist()

    return {"board_found": res.board_found, "held_back": res.doubtful_frame,
            "orientation_known": res.orientation_known, "cells": res.cells,
            "uncertain": res.uncertain, "occluded": res.occluded,
            "recentred": res.recentred, "beside_hand": res.beside_hand,
            "vetoed": res.vetoed, "classes": listed(res.classes),
            "pip_counts": listed(res.pip_counts),
            "probabilities": listed(res.probabilities), "sharpness": res.sharpness,
            "corners": res.corners, "source": res.source, "board_print": res.board_print}


def read(out: Path) -> None:
    cv2.setNumThreads(1)
    cache = out.parent / "photos"
    every = readers()
    results: dict = {name: {} for name in every}
    for world, i, img in photos(cache):
        for name, reader in every.items():
            results[name][f"{world}/{i}"] = outcome(reader.read(img))
        print(f"{world} {i}", file=sys.stderr, flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results), encoding="utf-8")


def compare(before: Path, after: Path) -> int:
    a = json.loads(before.read_text(encoding="utf-8"))
    b = json.loads(after.read_text(encoding="utf-8"))
    differ = 0
    for name in a:
        keys = sorted(set(a[name]) | set(b.get(name, {})))
        changed = [k for k in keys if a[name].get(k) != b.get(name, {}).get(k)]
        found = sum(r["board_found"] for r in a[name].values())
        held = sum(r["held_back"] for r in a[name].values())
        print(f"{name}: {len(changed)} of {len(keys)} reads differ (boards found {found}, "
              f"held back {held})" + (f": {', '.join(changed[:10])}" if changed else ""))
        differ += len(changed)
    return int(differ > 0)


if __name__ == "__main__":
    if sys.argv[1] == "read":
        read(Path(sys.argv[2]))
    else:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
