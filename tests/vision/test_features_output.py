"""The pip model's ``features`` output (the penultimate layer) and its logits: adding
the output leaves every logit bit for bit as it was."""

from __future__ import annotations

import json

import numpy as np
import pytest

from zatre_vision.vision.reading.cells import ALL_CELLS
from zatre_vision.vision.reading.classify import DEFAULT_MODEL, PipClassifier, softmax


def test_committed_model_gives_out_features_and_its_card_says_so():
    clf = PipClassifier()
    assert clf.has_features
    card = json.loads(DEFAULT_MODEL.with_name("pips.onnx.json").read_text())
    assert "features" in card["outputs"] and "penultimate" in card["outputs"]["features"]
    crops = np.random.default_rng(1).uniform(0, 1.1, (40, 24, 24)).astype(np.float32)
    logits, features = clf.outputs(crops, ALL_CELLS[:40])
    assert logits.shape == (40, 8) and features.shape == (40, 96)
    assert (features >= 0).all()  # after a ReLU and an average pool
    # the reading is the same logits through the card's calibration, bit for bit (the
    # plain softmax where the card has none)
    want = (softmax(logits) if clf.calibration.identity
            else clf.calibration.probabilities(logits, ALL_CELLS[:40]))
    assert (clf.probabilities(crops, ALL_CELLS[:40]) == want).all()


def test_adding_the_output_leaves_the_logits_bit_identical(tmp_path, photos, reader):
    onnx = pytest.importorskip("onnx", reason="the onnx package is in the train extra")
    from zatre_vision.training.features_output import add_features_output, logits_unchanged

    model = onnx.load(str(DEFAULT_MODEL))
    # the committed model without its features output, as it was before
    graph = model.graph
    keep = [n for n in graph.node if "features" not in n.output]
    del graph.node[:]
    graph.node.extend(keep)
    outs = [o for o in graph.output if o.name != "features"]
    del graph.output[:]
    graph.output.extend(outs)
    plain = model.SerializeToString()
    again = tmp_path / "again.onnx"
    onnx.save(add_features_output(onnx.load_from_string(plain)), str(again))
    again.with_name("again.onnx.json").write_bytes(
        DEFAULT_MODEL.with_name("pips.onnx.json").read_bytes())
    assert logits_unchanged(plain, again) == 0
    # and on the crops of a real rendered photo, through the reader's own session
    import cv2
    import onnxruntime as ort

    from zatre_vision.vision.reader import work_image
    from zatre_vision.vision.reading.cells import crops as cut
    from zatre_vision.vision.reading.cells import model_maps, normalise, rectify_board
    from zatre_vision.vision.reading.classify import kind_input

    img = cv2.imread(str(photos["full"][0]))
    res = reader.read(img)
    grey = cv2.cvtColor(work_image(img)[0], cv2.COLOR_BGR2GRAY)
    m = res.model
    cr = cut(normalise(rectify_board(grey, model_maps(m), m.cell_size_px())))
    old = ort.InferenceSession(plain, providers=["CPUExecutionProvider"])
    before = old.run(["logits"], {"crops": cr[:, None].astype(np.float32),
                                  "kind": kind_input(ALL_CELLS)})[0]
    after, _ = PipClassifier(again).outputs(cr, ALL_CELLS)
    assert (before.astype(np.float64) == after).all()
