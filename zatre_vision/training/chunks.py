"""Training data rendered in fixed chunks of photos, each kept on disk as it finishes.

A job is ``(spec, start, stop)``: the photos ``start..stop-1`` of the run ``spec``.
Every photo is drawn from its own index and the spec's seed (``render_photo``: the
photo's generator is ``[seed, ..., index]``), so a chunk is the same arrays whoever
renders it, in whatever order, in one go or after an interruption. With a ``folder``,
each finished chunk is saved there (``START-STOP.npz``, written to a temporary name and
renamed, so a killed run leaves no half file) and a later run loads it instead of
rendering it again. The folder is named after the spec's data settings (its photo count
aside: a run with more photos reuses the chunks of a smaller one).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from pathlib import Path

import numpy as np

Job = tuple[object, int, int]
Parts = tuple[np.ndarray, ...]


def spec_folder(root: Path, name: str, spec) -> Path:
    """``root/NAME-HASH``: the chunk folder of ``spec`` (a dataclass with a ``photos``
    field, which does not change any chunk's content)."""
    key = json.dumps({k: v for k, v in asdict(spec).items() if k != "photos"},
                     sort_keys=True)
    digest = hashlib.sha1(key.encode()).hexdigest()[:12]
    return root / f"{name}-{digest}"


def chunk_jobs(spec, first: int, last: int, chunk: int) -> list[Job]:
    """Jobs of ``chunk`` photos covering ``first..last-1`` (the last one shorter)."""
    return [(spec, s, min(s + chunk, last)) for s in range(first, last, chunk)]


def _path(folder: Path, job: Job) -> Path:
    return folder / f"{job[1]:06d}-{job[2]:06d}.npz"


def _load(path: Path) -> Parts | None:
    try:
        with np.load(path) as d:
            return tuple(d[f"arr_{i}"] for i in range(len(d.files)))
    except (OSError, ValueError, KeyError, EOFError):
        return None                                  # unreadable: rendered again


def _save(path: Path, parts: Parts) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, *parts)
    os.replace(tmp, path)


def _mark(folder: Path, spec) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    meta = folder / "spec.json"
    if not meta.exists():
        meta.write_text(json.dumps(asdict(spec), indent=1) + "\n",
                        encoding="utf-8")


def render_parts(work: Callable[[Job], Parts], jobs: Sequence[Job], workers: int,
                 folder: Path | None = None, progress: Callable[[int], None] | None = None,
                 loaded: Callable[[int], None] | None = None) -> list[Parts]:
    """``work(job)`` for every job, in job order; over ``workers`` processes when more
    than one. With ``folder``, chunks saved there by an earlier run are loaded (and
    reported through ``loaded(photos)``) and new ones saved as each finishes
    (``progress(photos)``)."""
    results: dict[int, Parts] = {}
    todo = list(range(len(jobs)))
    if folder is not None:
        if jobs:
            _mark(folder, jobs[0][0])
        todo = []
        for k, job in enumerate(jobs):
            path = _path(folder, job)
            part = _load(path) if path.is_file() else None
            if part is None:
                todo.append(k)
            else:
                results[k] = part
                if loaded:
                    loaded(job[2] - job[1])

    def finished(k: int, part: Parts) -> None:
        if folder is not None:
            _save(_path(folder, jobs[k]), part)
        results[k] = part
        if progress:
            progress(jobs[k][2] - jobs[k][1])

    if workers <= 1 or len(todo) <= 1:
        for k in todo:
            finished(k, work(jobs[k]))
    else:
        ex = ProcessPoolExecutor(workers, initializer=_worker_signals)
        try:
            futures = {ex.submit(work, jobs[k]): k for k in todo}
            for f in as_completed(futures):
                finished(futures[f], f.result())
        except BaseException:
            _abandon(ex)            # interrupted: the chunks saved so far are kept
            raise
        ex.shutdown()
    return [results[k] for k in range(len(jobs))]


def _worker_signals() -> None:
    """A rendering process leaves Ctrl-C to the run (which stops it) and dies quietly
    when terminated, whatever handlers it inherited."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _abandon(ex: ProcessPoolExecutor) -> None:
    """Stop at once: queued chunks cancelled, the ones rendering killed (not waited for,
    which ``shutdown`` would do for every chunk still queued)."""
    processes = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        p.terminate()


def concatenate(parts: Sequence[Parts]) -> Parts:
    """The chunks' arrays joined, array by array."""
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(len(parts[0])))
