"""``zatre train --device/--seconds/--batch``: the network trains where it is told, the
CPU path draws the same random numbers as before, and a time budget sizes the epochs."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner


def test_augmentation_draws_the_same_numbers_with_the_device_named():
    """Naming the device (as the GPU path does) changes nothing on the CPU: the same
    generator gives the same augmented, degraded crops as the calls without it."""
    torch = pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.train import _augment, _degrade

    x = torch.from_numpy(np.random.default_rng(3).uniform(0, 1.2, (16, 1, 24, 24))
                         .astype(np.float32))
    g = torch.Generator().manual_seed(5)
    got = _degrade(_augment(x, g), g, 0.5)
    g = torch.Generator().manual_seed(5)
    # the draws of the code before the device option, in the same order
    k = int(torch.randint(0, 4, (1,), generator=g))
    want = torch.rot90(x, k, dims=(2, 3))
    if torch.rand(1, generator=g) < 0.5:
        want = torch.flip(want, dims=(3,))
    gain = 1 + 0.15 * (torch.rand(16, 1, 1, 1, generator=g) - 0.5) * 2
    bias = 0.08 * (torch.rand(16, 1, 1, 1, generator=g) - 0.5) * 2
    want = want * gain + bias + 0.02 * torch.randn(want.shape, generator=g)
    assert torch.equal(_augment(x, torch.Generator().manual_seed(5)), want)
    # and the degradation after it goes on from the same generator state
    assert torch.equal(got, _degrade(want, g, 0.5))


def test_a_time_budget_sizes_the_epochs_and_the_card_says_so(tmp_path):
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.train import QUICK, train
    from zatre_vision.vision.reading.classify import PipClassifier

    out = tmp_path / "pips.onnx"
    # a budget far too small for one epoch still trains one, never zero
    cfg = replace(QUICK, photos=4, val_photos=2, epochs=50, seconds=1e-3, batch=32)
    card = train(cfg, out, progress=False)
    budget = card["training"]["time_budget"]
    assert budget["epochs_planned"] == 1 and budget["epochs_run"] == 1
    assert budget["batch_seconds"] > 0 and budget["epoch_seconds"] > 0
    assert len(card["training"]["history"]) == 1
    assert card["training"]["device"] == "cpu"
    assert card["training"]["config"]["batch"] == 32
    assert PipClassifier(out).has_features


def test_without_a_budget_the_card_has_no_plan(tmp_path):
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.train import QUICK, train

    card = train(replace(QUICK, photos=3, val_photos=2), tmp_path / "p.onnx", progress=False)
    assert "time_budget" not in card["training"]
    assert len(card["training"]["history"]) == QUICK.epochs


def test_an_unknown_device_is_refused_before_any_rendering(tmp_path):
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.train import QUICK, train

    with pytest.raises(ValueError, match="device 'tpu'"):
        train(replace(QUICK, device="tpu"), tmp_path / "p.onnx", progress=False)
    assert not (tmp_path / "p.onnx").exists()


def test_the_device_and_budget_leave_the_cached_data_valid(tmp_path):
    """Where the network trains and for how long do not change the rendered data: a
    run on another device reuses the cache."""
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.data_cache import cached
    from zatre_vision.training.train import QUICK

    calls = []

    def render():
        calls.append(1)
        return {"x": np.zeros(3)}

    cache = tmp_path / "d.npz"
    cached(cache, QUICK, render)
    cached(cache, replace(QUICK, device="cuda", seconds=60.0, batch=1024), render)
    assert len(calls) == 1
    cached(cache, replace(QUICK, makers=0.5), render)   # data settings do change it
    assert len(calls) == 2


def test_cli_cuda_without_a_gpu_is_a_one_line_refusal(tmp_path):
    torch = pytest.importorskip("torch", reason="training needs the train extra")
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    from zatre_vision.cli import main

    res = CliRunner().invoke(main, ["train", "--which", "pips", "--quick", "--device", "cuda",
                                    "--out", str(tmp_path / "p.onnx")])
    assert res.exit_code == 2
    assert "--device cuda: no GPU" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "p.onnx").exists()


def test_cli_passes_batch_and_budget_to_the_card(tmp_path):
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.apps.vision_cli import train

    out = tmp_path / "p.onnx"
    res = CliRunner().invoke(train, ["--which", "pips", "--quick", "--photos", "3",
                                     "--batch", "64", "--seconds", "1", "--device", "cpu",
                                     "--out", str(out)])
    assert res.exit_code == 0, res.output
    card = json.loads(out.with_suffix(".onnx.json").read_text())
    assert card["training"]["config"]["batch"] == 64
    assert card["training"]["config"]["seconds"] == 1.0
    assert card["training"]["config"]["device"] == "cpu"
    assert "time_budget" in card["training"]
