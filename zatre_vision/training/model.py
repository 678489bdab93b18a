"""The pip classifier network: one full convolution at crop resolution (the pips are
only two to three pixels across there; half the width is enough for that first look),
then depthwise-separable blocks at 12, 6 and 3 pixels, global average pooling and one
linear layer. About 26k parameters (the limit is 100k); 193 crops in about 4 ms on one
core. The previous version (a full-width first convolution and a third block at 6 px,
31,592 parameters) read as well but took about 6 ms.

With ``cell_kind`` the network also takes each crop's printed cell kind (1.0 on a light
x2 cell, 0.0 on a dark one): a bare light cell and a blurred tile both look like a plain
bright square, and the crop alone does not say which cell it is. The kind adds a learned
offset to each channel after the first pooling and a learned bias to each class score
(16 parameters; cheap in onnxruntime, which keeps the first convolution fused with its
ReLU)."""

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
    def __init__(self, width: int = 16, cell_kind: bool = False):
        super().__init__()
        w = width
        self.cell_kind = cell_kind
        self.stem = nn.Sequential(_conv(1, w // 2), nn.MaxPool2d(2))   # 24 -> 12
        if cell_kind:
            self.kind_offset = nn.Parameter(torch.zeros(w // 2))
            self.kind_bias = nn.Parameter(torch.zeros(N_CLASSES))
        self.features = nn.Sequential(
            _separable(w // 2, 2 * w), nn.MaxPool2d(2),          # 12 -> 6
            _separable(2 * w, 4 * w), _separable(4 * w, 4 * w),
            nn.MaxPool2d(2),                                     # 6 -> 3
            _separable(4 * w, 6 * w), _separable(6 * w, 6 * w),
        )
        self.head = nn.Linear(6 * w, N_CLASSES)

    def forward(self, x: torch.Tensor, kind: torch.Tensor | None = None) -> torch.Tensor:
        """``x`` (N, 1, 24, 24) crops; ``kind`` (N, 1), 1.0 on light cells (only, and
        always, with ``cell_kind``)."""
        f = self.stem(x - 0.5)
        if self.cell_kind:
            f = f + kind[:, :, None, None] * self.kind_offset[None, :, None, None]
        logits = self.head(self.features(f).mean(dim=(2, 3)))
        if self.cell_kind:
            logits = logits + kind * self.kind_bias[None, :]
        return logits


#: the model card's description of ``PipNet``
ARCHITECTURE = ("PipNet(width={width}): conv3x3 (w/2) + BN + ReLU at 24 px, then "
                "depthwise-separable blocks (2w at 12 px; 4w x 2 at 6 px; 6w x 2 at 3 px), "
                "3 max-pools, global average pool, linear")
#: ... and what ``cell_kind`` adds to it
KIND_ARCHITECTURE = ("; cell kind input (N x 1, 1.0 on light x2 cells): a learned offset per "
                     "channel after the first max-pool and a learned bias per class")


def architecture(width: int, cell_kind: bool) -> str:
    return ARCHITECTURE.format(width=width) + (KIND_ARCHITECTURE if cell_kind else "")


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
