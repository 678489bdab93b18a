"""Measure a print's appearance for its profile: ``python -m zatre_vision.synth.measure_print
[NAME ...]`` takes each print (default: every profile) as its scan shows it (the real
print), where its profile names one, and as drawn on a few boards, reads the colours
the reader names prints by (``vision.location.print_colours.observed``: x2 cells, bare
dark cells, border) through the flat board's exact grid, and writes their medians, one
look each, into the profile's ``appearance`` (``calibration/prints/NAME.json``). A print drawn
from its fields needs it only where its cells are marbled (the declared colour is the
marble's base, not what a camera sees); run it after adding or changing a profile."""

from __future__ import annotations

import json
import sys

import numpy as np

from ..board_prints import PACKAGE_DIR, load_prints, prints_dir, profile_json
from ..vision.geometry import GridModel
from ..vision.location import print_colours_seen as observed
from .board_art import make_board_texture
from .config import BoardConfig

#: boards drawn per print, and their pixels per cell
BOARDS = 4
PPC = 24.0


def _looks(profile):
    """The print as a camera would see it flat, each look a list of textures: its scan
    (the real print) where it has one, and ``BOARDS`` drawn boards."""
    if profile.scan_image:
        from .scanned_board import SCAN_GRID, scanned_board_texture

        grid = PACKAGE_DIR / profile.scan_grid if profile.scan_grid else SCAN_GRID
        yield [scanned_board_texture(PPC, profile.scan_path(), grid)]
    yield [make_board_texture(np.random.default_rng([4711, k]), BoardConfig(), PPC,
                              profile.name) for k in range(BOARDS)]


def _medians(textures, zones) -> dict[str, list[float]]:
    seen: dict[str, list[np.ndarray]] = {}
    for tex in textures:
        h, w = tex.image.shape[:2]
        # grid units -> texture pixels (pixel i holds u = u0 + i / ppc)
        hom = np.array([[tex.ppc, 0, -tex.u0 * tex.ppc],
                        [0, tex.ppc, -tex.v0 * tex.ppc], [0, 0, 1.0]])
        for part, bgr in (observed(tex.image, GridModel(hom, 0.0, w, h), zones) or {}).items():
            seen.setdefault(part, []).append(bgr)
    return {part: [round(float(x), 1) for x in np.median(v, axis=0)] for part, v in seen.items()}


def appearance(profile) -> list[dict[str, list[float]]]:
    """The print's looks: the median colours of its scan, and of its drawn boards."""
    return [_medians(textures, profile.proof_zones) for textures in _looks(profile)]


def main(argv: list[str]) -> int:
    profiles = load_prints()
    names = argv or list(profiles)
    unknown = [n for n in names if n not in profiles]
    if unknown:
        print(f"unknown print(s): {', '.join(unknown)} (known: {', '.join(profiles)})",
              file=sys.stderr)
        return 2
    folder = prints_dir()
    for name in names:
        path = folder / f"{name}.json"
        raw = json.loads(path.read_text(encoding="utf-8"))
        raw["appearance"] = appearance(profiles[name])
        path.write_text(profile_json(raw), encoding="utf-8")
        print(name, raw["appearance"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
