"""The committed pip classifier runs a frame's crops in batches of ``classify.BATCH``
(faster: the first layer's output of one big batch overflows the cache); the
probabilities are exactly those of one run over all the crops."""

from __future__ import annotations

import numpy as np
import pytest

import zatre_vision.vision.reading.classify as classify
from zatre_vision.vision.reading.classify import PipClassifier


@pytest.fixture(scope="module")
def clf():
    return PipClassifier()


@pytest.mark.parametrize("n", [0, 1, classify.BATCH, classify.BATCH + 1, 193])
def test_batches_give_exactly_the_probabilities_of_one_run(clf, n, monkeypatch):
    rng = np.random.default_rng(n)
    crops = rng.random((n, 24, 24), dtype=np.float32)
    cells = rng.integers(0, 193, n)
    batched = clf.probabilities(crops, cells)
    runs = []
    real_run = clf.session.run
    monkeypatch.setattr(clf.session, "run", lambda out, feed: runs.append(len(feed["crops"]))
                        or real_run(out, feed))
    monkeypatch.setattr(classify, "BATCH", 10_000)
    whole = clf.probabilities(crops, cells)
    assert runs == [n]
    assert batched.shape == (n, len(classify.CLASSES))
    assert np.array_equal(batched, whole)


def test_a_frame_runs_in_batches(clf, monkeypatch):
    runs = []
    real_run = clf.session.run
    monkeypatch.setattr(clf.session, "run", lambda out, feed: runs.append(len(feed["crops"]))
                        or real_run(out, feed))
    clf.probabilities(np.zeros((193, 24, 24), np.float32), np.arange(193))
    assert runs == [classify.BATCH] * (193 // classify.BATCH) + [193 % classify.BATCH]
