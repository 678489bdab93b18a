"""The pip classifier network: one full convolution at crop resolution (the pips are
only two to three pixels across there; half the width is enough for that first look),
then depthwise-separable blocks at 12, 6 and 3 pixels, global average pooling and one
linear layer. About 26k parameters (the limit is 100k); 193 crops in about 4 ms on one
core. The previous version (a full-width first convolution and a third block at 6 px,
31,592 parameters) read as well but took about 6 ms."""

from __future__ import annotations

import torch
from torch import nn

N_CLASSES = 8


def _conv(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


def _separable(cin: int, cout: int) -> nn.Sequential:
    """3 x 3 depthwise, then 1 x 1 pointwise, each with BN + ReLU."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, padding=1, groups=cin, bias=False), nn.BatchNorm2d(cin),
        nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class PipNet(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        w = width
        self.features = nn.Sequential(
            _conv(1, w // 2), nn.MaxPool2d(2),                   # 24 -> 12
            _separable(w // 2, 2 * w), nn.MaxPool2d(2),          # 12 -> 6
            _separable(2 * w, 4 * w), _separable(4 * w, 4 * w),
            nn.MaxPool2d(2),                                     # 6 -> 3
            _separable(4 * w, 6 * w), _separable(6 * w, 6 * w),
        )
        self.head = nn.Linear(6 * w, N_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x - 0.5)
        return self.head(f.mean(dim=(2, 3)))


#: the model card's description of ``PipNet``
ARCHITECTURE = ("PipNet(width={width}): conv3x3 (w/2) + BN + ReLU at 24 px, then "
                "depthwise-separable blocks (2w at 12 px; 4w x 2 at 6 px; 6w x 2 at 3 px), "
                "3 max-pools, global average pool, linear")


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
