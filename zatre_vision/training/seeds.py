"""The seeds of the training data, in one place without torch: the trainers render
from them, and ``zatre bench vision --seed`` refuses them (a benchmark on photos the
models learned from says nothing about unseen ones)."""

from __future__ import annotations

#: pip classifier: training and validation photos (the benchmark uses 9001)
TRAIN_SEED = 1000
VAL_SEED = 1001
#: board network: training and validation photos
BOARD_SEED = 2000
BOARD_VAL_SEED = 2001
TRAINING_SEEDS = frozenset({TRAIN_SEED, VAL_SEED, BOARD_SEED, BOARD_VAL_SEED})
#: the reader's decision is fitted on these (``training/fit_reader.py``, ``FIT_SETS``); a
#: benchmark refuses them as it refuses the training seeds
FIT_SEEDS = frozenset({5101, 5201, 5301})

__all__ = ["BOARD_SEED", "BOARD_VAL_SEED", "FIT_SEEDS", "TRAINING_SEEDS", "TRAIN_SEED", "VAL_SEED"]
