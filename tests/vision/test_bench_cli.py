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
    from zatre_vision.bench import vision_bench as bench

    seen = {}

    def fake_run(photos, model_path, seed, progress, wide, scanned_board, tiles, prints,
                 hires, size):
        seen.update(photos=photos, seed=seed, wide=wide)
        seen["held_out"] = (tiles, prints, hires, size)
        return {"set": {"seed": seed}, "board_found_rate": 1.0, "boards_exactly_right": 1.0,
                "timing_ms_one_thread": {}, "targets_met": {}, "confusion_matrix": [],
                "cells": {"wrong_rate": 0.0, "uncertain_rate": 0.0, "strict_error_rate": 0.0}}

    monkeypatch.setattr(bench, "run_vision_benchmark", fake_run)
    model = tmp_path / "pips.onnx"
    model.write_bytes(b"")
    card = tmp_path / "pips.onnx.json"
    card.write_text("{}")
    out = tmp_path / "v.json"
    res = CliRunner().invoke(zatre, ["bench", "vision", "--seed", "8101", "--photos", "5",
                                     "--model", str(model), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert seen == {"photos": 5, "seed": 8101, "wide": True,
                    "held_out": ("training", ("peri",), False, (1280, 960))}
    written = json.loads(out.read_text())
    assert written["set"]["seed"] == 8101
    assert {"commit", "date", "machine", "command", "measures"} <= set(written)  # provenance
    assert [p.name for p in tmp_path.iterdir() if "confusion" in p.name] == []  # in the JSON
    assert card.read_text() == "{}"   # only the benchmark's own set goes into the card
    # the held-out tile sets and prints, at another size: passed on, the card left alone
    res = CliRunner().invoke(zatre, ["bench", "vision", "--photos", "5", "--tiles", "held-out",
                                     "--prints", "held-out", "--hires", "--size", "1920x1440",
                                     "--model", str(model), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert seen["held_out"] == ("held-out", ("amigo", "slate-green", "oak", "night"), True,
                                (1920, 1440))
    assert card.read_text() == "{}"


@pytest.mark.parametrize("args", [["--tiles", "no-such-set"], ["--prints", "peri,nope"],
                                  ["--size", "12x9"], ["--size", "big"],
                                  ["--board", "scanned", "--prints", "amigo"]])
def test_bad_held_out_options_exit_2_with_one_line(tmp_path, args):
    out = tmp_path / "v.json"
    res = CliRunner().invoke(zatre, ["bench", "vision", "--photos", "5", *args,
                                     "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert not out.exists()


def test_the_benchmark_says_where_each_board_came_from():
    """A real (small) run: every photo with a board is counted under the source its
    board came from, and those not found under locate:none."""
    from zatre_vision.bench.vision_bench import run_vision_benchmark

    res = run_vision_benchmark(photos=6, progress=False)
    by = {k: v for k, v in res["located_by"].items() if k != "definition"}
    assert sum(v["photos"] for v in by.values()) == res["set"]["photos_with_board"]
    found = sum(v["photos"] for k, v in by.items() if k != "locate:none")
    assert found / res["set"]["photos_with_board"] == res["board_found_rate"]
    assert all(k.startswith("locate:") and v["read_median_ms"] > 0 for k, v in by.items())
    # a held-back frame leaves every cell uncertain, so it is never exact, and leaving
    # such frames out can only lower the share of uncertain cells
    held = res["doubtful_frames"]["photos"]
    boards = res["set"]["photos_with_board"]
    assert 0 <= held <= found
    assert round(res["boards_exactly_right"] * boards) <= found - held
    other = res["doubtful_frames"]["uncertain_rate_on_the_other_frames"]
    assert 0 <= other <= res["cells"]["found_boards_only"]["uncertain_rate"] + 1e-6


def test_the_benchmark_splits_its_boards_by_pip_contrast_and_hands():
    """Each split covers every photo with a board once, and hidden cells read with a
    wrong value are counted apart."""
    from zatre_vision.bench.vision_bench import run_vision_benchmark

    res = run_vision_benchmark(photos=6, progress=False)
    boards = res["set"]["photos_with_board"]
    bands = {k: v for k, v in res["by_pip_contrast"].items() if k != "definition"}
    assert set(bands) == {"clear", "faint", "erased"}
    assert sum(v["photos"] for v in bands.values()) == boards
    hands = {k: v for k, v in res["by_hand"].items() if k != "definition"}
    assert sum(v["photos"] for v in hands.values()) == boards
    exact = sum(round(v["boards_exactly_right"] * v["photos"]) for v in bands.values())
    assert exact == round(res["boards_exactly_right"] * boards)
    cells = res["cells"]
    assert 0 <= cells["hidden_read_wrong"] <= cells["hidden_cells"]
    # cells settled beside a hand: wrong ones are within wrong and hidden_read_wrong
    assert 0 <= cells["beside_hand_wrong"] <= min(cells["beside_hand"], cells["wrong"])
    assert cells["beside_hand_hidden"] <= cells["beside_hand"]
    assert 0 <= cells["beside_hand_hidden_wrong"] <= min(cells["beside_hand_hidden"],
                                                         cells["hidden_read_wrong"])
    # the well-posed photos: clear pips and no hand, a part of both groups
    readable = res["clear_pips_no_hand"]
    assert readable["photos"] <= min(bands["clear"]["photos"], hands["no_hand"]["photos"])
    assert readable["photos"] >= bands["clear"]["photos"] - hands["hand"]["photos"]
    exact_readable = round(readable["boards_exactly_right"] * readable["photos"])
    assert exact_readable <= round(bands["clear"]["boards_exactly_right"]
                                   * bands["clear"]["photos"])


def _truth(defocus=0.0, motion=0.0, side=600.0):
    corners = [[100, 100], [100 + side, 100], [100 + side, 100 + side], [100, 100 + side]]
    return {"corners": corners, "sensor": {"defocus_sigma": defocus, "motion_px": motion}}


def test_pip_contrast_falls_with_blur_and_with_smaller_cells():
    from zatre_vision.bench.vision_bench import PIP_CONTRAST_BANDS, pip_contrast

    assert pip_contrast(_truth(), 1280) == 1.0
    sharp = pip_contrast(_truth(defocus=0.8), 1280)
    assert PIP_CONTRAST_BANDS[1] < sharp < 1.0
    assert pip_contrast(_truth(defocus=1.6), 1280) < sharp
    assert pip_contrast(_truth(defocus=0.8, side=300), 1280) < sharp
    assert pip_contrast(_truth(motion=9.0), 1280) < pip_contrast(_truth(motion=3.0), 1280)
    # a 2.5 px defocus on cells 20 px wide leaves nothing of the pips
    assert pip_contrast(_truth(defocus=2.5, side=300), 1280) < PIP_CONTRAST_BANDS[0]
    # the blur is given at 1280 wide: the same photo at 640 wide keeps the same contrast
    half = {"corners": [[x / 2, y / 2] for x, y in _truth()["corners"]],
            "sensor": {"defocus_sigma": 0.8, "motion_px": 0.0}}
    assert abs(pip_contrast(half, 640) - sharp) < 1e-9


@pytest.mark.parametrize("ranges, hurried, name", [
    ("training", False, "tracking.json"), ("wide", False, "tracking-wide.json"),
    ("heldout-tiles", False, "tracking-heldout-tiles.json"),
    ("heldout-tiles", True, "tracking-heldout-tiles-hurried.json"),
    ("training", True, "tracking-hurried.json")])
def test_the_tracking_bench_writes_each_range_to_its_own_file(ranges, hurried, name, tmp_path,
                                                              monkeypatch):
    from zatre_vision.bench import tracking_bench

    def fake_run(reader_factory, games, max_turns, ranges, hurried, command, on_game, skip):
        assert skip == 0
        on_game({"summary": {"games": 1}})   # the figures so far, after a game
        partial = json.loads((tmp_path / "benchmarks" / "results" / name).read_text())
        assert partial["summary"] == {"games": 1}
        assert {"commit", "date", "machine", "command"} <= set(partial)  # its provenance
        return {"summary": {"ranges": ranges, "hurried": hurried, "games": games}}

    monkeypatch.setattr(tracking_bench, "run_tracking_benchmark", fake_run)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(zatre, ["bench", "tracking", "--ranges", ranges, "--games", "2",
                                     *(["--hurried"] if hurried else [])])
    assert res.exit_code == 0, res.output
    written = json.loads((tmp_path / "benchmarks" / "results" / name).read_text())
    assert written["summary"] == {"ranges": ranges, "hurried": hurried, "games": 2}
    assert len(list((tmp_path / "benchmarks" / "results").iterdir())) == 1


def test_the_folder_benchmark_reads_photos_from_elsewhere(tmp_path):
    """``zatre bench vision --folder``: rendered photos with a truth.json as an outside
    renderer would give them (not ../shared: tests do not read it)."""
    import cv2

    from zatre_vision.bench.vision_bench import run_folder_benchmark

    from .conftest import render

    truth = {}
    for k, kind in enumerate(("some", "full")):
        img, t = render(kind, 40 + k)
        cv2.imwrite(str(tmp_path / f"p{k}.jpg"), img)
        truth[f"p{k}.jpg"] = {"cells": t["cells"], "corners": t["corners"]}
    (tmp_path / "truth.json").write_text(json.dumps(truth))
    res = run_folder_benchmark(tmp_path, progress=False)
    assert res["set"]["photos"] == 2 and res["board_found_rate"] == 1.0
    assert res["silent"]["silent_errors"] <= 1
    assert res["timing_ms_one_thread"]["read_ratio_to_baseline"] > 0
    assert {"sharp", "blurred"} <= set(res["pip_counter"])
    assert res["commit"] and res["date"] and res["machine"]["host"] is not None
    assert "measures" in res and "made_by" not in res
    bad = CliRunner().invoke(zatre, ["bench", "vision", "--folder", str(tmp_path / "none"),
                                     "--out", str(tmp_path / "o.json")])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
