"""Trial (issue 61, item 2): the recipe's board finder trained to its 28 epochs (the real-room
world, half its boards from the print world), checkpointed outside the clone; resumed
after epoch 3 in session 37. Its rendered photos were kept in /root/board-world/chunks."""
import json
import time
from pathlib import Path

from zatre_vision.training.board_train import train_board
from zatre_vision.training.recipe import DEFAULT

cfg = DEFAULT.board
print(json.dumps({"config": cfg.__dict__}, default=str), flush=True)
out = Path("/root/board-world/board-world28.onnx")
card = train_board(cfg, out, progress=True, chunks=Path("/root/board-world/chunks"),
                   checkpoint=Path("/root/board-world/ckpt.pt"))
print(json.dumps({"done": time.time(), "validation": card["metrics"]["validation"]}), flush=True)
