"""Training that survives an interruption: the data rendered in chunks kept on disk
(``training/chunks.py``) and the training state saved after each epoch
(``training/checkpoint.py``), for both networks. A resumed run ends where an
uninterrupted one does, bit for bit, on the CPU."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest


def _equal(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y, equal_nan=True) for x, y in
                                    zip(a, b, strict=True))


class Counter:
    def __init__(self):
        self.photos = 0

    def __call__(self, photos: int) -> None:
        self.photos += photos


def test_pips_chunks_are_the_arrays_of_one_go_and_a_rerun_renders_only_what_is_missing(
        tmp_path):
    from zatre_vision.training.chunks import spec_folder
    from zatre_vision.training.dataset import DataSpec, build

    spec = DataSpec(1000, 5, textures=2, makers=0.5, prints=("peri", "navy"))
    one_go = build(spec, workers=2, chunk=25)                  # one chunk, in a process
    folder = spec_folder(tmp_path, "pips-train", spec)
    rendered, loaded = Counter(), Counter()
    chunked = build(spec, workers=1, chunk=2, progress=rendered, folder=folder, loaded=loaded)
    assert _equal(one_go, chunked) and len(one_go[0]) > 100
    assert (rendered.photos, loaded.photos) == (5, 0)
    assert sorted(p.name for p in folder.glob("*.npz")) == [
        "000000-000002.npz", "000002-000004.npz", "000004-000005.npz"]
    # an interruption lost the middle chunk: only that one is rendered again
    (folder / "000002-000004.npz").unlink()
    (folder / "000004-000005.npz").write_bytes(b"half a file")   # unreadable: rendered again
    rendered, loaded = Counter(), Counter()
    resumed = build(spec, workers=1, chunk=2, progress=rendered, folder=folder, loaded=loaded)
    assert _equal(one_go, resumed)
    assert (rendered.photos, loaded.photos) == (3, 2)
    # other data settings get a folder of their own; the photo count does not
    assert spec_folder(tmp_path, "pips-train", replace(spec, photos=500)) == folder
    assert spec_folder(tmp_path, "pips-train", replace(spec, makers=0.0)) != folder


def test_board_chunks_are_the_arrays_of_one_go(tmp_path):
    from zatre_vision.training.board_data import BoardDataSpec, build

    spec = BoardDataSpec(2000, 5)
    one_go = build(spec, workers=1, chunk=50)
    chunked = build(spec, workers=2, chunk=2, folder=tmp_path / "b")
    assert _equal(one_go, chunked) and one_go[0].shape[0] == 5
    assert one_go[1].dtype == np.float16
    loaded = Counter()
    again = build(spec, workers=2, chunk=2, folder=tmp_path / "b", loaded=loaded)
    assert _equal(one_go, again) and loaded.photos == 5


def _weights(path):
    import torch

    return torch.load(path, map_location="cpu", weights_only=False)["model"]


def _same_weights(a, b) -> bool:
    import torch

    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_pips_training_resumed_after_an_interruption_ends_with_the_same_weights(tmp_path):
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.checkpoint import Interrupted
    from zatre_vision.training.train import QUICK, train
    from zatre_vision.vision.reading.classify import PipClassifier

    cfg = replace(QUICK, photos=3, val_photos=2, epochs=3, batch=64, makers=0.5)
    chunks = tmp_path / "chunks"
    whole = train(cfg, tmp_path / "a.onnx", progress=False, chunks=chunks,
                  checkpoint=tmp_path / "a.pt")
    assert whole["training"]["data_from_cache"] is False
    epochs = []
    with pytest.raises(Interrupted):
        train(cfg, tmp_path / "b.onnx", progress=False, chunks=chunks,
              checkpoint=tmp_path / "b.pt", stop_after=1,
              on_epoch=lambda e, n, s: epochs.append((e["epoch"], n)))
    assert epochs == [(1, 3)] and not (tmp_path / "b.onnx").exists()
    resumed = train(cfg, tmp_path / "b.onnx", progress=False, chunks=chunks,
                    checkpoint=tmp_path / "b.pt")
    assert resumed["training"]["data_from_cache"] is True      # every chunk was on disk
    assert resumed["training"]["resumed_after_epoch"] == 1
    assert resumed["training"]["history"] == whole["training"]["history"]
    assert _same_weights(_weights(tmp_path / "a.pt"), _weights(tmp_path / "b.pt"))
    crops = np.random.default_rng(0).uniform(0, 1.2, (7, 24, 24)).astype(np.float32)
    pa = PipClassifier(tmp_path / "a.onnx").probabilities(crops, np.arange(7))
    pb = PipClassifier(tmp_path / "b.onnx").probabilities(crops, np.arange(7))
    assert np.array_equal(pa, pb)
    # a checkpoint of other settings is not resumed from: that run starts afresh
    other = train(replace(cfg, lr=0.001), tmp_path / "c.onnx", progress=False, chunks=chunks,
                  checkpoint=tmp_path / "b.pt")
    assert "resumed_after_epoch" not in other["training"]
    assert len(other["training"]["history"]) == 3


def test_board_training_resumed_after_an_interruption_ends_with_the_same_weights(tmp_path):
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.board_train import BOARD_QUICK, train_board
    from zatre_vision.training.checkpoint import Interrupted

    cfg = replace(BOARD_QUICK, photos=4, val_photos=2, epochs=2, batch=2)
    chunks = tmp_path / "chunks"
    whole = train_board(cfg, tmp_path / "a.onnx", progress=False, chunks=chunks,
                        checkpoint=tmp_path / "a.pt")
    with pytest.raises(Interrupted):
        train_board(cfg, tmp_path / "b.onnx", progress=False, chunks=chunks,
                    checkpoint=tmp_path / "b.pt", stop_after=1)
    assert not (tmp_path / "b.onnx").exists()
    resumed = train_board(cfg, tmp_path / "b.onnx", progress=False, chunks=chunks,
                          checkpoint=tmp_path / "b.pt")
    assert resumed["training"]["resumed_after_epoch"] == 1
    assert resumed["training"]["history"] == whole["training"]["history"]
    assert _same_weights(_weights(tmp_path / "a.pt"), _weights(tmp_path / "b.pt"))
    card = json.loads((tmp_path / "b.onnx.json").read_text())
    assert card["training"]["device"] == "cpu"
