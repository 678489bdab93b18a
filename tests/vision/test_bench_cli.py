"""``zatre bench vision --seed``: another held-out set, never the training data's."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from zatre_vision.cli import main as zatre
from zatre_vision.training.seeds import TRAINING_SEEDS


@pytest.mark.parametrize("seed", sorted(TRAINING_SEEDS))
def test_training_seeds_are_refused_before_any_work(seed, tmp_path):
    out = tmp_path / "v.json"
    res = CliRunner().invoke(zatre, ["bench", "vision", "--seed", str(seed), "--photos", "5",
                                     "--out", str(out)])
    assert res.exit_code == 2
    assert "seed of the training data" in res.output
    assert "Traceback" not in res.output
    assert not out.exists()


def test_another_seed_renders_another_set_and_leaves_the_card_alone(tmp_path, monkeypatch):
    from zatre_vision.vision import bench

    seen = {}

    def fake_run(photos, model_path, seed, progress, wide, scanned_board):
        seen.update(photos=photos, seed=seed, wide=wide)
        return {"set": {"seed": seed}, "board_found_rate": 1.0, "boards_exactly_right": 1.0,
                "timing_ms_one_thread": {}, "targets_met": {}, "confusion_matrix": [],
                "cells": {"wrong_rate": 0.0, "uncertain_rate": 0.0, "strict_error_rate": 0.0}}

    monkeypatch.setattr(bench, "run_vision_benchmark", fake_run)
    monkeypatch.setattr(bench, "confusion_text", lambda res: "")
    model = tmp_path / "pips.onnx"
    model.write_bytes(b"")
    card = tmp_path / "pips.onnx.json"
    card.write_text("{}")
    out = tmp_path / "v.json"
    res = CliRunner().invoke(zatre, ["bench", "vision", "--seed", "8101", "--photos", "5",
                                     "--model", str(model), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert seen == {"photos": 5, "seed": 8101, "wide": True}
    assert json.loads(out.read_text())["set"]["seed"] == 8101
    assert card.read_text() == "{}"   # only the benchmark's own set goes into the card


def test_the_benchmark_says_where_each_board_came_from():
    """A real (small) run: every photo with a board is counted under the source its
    board came from, and those not found under locate:none."""
    from zatre_vision.vision.bench import run_vision_benchmark

    res = run_vision_benchmark(photos=6, progress=False)
    by = {k: v for k, v in res["located_by"].items() if k != "definition"}
    assert sum(v["photos"] for v in by.values()) == res["set"]["photos_with_board"]
    found = sum(v["photos"] for k, v in by.items() if k != "locate:none")
    assert found / res["set"]["photos_with_board"] == res["board_found_rate"]
    assert all(k.startswith("locate:") and v["read_median_ms"] > 0 for k, v in by.items())
    # a held-back frame leaves its light x2 cells uncertain, so it is never exact
    held = res["doubtful_frames"]["photos"]
    boards = res["set"]["photos_with_board"]
    assert 0 <= held <= found
    assert round(res["boards_exactly_right"] * boards) <= found - held
