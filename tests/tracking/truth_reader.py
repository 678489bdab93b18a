"""A stand-in board reader that answers from a synthetic game's ground truth, frame
by frame: perfect reads, with the cells under a hand reported as occluded. It lets
the tracker's tests run on real rendered frames (through the real motion gate)
without depending on the classifier's accuracy."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TruthRead:
    board_found: bool
    corners: list
    cells: dict
    uncertain: list
    occluded: list = field(default_factory=list)


class TruthReader:
    def __init__(self, truth_frames: list[dict]):
        self._frames = list(truth_frames)
        self._k = 0

    def read(self, image) -> TruthRead:
        f = self._frames[self._k]
        self._k += 1
        hidden = list(f["hidden"])
        cells = {c: v for c, v in f["cells"].items() if c not in hidden}
        return TruthRead(True, f["corners"], cells, hidden, list(hidden))
