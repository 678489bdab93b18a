"""Contact sheet of synthetic photos for judging realism at a glance.

    python -m zatre_vision.synth.gallery docs/synthetic-gallery.png [--seed 3]

Left: 24 photos from ``zatre synth photos`` (every fourth with a hand forced in, one
without a board) as thumbnails; right: a crop of one close-up render at full resolution.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from ..simulate import Simulation
from .config import SynthConfig
from .photos import render_photo
from .scene import Renderer
from .sensor import encode_jpeg
from .tiles import sample_pose

THUMB = (256, 192)


def _label(img: np.ndarray, text: str) -> None:
    cv2.putText(img, text, (6, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, (6, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1,
                cv2.LINE_AA)


def make_gallery(seed: int = 3) -> np.ndarray:
    cfg = SynthConfig()
    hands = replace(cfg, occluders=replace(cfg.occluders, photo_hand_probability=1.0))
    noboard = replace(cfg, scene=replace(cfg.scene, no_board_probability=1.0))
    renderer = Renderer(cfg, seed, 1280, 960)
    thumbs = []
    games: dict = {}
    for i in range(1, 25):
        use = hands if i % 4 == 0 else (noboard if i == 23 else cfg)
        renderer.cfg = use
        jpeg, truth = render_photo(renderer, use, seed, i, games)
        img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        thumb = cv2.resize(img, THUMB, interpolation=cv2.INTER_AREA)
        _label(thumb, f"#{i} {truth['table']} {truth['camera']['lens'][14:] or 'std'}"
                      f" {len(truth['cells'])} tiles")
        thumbs.append(thumb)
    rows = [np.hstack(thumbs[r * 6:(r + 1) * 6]) for r in range(4)]
    sheet = np.vstack(rows)

    # close-up: camera nearly straight down, board filling the frame, mid-game
    close = replace(cfg, camera=replace(cfg.camera, fill=(0.94, 0.95), tilt_deg=(2.0, 8.0),
                                        roll_deg=(-4.0, 4.0), centre_offset=(0.0, 0.0),
                                        lenses=cfg.camera.lenses[:1], lens_weights=(1.0,)),
                    sensor=replace(cfg.sensor, defocus_probability=0.0, motion_probability=0.0))
    rend = Renderer(close, seed + 1, 1280, 960)
    rng = np.random.default_rng([seed, 99])
    board = Simulation(["Ann", "Ben"], seed, players=["greedy", "greedy"]).run(22).board.to_dict()
    setup = rend.sample_setup(rng, quality=92)
    tiles = {n: sample_pose(rng, close.tiles, v) for n, v in board.items()}
    img, _ = rend.render(setup, tiles, [], rng)
    img = cv2.imdecode(np.frombuffer(encode_jpeg(img, 92), np.uint8), cv2.IMREAD_COLOR)
    hgt = sheet.shape[0]
    crop = img[0:hgt, 160:160 + hgt] if img.shape[0] >= hgt else cv2.resize(img, (hgt, hgt))
    crop = crop.copy()
    _label(crop, "close-up crop, 1:1 pixels (synthetic)")
    gap = np.full((hgt, 8, 3), 255, np.uint8)
    return np.hstack([sheet, gap, crop])


def main() -> None:
    ap = argparse.ArgumentParser(description="Write the synthetic photo contact sheet.")
    ap.add_argument("out", nargs="?", default="docs/synthetic-gallery.png")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(args.out, make_gallery(args.seed), [cv2.IMWRITE_PNG_COMPRESSION, 9])


if __name__ == "__main__":
    main()
