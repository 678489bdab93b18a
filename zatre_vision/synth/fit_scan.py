"""Make the scanned board's data files from a scan of a real board.

    python -m zatre_vision.synth.fit_scan SCAN.jpg X0 Y0 X1 Y1 X2 Y2 X3 Y3

SCAN.jpg: a flat, square-on scan; X0 Y0 .. X3 Y3: its four outer grid corners (TL, TR,
BR, BL: where the outermost grid lines would meet; the board's corners are cut) in the
scan's pixels, to within a quarter cell. Writes ``zatre_vision/synth/data/board-scan.jpg``
(the scan at 0.6 of its size) and ``board-scan.json`` (its grid, ``scanned_board``).
The files in the repository were made from the reference scan with the corners
118 103 1999 146 2012 2029 121 2062 (the reader's corners then, up to 0.3 cell off),
then once more from the corners that run gave (107 117 2040 118 2047 2044 116 2059).
"""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np

from .scanned_board import SCAN_GRID, SCAN_IMAGE, fit_scan_grid, scan_corners

SCALE = 0.6


def main(argv: list[str]) -> int:
    if len(argv) != 9:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    img = cv2.imread(argv[0], cv2.IMREAD_COLOR)
    if img is None:
        print(f"error: cannot read {argv[0]}", file=sys.stderr)
        return 2
    corners = np.array([float(a) for a in argv[1:]]).reshape(4, 2) * SCALE
    small = cv2.resize(img, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    grid, report = fit_scan_grid(grey, corners)
    found = scan_corners(grid, corners)
    SCAN_IMAGE.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(SCAN_IMAGE), small, [cv2.IMWRITE_JPEG_QUALITY, 92])
    SCAN_GRID.write_text(json.dumps({
        "source": "reference scan of a real board (zatre-board-scan.jpg), reduced to "
                  f"{SCALE} of its size",
        "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in found],
        "fit": report, "grid": grid.to_dict()}, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({"corners": found.round(2).tolist(), **report}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
