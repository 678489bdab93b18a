"""The board finder network: a small encoder to 1/8 resolution with dilated context
(the whole frame is in view of every output pixel), a light decoder back to 1/2, and
two output maps (grid mask, grid corners). About 60k parameters, ~0.1 GMAC a frame."""

from __future__ import annotations

import torch
from torch import nn


def _conv(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation,
                                   bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class BoardNet(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        w = width
        self.stem = nn.Sequential(_conv(3, w, 2), _conv(w, w))                  # 1/2
        self.down1 = nn.Sequential(_conv(w, 2 * w, 2), _conv(2 * w, 2 * w))     # 1/4
        self.down2 = nn.Sequential(_conv(2 * w, 3 * w, 2), _conv(3 * w, 3 * w, dilation=2),
                                   _conv(3 * w, 3 * w, dilation=4),
                                   _conv(3 * w, 3 * w, dilation=8))              # 1/8
        self.up1 = _conv(5 * w, 2 * w)                                          # 1/4
        self.up2 = _conv(3 * w, w)                                              # 1/2
        self.head = nn.Conv2d(w, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x / 255.0 - 0.5
        a = self.stem(x)
        b = self.down1(a)
        c = self.down2(b)
        c = nn.functional.interpolate(c, scale_factor=2.0, mode="bilinear",
                                      align_corners=False)
        b = self.up1(torch.cat([b, c], 1))
        b = nn.functional.interpolate(b, scale_factor=2.0, mode="bilinear",
                                      align_corners=False)
        a = self.up2(torch.cat([a, b], 1))
        return self.head(a)
