"""Every benchmark's result file: where it goes and what it records besides its figures.

Each file under ``benchmarks/results/`` starts with ``commit`` (the code measured,
``+changes`` when the work tree differed from it), ``date`` (UTC), ``machine`` and
``command`` (the ``zatre bench ...`` line that regenerates it; ``make bench`` runs them
all) and ``measures`` (the repository paths whose change makes its figures stale:
``bench/measures.py``). :func:`write_bench_result` adds these to whatever a benchmark
returns; ``tests/bench/test_result_freshness.py`` holds the committed files to them."""

from __future__ import annotations

import json
import os
import platform
import shlex
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import click

from .measures import measures_of

#: the fields every result file carries, besides its figures
PROVENANCE = ("commit", "date", "machine", "command", "measures")


#: result files written during ``make bench`` do not make the later ones "+changes"
RESULTS_DIR = "benchmarks/results"


def current_commit(repo: Path | None = None) -> str:
    """The checked-out commit (short) of ``repo`` (default: the checkout this package
    runs from), with ``+changes`` when tracked files outside ``benchmarks/results/``
    differ from it; ``unknown`` outside a git checkout."""
    cwd = repo or Path(__file__).resolve().parents[2]

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, timeout=10,
                              cwd=cwd).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        if not commit:
            return "unknown"
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                    f":(exclude){RESULTS_DIR}")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+changes" if dirty else "")


def machine() -> dict:
    """The machine and the libraries the figures depend on."""
    out = {"python": platform.python_version(), "processor": platform.machine(),
           "cpus": os.cpu_count(), "platform": platform.platform()}
    for name in ("numpy", "cv2", "onnxruntime"):
        module = sys.modules.get(name)
        if module is not None:
            out["opencv" if name == "cv2" else name] = getattr(module, "__version__", "?")
    return out


def command_line(argv: list[str] | None = None) -> str:
    """The command that is running, as ``zatre bench ...``."""
    args = sys.argv[1:] if argv is None else argv
    return "zatre " + " ".join(shlex.quote(a) for a in args)


def run_info(command: str) -> dict:
    """The provenance fields of a result file made by ``command``."""
    return {"commit": current_commit(),
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(), "command": command, "measures": measures_of(command)}


def with_provenance(result: dict, command: str | None = None) -> dict:
    """``result`` with the provenance fields first; a field the benchmark set itself
    (say its own ``machine`` notes) is kept, merged over the measured one."""
    info = run_info(result.get("command") or command or command_line())
    out = {**info, **result}
    if isinstance(result.get("machine"), dict):
        out["machine"] = {**info["machine"], **result["machine"]}
    for key in ("commit", "date", "command", "measures"):
        if not result.get(key):
            out[key] = info[key]
    return out


def write_result_file(out: str | Path, result: dict, command: str | None = None) -> dict:
    """Write a benchmark's result file with its provenance, quietly (a long run writes
    its figures so far after each step this way). Returns what was written."""
    result = with_provenance(result, command)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def write_bench_result(out: str | Path, result: dict, shown: dict | None = None,
                       command: str | None = None) -> dict:
    """Write a benchmark's result file (with its provenance) and print its summary, or
    ``shown``. Returns what was written."""
    result = write_result_file(out, result, command)
    summary = shown if shown is not None else result.get("summary", result)
    click.echo(json.dumps(summary, indent=2))
    click.echo(f"results written to {out}", err=True)
    return result


__all__ = ["PROVENANCE", "command_line", "current_commit", "machine", "run_info",
           "with_provenance", "write_bench_result", "write_result_file"]
