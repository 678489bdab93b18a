"""Training state after each epoch, so an interrupted training resumes where it stopped.

A checkpoint holds everything the next epoch depends on: the network's weights, the
optimiser's and the learning-rate schedule's state, the training generator's state and
torch's global one, the epochs planned and the history so far, and the training config
it belongs to. Resumed from it, a run on the CPU ends with the same weights as one that
never stopped (``tests/vision/test_train_resume.py``). It is written to a temporary name
and renamed, so a run killed while saving leaves the previous epoch's checkpoint.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import torch

#: config fields that may differ between the run that saved a checkpoint and the one
#: resuming it (the processes rendering photos, torch's threads)
RESUMABLE_CHANGES = ("workers", "threads")


class Interrupted(Exception):  # noqa: N818 - it is not an error: the run stopped as asked
    """Training stopped after the epoch it was asked to stop at (its checkpoint saved)."""


def comparable(config: dict) -> dict:
    return {k: v for k, v in config.items() if k not in RESUMABLE_CHANGES}


def save(path: Path, state: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)


def load(path: Path | None, config: dict, progress: bool = True) -> dict | None:
    """The checkpoint at ``path`` when it belongs to ``config``; None when there is none,
    or it is unreadable or of another config (said on stderr: the run starts afresh)."""
    if path is None or not path.is_file():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as exc:  # noqa: BLE001 - any unreadable file: start afresh, say so
        print(f"{path}: unreadable checkpoint ({exc}); training from the start",
              file=sys.stderr)
        return None
    if not isinstance(state, dict) or comparable(state.get("config", {})) != comparable(config):
        if progress:
            print(f"{path}: a checkpoint of other settings; training from the start",
                  file=sys.stderr)
        return None
    return state


def rng_state() -> dict:
    """Torch's global generators (the CPU one, and CUDA's where it is in use)."""
    out = {"cpu": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        out["cuda"] = torch.cuda.get_rng_state_all()
    return out


def set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["cpu"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def restore(state: dict, model, optimiser, scheduler, generator) -> list[dict]:
    """Put a loaded checkpoint back into a training run (weights, optimiser, schedule,
    the run's generator and torch's global ones); returns its history."""
    model.load_state_dict(state["model"])
    optimiser.load_state_dict(state["optimiser"])
    scheduler.load_state_dict(state["scheduler"])
    generator.set_state(state["generator"])
    set_rng_state(state["torch_rng"])
    return state["history"]
