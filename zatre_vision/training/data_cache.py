"""Rendered training data kept on disk (``zatre train --cache-dir``): a re-run with the
same data settings loads the arrays instead of rendering them again."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

#: training settings that do not change the rendered data
_NOT_DATA = {"epochs": 0, "lr": 0, "batch": 0, "width": 0, "degrade": 0, "cell_kind": 0,
             "workers": 0, "init": "", "device": "", "seconds": 0, "threads": 0}


def cached(cache: Path | None, cfg, render: Callable[[], dict[str, np.ndarray]]
           ) -> dict[str, np.ndarray]:
    """The arrays ``render`` makes, or those an earlier run with the same data settings
    of ``cfg`` (a dataclass) saved in ``cache`` (.npz); saved there when rendered."""
    key = json.dumps(asdict(cfg) | _NOT_DATA)
    if cache is not None and cache.is_file():
        with np.load(cache) as d:
            if str(d["key"]) == key:
                return {k: d[k] for k in d.files if k != "key"}
    arrays = render()
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, key=key, **arrays)
    return arrays
