"""``zatre train --quick``: the whole training path, tiny, to a temporary folder."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from zatre_vision.vision.location.board_net import INPUT_H, INPUT_W, BoardFinder
from zatre_vision.vision.reading.classify import CLASSES, PipClassifier


def test_quick_training_exports_a_usable_model(tmp_path):
    pytest.importorskip("torch", reason="training needs the train extra (CI installs it)")
    from zatre_vision.apps.vision_cli import train

    out = tmp_path / "pips.onnx"
    board_out = tmp_path / "board.onnx"
    args = ["--quick", "--out", str(out), "--board-out", str(board_out), "--cache-dir",
            str(tmp_path / "cache")]
    res = CliRunner().invoke(train, args)
    assert res.exit_code == 0, res.output
    first = json.loads((tmp_path / "pips.onnx.json").read_text())
    assert first["training"]["data_from_cache"] is False
    assert {p.name for p in (tmp_path / "cache").iterdir()} == {"pips-data.npz",
                                                                "board-data.npz"}
    # a second run reuses the rendered data (same settings) and still exports models
    again = CliRunner().invoke(train, args)
    assert again.exit_code == 0, again.output
    card = json.loads((tmp_path / "pips.onnx.json").read_text())
    assert card["training"]["data_from_cache"] is True
    assert card["classes"] == list(CLASSES)
    assert card["parameters"] <= 100_000
    assert card["training"]["data_seed"] != 9001
    clf = PipClassifier(out)
    p = clf.probabilities(np.zeros((5, 24, 24), np.float32), np.arange(5))
    assert p.shape == (5, 8)
    # a retrain keeps the features output that `zatre calibrate tiles` fits on
    assert clf.has_features and "features" in card["outputs"]
    assert clf.outputs(np.zeros((5, 24, 24), np.float32), np.arange(5))[1].shape[0] == 5
    # the board finder: a model that loads and maps a frame of any size
    board_card = json.loads((tmp_path / "board.onnx.json").read_text())
    assert board_card["training"]["data_seed"] != 9001
    finder = BoardFinder(board_out)
    maps, _, _ = finder.maps(np.zeros((480, 640, 3), np.uint8))
    assert maps.shape == (2, INPUT_H // 2, INPUT_W // 2)
    assert ((maps >= 0) & (maps <= 1)).all()


def test_committed_model_card():
    from zatre_vision.vision.reading.classify import DEFAULT_MODEL

    card = json.loads(DEFAULT_MODEL.with_suffix(".onnx.json").read_text())
    assert card["classes"] == list(CLASSES)
    assert card["input_size"] == 24
    assert card["parameters"] <= 100_000
    assert card["training"]["data_seed"] == 1000
    assert DEFAULT_MODEL.stat().st_size < 500_000



def test_committed_model_is_the_network_model_py_builds():
    """The committed ONNX file and its card come from the ``PipNet`` the training code
    builds now: the same convolution kernels in the same order, the card's count."""
    torch = pytest.importorskip("torch", reason="training needs the train extra")
    onnx = pytest.importorskip("onnx", reason="training needs the train extra")
    from zatre_vision.training.model import PipNet, architecture, parameter_count
    from zatre_vision.vision.reading.classify import DEFAULT_MODEL

    card = json.loads(DEFAULT_MODEL.with_suffix(".onnx.json").read_text())
    width = card["training"]["config"]["width"]
    cell_kind = card["training"]["config"].get("cell_kind", False)
    net = PipNet(width, cell_kind)
    assert card["parameters"] == parameter_count(net)
    assert card["architecture"] == architecture(width, cell_kind)
    graph = onnx.load(str(DEFAULT_MODEL)).graph
    assert [i.name for i in graph.input] == (["crops", "kind"] if cell_kind else ["crops"])
    shapes = {i.name: tuple(i.dims) for i in graph.initializer}
    committed = [shapes[n.input[1]] for n in graph.node if n.op_type == "Conv"]
    built = [tuple(m.weight.shape) for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    assert committed == built

def test_committed_board_model_card():
    from zatre_vision.vision.location.board_net import DEFAULT_BOARD_MODEL

    card = json.loads(DEFAULT_BOARD_MODEL.with_suffix(".onnx.json").read_text())
    assert card["input_size"] == [INPUT_W, INPUT_H]
    assert card["training"]["data_seed"] == 2000
    assert card["metrics"]["validation"]["found"] >= 0.97 * card["metrics"]["validation"]["boards"]
    assert DEFAULT_BOARD_MODEL.stat().st_size < 1_000_000


def test_degrade_blurs_the_chosen_crops_and_keeps_the_rest_sharp():
    torch = pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.train import _degrade

    # a crop of sharp pips: a checkerboard of 3 px squares
    yy, xx = np.mgrid[0:24, 0:24]
    board = ((yy // 3 + xx // 3) % 2).astype(np.float32)
    x = torch.from_numpy(np.repeat(board[None, None], 64, axis=0))

    def detail(t):        # mean absolute difference between neighbours, both directions
        return ((t[..., 1:] - t[..., :-1]).abs().mean(dim=(1, 2, 3))
                + (t[..., 1:, :] - t[..., :-1, :]).abs().mean(dim=(1, 2, 3)))

    g = torch.Generator().manual_seed(0)
    blurred = _degrade(x, g, share=1.0)
    assert blurred.shape == x.shape and torch.isfinite(blurred).all()
    # sigma and streak length vary per crop: on average the pips' detail is mostly gone
    assert detail(blurred).mean() < 0.6 * detail(x).mean()
    kept = _degrade(x, torch.Generator().manual_seed(0), share=0.0)
    # no blur: only contrast and noise change, the pattern's detail stays
    assert (detail(kept) > 0.5 * detail(x)).all()
