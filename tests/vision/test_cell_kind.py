"""The pip classifier's second input, the printed cell kind (light x2 cell or dark cell):
the training data keeps each crop's cell, the export takes the kind, and the classifier
feeds the kind of the cell each crop shows."""

from __future__ import annotations

import json

import numpy as np
import pytest

from zatre_vision.vision.geometry import CELL_NAMES, IS_LIGHT
from zatre_vision.vision.reading.classify import CLASSES, PipClassifier

LIGHT_CELL = int(np.flatnonzero(IS_LIGHT)[0])
DARK_CELL = int(np.flatnonzero(~IS_LIGHT)[0])


def _export(tmp_path, cell_kind: bool):
    """A PipNet whose kind bias strongly favours class "1" on light cells and whose
    head favours "empty" otherwise, exported as the training code exports it."""
    torch = pytest.importorskip("torch", reason="training needs the train extra")
    pytest.importorskip("onnx", reason="training needs the train extra")
    from zatre_vision.training.model import PipNet
    from zatre_vision.training.train import export_onnx

    net = PipNet(16, cell_kind=cell_kind).eval()
    with torch.no_grad():
        net.head.weight.zero_()
        net.head.bias.zero_()
        net.head.bias[0] = 5.0
        if cell_kind:
            net.kind_bias[1] = 20.0
    path = tmp_path / "pips.onnx"
    export_onnx(net, path)
    (tmp_path / "pips.onnx.json").write_text(json.dumps(
        {"classes": list(CLASSES), "input_size": 24}))
    return path


def test_the_classifier_feeds_each_crop_its_cells_kind(tmp_path):
    clf = PipClassifier(_export(tmp_path, cell_kind=True))
    assert clf.takes_kind
    crops = np.full((4, 24, 24), 0.7, np.float32)
    cells = np.array([LIGHT_CELL, DARK_CELL, CELL_NAMES.index("H8"), LIGHT_CELL])
    p = clf.probabilities(crops, cells)
    assert p.shape == (4, 8)
    reads = p.argmax(axis=1)
    assert list(reads) == [1 if IS_LIGHT[c] else 0 for c in cells]
    assert reads[0] == 1 and reads[1] == 0
    with pytest.raises(ValueError, match="needs the cell of every crop"):
        clf.probabilities(crops)
    with pytest.raises(ValueError, match="needs the cell of every crop"):
        clf.probabilities(crops, cells[:2])


def test_a_model_without_the_kind_input_ignores_cells(tmp_path):
    clf = PipClassifier(_export(tmp_path, cell_kind=False))
    assert not clf.takes_kind
    crops = np.full((2, 24, 24), 0.7, np.float32)
    p = clf.probabilities(crops)
    assert np.allclose(p, clf.probabilities(crops, np.array([LIGHT_CELL, DARK_CELL])))
    assert (p.argmax(axis=1) == 0).all()


def test_training_crops_keep_their_cells():
    """Each crop's cell index points at the cell whose truth is its label."""
    from zatre_vision.synth.photos import render_photo
    from zatre_vision.synth.scene import Renderer
    from zatre_vision.training.dataset import SIZE_WEIGHTS, SIZES, DataSpec, _work, labels_of

    spec = DataSpec(seed=31, photos=3, keep_empty=0.5, textures=2)
    x, y, c = _work((spec, 0, spec.photos))
    assert len(x) == len(y) == len(c) > 0
    # render the same photos again for their truth
    cfg = spec.synth_config()
    assert cfg.board.textures_per_seed == 2
    labels, games, renderers = [], {}, {}
    for i in range(spec.photos):
        rng = np.random.default_rng([spec.seed, 77, i])
        size = SIZES[int(rng.choice(len(SIZES), p=SIZE_WEIGHTS))]
        renderers.setdefault(size, Renderer(cfg, spec.seed, *size))
        _, truth = render_photo(renderers[size], cfg, spec.seed, i, games.setdefault(size, {}))
        if truth.get("board_found"):
            labels.append(labels_of(truth))
    assert labels
    # crops come photo by photo, cells ascending within a photo
    starts = np.flatnonzero(np.r_[True, np.diff(c.astype(int)) <= 0])
    assert len(starts) == len(labels)
    for lab, part in zip(labels, np.split(np.arange(len(c)), starts[1:]), strict=True):
        assert np.array_equal(y[part], lab[c[part]])
        # every tile and hidden cell is kept, some empty cells are dropped
        assert set(np.flatnonzero(lab != 0)) <= set(c[part])
