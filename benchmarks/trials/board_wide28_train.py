"""The board network of ``gate-cpu-wide28-*.md``: the recipe's board network (widened
world, every training print) trained 28 epochs instead of 14, from the chunks ``make
models`` rendered. Run from the repository (about 40 minutes here):

    python benchmarks/trials/board_wide28_train.py CHUNKS OUT_DIR
"""

import sys
from pathlib import Path

from zatre_vision.training.board_train import BoardTrainConfig, train_board


def main() -> None:
    chunks, out = Path(sys.argv[1]), Path(sys.argv[2])
    cfg = BoardTrainConfig(epochs=28, world="real_room", threads=1, workers=2)

    def on_epoch(entry: dict, epochs: int, seconds: float) -> None:
        print(f"epoch {entry['epoch']}/{epochs} {seconds:.0f} s {entry}", flush=True)

    train_board(cfg, out / "board.onnx", progress=False, chunks=chunks,
                checkpoint=out / "board.pt", on_epoch=on_epoch)


if __name__ == "__main__":
    main()
