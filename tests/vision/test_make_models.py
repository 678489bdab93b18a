"""``python -m zatre_vision.training.make_models``: the whole run at tiny scale
(``--quick``: a few photos, two epochs), interrupted and resumed, with stand-ins for
the fit and the gate (written beside this on main: here they are commands the run is
given). Real rendering, real training on the CPU, real ONNX export."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

FIT_STUB = """
import json, sys
model = sys.argv[sys.argv.index("--model") + 1]
photos = int(sys.argv[sys.argv.index("--photos") + 1])
card = json.load(open(model + ".json"))
assert card["training"]["make_models"]["data"]["makers_share"] == 0.5
card["reader_thresholds"] = {"fitted_on_photos": photos}
json.dump(card, open(model + ".json", "w"))
print("fitted on", photos, "photos")
"""

GATE_STUB = """
import sys
args = sys.argv[1:]
out = args[args.index("--out") + 1]
board = args[args.index("--board-model") + 1]
assert "--quick" in args and args[0].endswith("pips.onnx") and board.endswith("board.onnx")
open(out, "w").write("| set | committed | candidate |\\n|---|---|---|\\n| wide | 6 | 0 |\\n")
verdict = int(args[args.index("--exit") + 1])
print("silent cells: candidate worse on held-out prints" if verdict else "no worse anywhere")
sys.exit(verdict)
"""


@pytest.fixture
def stubs(tmp_path):
    fit, gate = tmp_path / "fit_stub.py", tmp_path / "gate_stub.py"
    fit.write_text(FIT_STUB)
    gate.write_text(GATE_STUB)
    return {
        # the ablation of the board search's fallbacks: tests/vision/test_fit_locator.py
        "fit": ["--locate-command", "{python} -c \"print('fallbacks: {board} {locate_photos}')\"",
                "--fit-command", f"{{python}} {fit} --model {{pips}} --photos {{fit_photos}}"],
        "fit_fails": ["--locate-command", "{python} -c \"print('fallbacks')\"",
                      "--fit-command", "{python} -c \"import sys; print('no fit today'); "
                                       "sys.exit(4)\""],
        "gate": ["--gate-command", f"{{python}} {gate} {{pips}} --board-model {{board}} "
                                   "{quick} --out {gate_out} --exit 0"],
        "gate_rejects": ["--gate-command", f"{{python}} {gate} {{pips}} --board-model {{board}} "
                                           "{quick} --out {gate_out} --exit 1"],
    }


def _run(capsys, args: list[str]) -> tuple[int, str]:
    from zatre_vision.training.make_models import main

    rc = main(args)
    return rc, capsys.readouterr().err


def _chunk_times(folder):
    return {p: p.stat().st_mtime_ns for p in sorted(folder.rglob("*.npz"))}


def test_make_models_quick_is_interrupted_resumed_and_lands(tmp_path, stubs, capsys):
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.vision.location.board_net import BoardFinder
    from zatre_vision.vision.reading.classify import PipClassifier

    run, models, table = tmp_path / "run", tmp_path / "models", tmp_path / "gate.md"
    base = ["--quick", "--run", str(run), "--models", str(models), "--gate-table", str(table)]

    # 1: stopped after the pip classifier's first epoch (as a kill would stop it)
    rc, err = _run(capsys, [*base, *stubs["fit"], *stubs["gate"], "--stop-after-epoch", "1"])
    assert rc == 3, err
    state = json.loads((run / "state.json").read_text())
    assert set(state["steps"]) == {"render-pips", "render-board"}
    assert (run / "checkpoints" / "pips.pt").is_file()
    assert not (run / "candidates" / "pips.onnx").exists()
    assert "run the same command again to resume" in err
    assert "left, done ~" in err                     # progress lines with an estimate
    chunks = _chunk_times(run / "chunks")
    assert len(chunks) >= 4                          # pips and board, training and validation

    # 2: resumed; the training picks up after epoch 1; the fit fails in one line
    rc, err = _run(capsys, [*base, *stubs["fit_fails"], *stubs["gate"]])
    assert rc == 2, err
    assert "render-pips: already done" in err and "render-board: already done" in err
    assert "train-pips: resuming after epoch 1" in err
    assert "exited 4: no fit today" in err and "Traceback" not in err
    assert _chunk_times(run / "chunks") == chunks     # nothing rendered again
    state = json.loads((run / "state.json").read_text())
    assert state["steps"]["train-pips"]["resumed_after_epoch"] == 1
    assert state["steps"]["train-board"]["resumed_after_epoch"] == 0
    assert "fit" not in state["steps"] and not models.exists()

    # 3: resumed at the fit; the gate passes; the candidates land with their cards
    rc, err = _run(capsys, [*base, *stubs["fit"], *stubs["gate"]])
    assert rc == 0, err
    assert "train-pips: already done" in err and "fitted on 2 photos" in err
    assert sorted(p.name for p in models.iterdir()) == [
        "board.onnx", "board.onnx.json", "pips.onnx", "pips.onnx.json"]
    assert "| wide | 6 | 0 |" in table.read_text()
    card = json.loads((models / "pips.onnx.json").read_text())
    assert card["reader_thresholds"] == {"fitted_on_photos": 2}
    made = card["training"]["make_models"]
    assert made["command"].startswith("python -m zatre_vision.training.make_models --quick")
    assert made["commit"] and made["machine"]["cpus"] >= 1 and made["machine"]["device"] == "cpu"
    assert made["data"]["makers_share"] == 0.5 and made["data"]["photos"] == 4
    assert made["data"]["prints"][:2] == ["peri", "plain-black"]
    assert made["runs"] == 3 and made["wall_seconds"] > 0
    assert made["gate"]["verdict"] == "passed" and made["gate"]["against"] == str(models)
    assert card["training"]["resumed_after_epoch"] == 1
    assert len(card["training"]["history"]) == 2
    board_card = json.loads((models / "board.onnx.json").read_text())
    assert board_card["training"]["make_models"]["data"]["seed"] == 2000
    assert board_card["training"]["make_models"]["wall_seconds"] == made["wall_seconds"]
    p = PipClassifier(models / "pips.onnx").probabilities(np.zeros((3, 24, 24), np.float32),
                                                          np.arange(3))
    assert p.shape == (3, 8)
    maps, _, _ = BoardFinder(models / "board.onnx").maps(np.zeros((480, 640, 3), np.uint8))
    assert np.isfinite(maps).all()

    # 4: a finished run run again does nothing and says so
    before = (models / "pips.onnx").stat().st_mtime_ns
    rc, err = _run(capsys, [*base, *stubs["fit"], *stubs["gate"]])
    assert rc == 0 and "land: already done" in err
    assert (models / "pips.onnx").stat().st_mtime_ns == before


def test_a_gate_that_says_no_keeps_the_candidates_in_the_run_folder(tmp_path, stubs, capsys):
    pytest.importorskip("torch", reason="training needs the train extra")
    run, models = tmp_path / "run", tmp_path / "models"
    models.mkdir()
    (models / "pips.onnx").write_bytes(b"the committed model")
    base = ["--quick", "--run", str(run), "--models", str(models), "--gate-table",
            str(tmp_path / "gate.md"), *stubs["fit"]]
    # a gate that crashes (exit 1 too, but no table) is a failed step, not a verdict
    rc, err = _run(capsys, [*base, "--gate-command", "{python} -c \"raise SystemExit(1)\""])
    assert rc == 2 and "exited 1" in err, err
    assert "gate" not in json.loads((run / "state.json").read_text())["steps"]
    rc, err = _run(capsys, [*base, *stubs["gate_rejects"]])
    assert rc == 1, err
    assert "the gate found the candidates worse" in err
    assert (models / "pips.onnx").read_bytes() == b"the committed model"
    assert sorted(p.name for p in models.iterdir()) == ["pips.onnx"]
    assert not (tmp_path / "gate.md").exists()
    why = (run / "REJECTED.txt").read_text()
    assert "candidate worse on held-out prints" in why
    assert (run / "candidates" / "pips.onnx").is_file()


@pytest.mark.parametrize("args, message", [
    (["--world", "no_such_world"], "SynthConfig has no no_such_world()"),
    (["--photos", "0"], "pips photos 0"),
    (["--workers", "0"], "workers 0 / 0: 1..64"),
    (["--threads", "-1"], "threads -1 / -1: 0..64"),
])
def test_bad_settings_are_refused_in_one_line_before_any_work(tmp_path, capsys, args, message):
    pytest.importorskip("torch", reason="training needs the train extra")
    rc, err = _run(capsys, ["--quick", "--run", str(tmp_path / "run"), *args])
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_the_default_recipe_is_the_landed_networks_within_three_hours_on_this_cpu():
    """The recipes make the committed networks again: what each network's card says it
    was trained with is the recipe's, the GPU recipe's for the pip network (16
    processes, on the GPU) and the default's for the board finder (on this CPU); the
    default fits the 3-hour budget here, which is why it trains the pip network for
    fewer epochs than the GPU took."""
    pytest.importorskip("torch", reason="training needs the train extra")
    from dataclasses import asdict

    from zatre_vision.training.recipe import BUDGET_S, DEFAULT, GPU, estimate

    est = estimate(DEFAULT)
    assert sum(est.values()) <= BUDGET_S
    models = Path(__file__).resolve().parents[2] / "models"

    def trained(net: str) -> dict:
        return json.loads((models / f"{net}.onnx.json").read_text())["training"]

    def as_card(config, leave: set[str]) -> dict:
        return {k: v for k, v in json.loads(json.dumps(asdict(config))).items()
                if k not in leave}

    pips = trained("pips")
    # the card keeps the seconds it took, not a budget; epochs: see the docstring
    leave = {"seconds", "epochs", "threads", "world"}
    assert as_card(GPU.pips, leave) == {k: v for k, v in pips["config"].items()
                                        if k not in leave}
    assert as_card(DEFAULT.pips, leave | {"device", "workers"}) == \
        {k: v for k, v in pips["config"].items() if k not in leave | {"device", "workers"}}
    assert DEFAULT.pips.epochs <= GPU.pips.epochs <= pips["config"]["epochs"]
    # the pip network's world: the training ranges (the card names the SynthConfig)
    assert GPU.pips.world == DEFAULT.pips.world == "default"
    assert "SynthConfig() (default ranges)" in pips["synth_config"]
    board = trained("board")["config"]
    assert as_card(DEFAULT.board, set()) == board
    assert as_card(GPU.board, {"device", "workers", "threads"}) == \
        {k: v for k, v in board.items() if k not in {"device", "workers", "threads"}}
    assert GPU.pips.device == GPU.board.device == "cuda"


def test_the_board_network_learns_from_the_widened_world_on_every_training_print():
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.board_prints import load_prints, training_print_names
    from zatre_vision.training.board_data import BoardDataSpec, synth_config
    from zatre_vision.training.board_train import chunk_folders
    from zatre_vision.training.recipe import DEFAULT

    assert DEFAULT.board.world == "real_room"
    wide = synth_config(BoardDataSpec(1, 1, world="real_room"))
    plain = synth_config(BoardDataSpec(1, 1))
    # other makers' tiles, hands, the grid at the frame's edge, lenses of either sign
    assert wide.tiles.makers_probability >= 0.5 > plain.tiles.makers_probability
    assert wide.camera.edge_probability > plain.camera.edge_probability
    assert wide.occluders.photo_hand_probability > 0
    k1 = [k for lens in wide.camera.lenses for k in lens.k1]
    assert min(k1) < 0 < max(k1)
    held_out = {n for n, p in load_prints().items() if p.held_out}
    assert set(wide.board.prints) == set(training_print_names(load_prints()))
    assert held_out and not held_out & set(wide.board.prints)
    # the world is part of the chunks' key: photos of another world are never reused
    folders = chunk_folders(DEFAULT.board, Path("/c"))
    assert folders != chunk_folders(DEFAULT.with_changes(world="default").board, Path("/c"))
    assert DEFAULT.with_changes(world="default").board.world == "default"


def test_the_clock_replaces_estimates_with_measured_rates():
    from zatre_vision.training.run_clock import RunClock

    t = [0.0]
    out = io.StringIO()
    c = RunClock({"render": 100.0, "train": 200.0}, out, every=0.0, now=lambda: t[0])
    c.begin("render")
    assert "run ~0:05:00 left" in out.getvalue()           # 100 + 200 s estimated
    t[0] = 10.0
    c.advance(10, 100, "photos")                            # 1 photo/s: 90 s left
    assert "1.00 photos/s | step 0:01:30 left | run ~0:04:50 left" in out.getvalue()
    t[0] = 50.0
    c.end("render")                                         # twice as fast as estimated
    c.begin("train")
    assert out.getvalue().splitlines()[-1].count("run ~0:01:40 left") == 1
    t[0] = 90.0
    c.advance(1, 2, "epochs", fresh=1)                      # 40 s an epoch
    assert "40.0 s per epoch | step 0:00:40 left" in out.getvalue()


def test_an_unexpected_error_is_one_line_and_the_run_stays_resumable(tmp_path, capsys,
                                                                    monkeypatch):
    pytest.importorskip("torch", reason="training needs the train extra")
    from zatre_vision.training.make_models import Run

    def disk_full(self):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Run, "step_render_pips", disk_full)
    run = tmp_path / "run"
    rc, err = _run(capsys, ["--quick", "--run", str(run)])
    assert rc == 2 and "Traceback" not in err
    assert "render-pips: OSError: [Errno 28] No space left on device" in err
    assert "No space left" in (run / "logs" / "error.log").read_text()
    state = json.loads((run / "state.json").read_text())
    assert state["steps"] == {} and len(state["runs"]) == 1


def test_a_step_its_checkpoint_had_finished_leaves_the_estimates_as_they_were():
    """Training resumed after its last epoch exports in 7 s: that says nothing of the
    speed of the 200 s step after it."""
    from zatre_vision.training.run_clock import RunClock

    t = [0.0]
    out = io.StringIO()
    c = RunClock({"train": 4000.0, "next": 200.0}, out, every=0.0, now=lambda: t[0])
    c.begin("train")
    c.advance(26, 26, "epochs", fresh=0)
    t[0] = 7.0
    c.end("train")
    c.begin("next")
    assert "run ~0:03:20 left" in out.getvalue().splitlines()[-1]


def test_a_resumed_step_scales_the_estimates_by_the_share_it_made():
    """A step resumed with 90 of 100 photos in the cache took 10 s for its last 10: the
    steps after it are estimated at the speed of those 10, not of the whole step (the
    run of 2026-11-28 was told 3 minutes were left before 80 minutes of training)."""
    from zatre_vision.training.run_clock import RunClock

    t = [0.0]
    out = io.StringIO()
    c = RunClock({"render": 100.0, "train": 200.0}, out, every=0.0, now=lambda: t[0])
    c.begin("render")
    t[0] = 10.0
    c.advance(100, 100, "photos", fresh=10)                 # 1 photo/s, as estimated
    c.end("render")
    c.begin("train")
    assert out.getvalue().splitlines()[-1].count("run ~0:03:20 left") == 1


def test_the_gate_reads_the_outside_renderers_photos_where_the_clone_has_them(tmp_path,
                                                                            monkeypatch):
    """The issue's gate runs on ``../shared/photos/outside-renderer`` where present:
    the default gate command passes it as ``--folder``, and leaves it out where absent."""
    pytest.importorskip("torch", reason="the recipe needs the train extra")
    from zatre_vision.training import make_models as mm
    from zatre_vision.training.recipe import DEFAULT

    run = mm.Run(DEFAULT, mm.Paths.under(tmp_path, None, None, None), mm.Commands(), "x")
    photos = tmp_path / "outside"
    monkeypatch.setattr(mm, "OUTSIDE_PHOTOS", photos)
    assert not any(a.startswith("--folder") for a in
                   mm.Commands.expand(mm.GATE_COMMAND, run._values()))
    (photos / "set-a").mkdir(parents=True)
    (photos / "set-a" / "truth.json").write_text("{}")
    assert f"--folder={photos}" in mm.Commands.expand(mm.GATE_COMMAND, run._values())


def test_a_run_is_kept_outside_the_clone_unless_told(tmp_path):
    """Issue 60: the run resumes from a folder kept outside the clone, so a fresh clone
    (or the same one made again) goes on with the same chunks and checkpoints."""
    from zatre_vision.training.make_models import REPO, default_run_folder

    assert default_run_folder({"XDG_CACHE_HOME": str(tmp_path)}) == \
        tmp_path / "zatre-vision" / "models"
    home = default_run_folder({})
    assert home == Path.home() / ".cache" / "zatre-vision" / "models"
    assert REPO not in home.parents
