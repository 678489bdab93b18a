"""The pip classifier network: three small conv blocks, global average pooling, one
linear layer; about 25k parameters (the limit is 100k), cheap enough for 193 crops in a
few milliseconds on one Raspberry Pi core."""

from __future__ import annotations

import torch
from torch import nn

N_CLASSES = 8


def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class PipNet(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        w = width
        self.features = nn.Sequential(
            _block(1, w), nn.MaxPool2d(2),            # 24 -> 12
            _block(w, 2 * w), nn.MaxPool2d(2),        # 12 -> 6
            _block(2 * w, 4 * w), nn.MaxPool2d(2),    # 6 -> 3
            _block(4 * w, 6 * w),
        )
        self.head = nn.Linear(6 * w, N_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x - 0.5)
        return self.head(f.mean(dim=(2, 3)))


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
