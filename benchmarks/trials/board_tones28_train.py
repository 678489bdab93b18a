"""Trial (issue 61, session 39): the recipe's board finder (``DEFAULT.board``: 28 epochs,
the real-room world, half its boards from the print world) trained on the print world
with mid-tone cells (``print_world.TONES``), checkpointed outside the clone so that a
later session resumes it:

    PYTHONPATH=. python benchmarks/trials/board_tones28_train.py /root/board-tones

Its candidate then goes through ``zatre bench gate`` against the committed pair."""
import json
import sys
import time
from pathlib import Path

from zatre_vision.training.board_train import train_board
from zatre_vision.training.recipe import DEFAULT

folder = Path(sys.argv[1] if len(sys.argv) > 1 else "/root/board-tones")
folder.mkdir(parents=True, exist_ok=True)
cfg = DEFAULT.board
print(json.dumps({"config": cfg.__dict__}, default=str), flush=True)
card = train_board(cfg, folder / "board-tones28.onnx", progress=True,
                   chunks=folder / "chunks", checkpoint=folder / "ckpt.pt")
print(json.dumps({"done": time.time(), "validation": card["metrics"]["validation"]}),
      flush=True)
