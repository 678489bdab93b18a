"""``zatre train --fine-tune``: the exported pip network rebuilt in torch starts exactly
where the export is, and a fine-tuned export keeps the features output and the card's
reader thresholds."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from zatre_vision.vision.reading.classify import DEFAULT_MODEL, PipClassifier


def test_rebuilt_network_gives_the_exported_logits():
    torch = pytest.importorskip("torch", reason="training needs the train extra")
    pytest.importorskip("onnx")
    from zatre_vision.training.from_onnx import pipnet_from_onnx

    model = pipnet_from_onnx(DEFAULT_MODEL).eval()
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1.2, (64, 1, 24, 24)).astype(np.float32)
    cells = rng.integers(0, 193, 64)
    clf = PipClassifier(DEFAULT_MODEL)
    want = clf.outputs(x[:, 0], cells)[0]
    from zatre_vision.vision.reading.classify import kind_input

    with torch.no_grad():
        got = model(torch.from_numpy(x), torch.from_numpy(kind_input(cells))).numpy()
    assert np.abs(got - want).max() < 1e-4


def test_fine_tuned_export_keeps_features_and_reader_thresholds(tmp_path):
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.train import QUICK, train

    out = tmp_path / "pips.onnx"
    thresholds = {"fitted_by": "a test", "values": {"min_confidence": 0.6}}
    out.with_suffix(".onnx.json").write_text(json.dumps({"reader_thresholds": thresholds}))
    cfg = replace(QUICK, photos=4, val_photos=2, init=str(DEFAULT_MODEL), lr=1e-4, makers=0.5,
                  prints=("peri", "navy"))
    card = train(cfg, out, progress=False)
    assert card["reader_thresholds"] == thresholds
    assert card["training"]["fine_tuned_from"] == str(DEFAULT_MODEL)
    assert "navy" in card["training"]["synth_config"]
    clf = PipClassifier(out)
    assert clf.has_features
    # a tiny fine-tune at a low rate stays close to where it started
    base = PipClassifier(DEFAULT_MODEL)
    x = np.random.default_rng(1).uniform(0, 1.2, (32, 24, 24)).astype(np.float32)
    cells = np.arange(32)
    assert (clf.probabilities(x, cells).argmax(1) == base.probabilities(x, cells).argmax(1)
            ).mean() > 0.8
