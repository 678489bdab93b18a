"""The pip model's second ONNX output, ``features``: the penultimate layer (the
global-average-pooled channels that the final linear layer turns into logits), N x 96
for width 16. ``zatre calibrate tiles`` fits a table's own head on it
(``vision/reading/tile_adapt.py``).

The output is added to the exported graph (``add_features_output``), not by changing
the network: the logits are computed by the same nodes as before, bit for bit. Both
``train.export_onnx`` (every retrain) and this module's command, which adds the output
to an already committed model, use it:

    python -m zatre_vision.training.features_output models/pips.onnx

(needs the ``onnx`` package, in the ``train`` extra; it checks on random crops that the
logits are unchanged, and records the output in the model card).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

FEATURES = "features"
#: the model card's description of the output
CARD_OUTPUTS = {
    "logits": "N x 8, float32: softmax gives class probabilities",
    FEATURES: ("N x C, float32: the penultimate layer (global average pool of the last "
               "block, the input of the final linear layer; C = 6 x width = 96). Added "
               "to the exported graph by zatre_vision/training/features_output.py, which "
               "leaves the logits' nodes unchanged; zatre calibrate tiles fits a table's "
               "own head on it (zatre_vision/vision/reading/tile_adapt.py)"),
}


def add_features_output(model):
    """``model`` (an ``onnx.ModelProto`` of ``PipNet``) with the input of its final
    linear layer (``head``) also given out as ``features``; a model that already has
    the output is returned as it is."""
    import onnx
    from onnx import TensorProto, helper

    graph = model.graph
    if any(o.name == FEATURES for o in graph.output):
        return model
    gemms = [n for n in graph.node if n.op_type == "Gemm"]
    head = [n for n in gemms if len(n.input) > 1 and n.input[1] == "head.weight"] or gemms[-1:]
    if not head:
        raise ValueError("no final linear layer (Gemm) in the model")
    pooled = head[0].input[0]
    width = None
    for init in graph.initializer:
        if init.name == head[0].input[1]:
            width = int(init.dims[1])
    graph.node.append(helper.make_node("Identity", [pooled], [FEATURES], name="features"))
    graph.output.append(helper.make_tensor_value_info(FEATURES, TensorProto.FLOAT,
                                                      ["n", width]))
    onnx.checker.check_model(model)
    return model


def add_to_file(path: Path) -> None:
    """Add the output to the ONNX file ``path`` in place (see ``add_features_output``)."""
    import onnx

    model = onnx.load(str(path))
    onnx.save(add_features_output(model), str(path))


def logits_unchanged(before: bytes, after: Path, n: int = 512, seed: int = 0) -> int:
    """How many crops of ``n`` (random crops and cell kinds) have logits that are not
    bit-identical between the model bytes ``before`` and the file ``after``."""
    import onnxruntime as ort

    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1.2, (n, 1, 24, 24)).astype(np.float32)
    kind = (rng.random((n, 1)) < 0.3).astype(np.float32)
    a = ort.InferenceSession(before, providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(str(after), providers=["CPUExecutionProvider"])
    feed = {"crops": x}
    if len(a.get_inputs()) == 2:
        feed["kind"] = kind
    la = a.run(["logits"], feed)[0]
    lb = b.run(["logits"], feed)[0]
    return int((la != lb).any(axis=1).sum())


def update_card(card_path: Path) -> None:
    """Record the outputs in the model card (``outputs``; ``output`` is kept)."""
    card = json.loads(card_path.read_text(encoding="utf-8"))
    card["outputs"] = CARD_OUTPUTS
    card_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m zatre_vision.training.features_output MODEL.onnx",
              file=sys.stderr)
        return 2
    path = Path(argv[0])
    before = path.read_bytes()
    add_to_file(path)
    changed = logits_unchanged(before, path)
    if changed:
        path.write_bytes(before)
        print(f"{path}: logits changed on {changed} crops; model left as it was",
              file=sys.stderr)
        return 1
    update_card(path.with_suffix(path.suffix + ".json"))
    print(f"{path}: features output added; logits bit-identical on 512 random crops",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
