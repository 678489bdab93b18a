"""``zatre bench startup``: how long ``zatre --help`` and ``zatre score`` take to start.

Each is run ``runs`` times as a new process (median and worst wall time), beside the
baseline measured in the same run: the same command with the modules the CLI imported
up front before its commands were made lazy (every command's module: Flask, OpenCV
and onnxruntime with them) imported first, as ``zatre`` did until issue 45.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: what `import zatre_vision.cli` loaded before the lazy commands
EAGER_MODULES = ("zatre_vision.apps.calibrate_cli", "zatre_vision.server.cli",
                 "zatre_vision.apps.synth_cli", "zatre_vision.apps.tracking_cli",
                 "zatre_vision.apps.vision_cli", "zatre_vision.server",
                 "zatre_vision.camera.base", "zatre_vision.vision.reader")
HEAVY = ("cv2", "onnxruntime", "flask")
_RUN = (
    "import importlib, sys\n"
    "for m in sys.argv[1].split(',') if sys.argv[1] else []:\n"
    "    importlib.import_module(m)\n"
    "from zatre_vision.cli import main\n"
    "try:\n"
    "    main(sys.argv[2:], prog_name='zatre')\n"
    "except SystemExit:\n"
    "    pass\n"
    f"print('LOADED', ','.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n"
)


def _time(args: list[str], preload: tuple[str, ...]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _RUN, ",".join(preload), *args],
                          capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - t0
    loaded = [ln for ln in proc.stderr.splitlines() if ln.startswith("LOADED")]
    return wall, (loaded[-1][len("LOADED "):] if loaded else "?")


def run_startup_benchmark(runs: int = 10) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "game.json"
        record.write_text(json.dumps({"players": ["Ann", "Ben"], "turns": [
            {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}}]}))
        commands = {"zatre --help": ["--help"], "zatre score": ["score", str(record)]}
        out: dict = {}
        for label, args in commands.items():
            rows = {}
            for variant, preload in (("lazy", ()), ("eager_baseline", EAGER_MODULES)):
                _time(args, preload)  # warm the file cache
                times, loaded = [], ""
                for _ in range(runs):
                    wall, loaded = _time(args, preload)
                    times.append(wall)
                rows[variant] = {"median_s": round(statistics.median(times), 3),
                                 "max_s": round(max(times), 3), "runs": runs,
                                 "heavy_modules_loaded": loaded.split(",") if loaded else []}
            rows["ratio_lazy_to_eager"] = round(rows["lazy"]["median_s"]
                                                / rows["eager_baseline"]["median_s"], 3)
            out[label] = rows
    return {"benchmark": "startup", "results": out,
            "summary": {k: {"lazy_median_s": v["lazy"]["median_s"],
                            "eager_median_s": v["eager_baseline"]["median_s"],
                            "ratio": v["ratio_lazy_to_eager"]} for k, v in out.items()}}
