"""The stillness gate: cheap motion detection on the low-resolution stream.

Each frame is compared with the one before at 80 x 60 pixels, after removing the
overall brightness (so exposure drift is not motion). The result is a mask of the
places that moved; the pipeline holds the cells under it (a hand moving over the
board is never read as tiles) and counts the board as still when nothing on it moved.
It costs well under a millisecond.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..settings import Settings, knob

#: Size the gate works at (width, height).
GATE_SIZE = (80, 60)


@dataclass(frozen=True)
class MotionConfig(Settings):
    pixel_threshold: float = knob(
        0.1, 0.0, 1.0, "change of a gate pixel (0..1 of full scale) that counts as motion")
    #: isolated changed pixels (sensor noise, JPEG, a camera wobble on tile edges) are
    #: dropped: motion must cover at least a 2 x 2 patch of the gate
    min_patch: int = knob(2, 1, 20, "side of the smallest patch of gate pixels that "
                                    "counts as motion")
    grow: int = knob(2, 0, 20, "gate pixels motion is spread around where it was seen")


@dataclass(frozen=True)
class Motion:
    mask: np.ndarray  # bool, GATE_SIZE[1] x GATE_SIZE[0]: where the image moved
    amount: float  # fraction of the frame that moved

    def at(self, points_xy01: np.ndarray) -> np.ndarray:
        """Whether each point (x, y in 0..1 of the frame) lies where motion was seen."""
        h, w = self.mask.shape
        xs = np.clip((points_xy01[:, 0] * w).astype(int), 0, w - 1)
        ys = np.clip((points_xy01[:, 1] * h).astype(int), 0, h - 1)
        return self.mask[ys, xs]


def to_gate(image: np.ndarray) -> np.ndarray:
    """A frame (BGR or grey, any size) as a small float grey image, mean-removed."""
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(image, GATE_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    return small - float(small.mean())


class MotionGate:
    def __init__(self, config: MotionConfig | None = None):
        self.config = config or MotionConfig()
        self._previous: np.ndarray | None = None
        k = 2 * self.config.grow + 1
        self._grow = np.ones((k, k), np.uint8)
        self._patch = np.ones((self.config.min_patch, self.config.min_patch), np.uint8)

    def update(self, lores: np.ndarray) -> Motion:
        """Feed one low-resolution frame; where did it move since the last one?"""
        gate = to_gate(lores)
        if self._previous is None or self._previous.shape != gate.shape:
            mask = np.ones(gate.shape, bool)  # nothing to compare with: trust nothing
        else:
            moved = (np.abs(gate - self._previous) > self.config.pixel_threshold).astype(np.uint8)
            if self.config.min_patch > 1:
                moved = cv2.morphologyEx(moved, cv2.MORPH_OPEN, self._patch)
            mask = (cv2.dilate(moved, self._grow) if self.config.grow else moved).astype(bool)
        self._previous = gate
        return Motion(mask, float(mask.mean()))

    def reset(self) -> None:
        self._previous = None
