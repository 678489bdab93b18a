"""Trial (issue 60, item 5): `zatre bench adapt`'s styles with the adaptation forced on
(`calibrate.tiles.better` patched to say yes), against the base network, to see whether
the adaptation that the held-back check refuses would have helped.

Run from the repository root: python benchmarks/trials/adapt_forced.py forced STYLES"""
import json
import sys

import zatre_vision.calibrate.tiles as tiles
from zatre_vision.bench import adapt_bench
from zatre_vision.vision.reader import BoardReader

if sys.argv[1] == "forced":
    tiles.better = lambda held: True
reader = BoardReader("models/pips.onnx", threads=1)
out = {}
for style in sys.argv[2].split(","):
    r = adapt_bench.run_style(reader, style, 2, 24, (1280, 960), cache="/root/adapt-cache")
    out[style] = {k: r[k] for k in ("adapted", "before", "after", "photos_worse_after")}
    print(style, json.dumps(out[style]), flush=True)
