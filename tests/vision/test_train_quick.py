"""``zatre train --quick``: the whole training path, tiny, to a temporary folder."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from zatre_vision.vision.classify import CLASSES, PipClassifier


def test_quick_training_exports_a_usable_model(tmp_path):
    pytest.importorskip("torch", reason="training needs the train extra (CI installs it)")
    from zatre_vision.vision.cli import train

    out = tmp_path / "pips.onnx"
    res = CliRunner().invoke(train, ["--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    card = json.loads((tmp_path / "pips.onnx.json").read_text())
    assert card["classes"] == list(CLASSES)
    assert card["parameters"] <= 100_000
    assert card["training"]["data_seed"] != 9001
    clf = PipClassifier(out)
    p = clf.probabilities(np.zeros((5, 24, 24), np.float32))
    assert p.shape == (5, 8)


def test_committed_model_card():
    from zatre_vision.vision.classify import DEFAULT_MODEL

    card = json.loads(DEFAULT_MODEL.with_suffix(".onnx.json").read_text())
    assert card["classes"] == list(CLASSES)
    assert card["input_size"] == 24
    assert card["parameters"] <= 100_000
    assert card["training"]["data_seed"] == 1000
    assert DEFAULT_MODEL.stat().st_size < 500_000
