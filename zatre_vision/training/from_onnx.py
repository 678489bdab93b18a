"""A ``PipNet`` rebuilt from an exported ``pips.onnx``, for fine-tuning (``zatre train
--fine-tune``): the export folds each BatchNorm into its convolution, so the rebuilt
network holds the folded weights and BatchNorms that only add the folded bias
(scale 1, running mean 0, running variance 1 - eps). ``freeze_batchnorm`` keeps them so
while the rest trains: the network starts exactly where the exported one is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from .model import PipNet


def _convs_and_norms(model: PipNet) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    mods = [m for m in model.modules() if isinstance(m, nn.Conv2d | nn.BatchNorm2d)]
    return list(zip(mods[0::2], mods[1::2], strict=True))


def pipnet_from_onnx(path: Path) -> PipNet:
    """The network of ``path`` (any width; with or without the cell-kind input)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    # the convolutions' weights and biases, in the order the graph runs them
    convs = [(inits[n.input[1]], inits[n.input[2]]) for n in graph.node
             if n.op_type == "Conv"]
    head_w, head_b = inits["head.weight"], inits["head.bias"]
    width = int(head_w.shape[1]) // 6
    kind = [inits[n.input[1]] for n in graph.node if n.op_type == "Mul"
            and n.input[1] in inits]
    model = PipNet(width, cell_kind=len(kind) == 2)
    pairs = _convs_and_norms(model)
    if len(pairs) != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, PipNet has {len(pairs)}")
    with torch.no_grad():
        for (conv, bn), (w, b) in zip(pairs, convs, strict=True):
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(np.array(b)))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        model.head.weight.copy_(torch.from_numpy(np.array(head_w)))
        model.head.bias.copy_(torch.from_numpy(np.array(head_b)))
        if model.cell_kind:
            model.kind_offset.copy_(torch.from_numpy(np.array(kind[0].reshape(-1))))
            model.kind_bias.copy_(torch.from_numpy(np.array(kind[1].reshape(-1))))
    return model


def freeze_batchnorm(model: nn.Module) -> None:
    """Keep every BatchNorm on its running statistics (call after ``model.train()``)."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
