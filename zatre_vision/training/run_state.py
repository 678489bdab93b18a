"""The state file of a resumable run (``make models``): which steps finished, with what
result and in how long, for which recipe, over how many runs and how much wall time.

A rerun skips the finished steps. A state file written for another recipe, or one that
cannot be read, starts the steps afresh (said in one line); the work below the steps
(rendered chunks, training checkpoints) is keyed by its own settings and still reused.
The file is replaced atomically, so a run killed while saving keeps the previous one.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _plain(value) -> object:
    """``value`` as JSON gives it back (tuples as lists), for comparisons."""
    return json.loads(json.dumps(value))


class RunState:
    def __init__(self, path: Path, data: dict):
        self.path = path
        self.data = data

    @classmethod
    def open(cls, path: Path, recipe: dict, command: str, out=None) -> RunState:
        out = out if out is not None else sys.stderr
        fresh = {"recipe": _plain(recipe), "started": now_iso(), "wall_seconds": 0.0,
                 "runs": [], "steps": {}}
        data = fresh
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(data, dict) or not isinstance(data.get("steps"), dict):
                    raise ValueError("not a state file")
            except (OSError, ValueError) as exc:
                print(f"{path}: unreadable ({exc}); every step runs again (rendered chunks "
                      "and checkpoints are still reused)", file=out)
                data = fresh
            else:
                if data.get("recipe") != fresh["recipe"]:
                    print(f"{path}: written for another recipe; every step runs again "
                          "(rendered chunks and checkpoints of the same settings are still "
                          "reused)", file=out)
                    data = fresh
        data["runs"].append({"started": now_iso(), "command": command})
        return cls(path, data)

    @property
    def wall_seconds(self) -> float:
        """Wall time of the earlier runs on this state (this one's is added on save)."""
        return float(self.data.get("wall_seconds", 0.0))

    def done(self, step: str) -> bool:
        return step in self.data["steps"]

    def info(self, step: str) -> dict:
        return self.data["steps"].get(step, {})

    def finish(self, step: str, seconds: float, info: dict, run_seconds: float) -> None:
        self.data["steps"][step] = {"finished": now_iso(), "seconds": round(seconds, 1),
                                    **info}
        self.save(run_seconds)

    def save(self, run_seconds: float) -> None:
        """Write the state; ``run_seconds``: this run's wall time so far."""
        run = self.data["runs"][-1]
        before = self.data.get("wall_seconds", 0.0) - run.get("seconds", 0.0)
        run["seconds"] = round(run_seconds, 1)
        self.data["wall_seconds"] = round(before + run_seconds, 1)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.data, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)
