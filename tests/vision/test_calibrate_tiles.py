"""``zatre calibrate tiles`` and ``zatre read --tiles`` on real rendered photos of a tile
set the base model never saw (``square-pips``: big square pips packed close), with
every refusal of the contract.

The base model here is the pip network committed before issue 60
(``data/pips-before-issue60.onnx``), which cannot read square pips: the network that
replaced it learnt other makers' tiles and reads this set with no adaptation at all
(``benchmarks/results/adapt.json``), so it cannot show what an adaptation learns."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from zatre_vision.bench.adapt_bench import calibration_photo
from zatre_vision.cli import main
from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.scene import Renderer
from zatre_vision.synth.tiles import sample_pose
from zatre_vision.vision.geometry import CELL_NAMES, IS_LIGHT

SIZE = (960, 720)
#: a base model that cannot read ``STYLE`` (see the module's doc)
BASE = str(Path(__file__).parent / "data" / "pips-before-issue60.onnx")
STYLE = "square-pips"
NEW_PHOTO_SEEDS = (92, 93, 94)


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def _game_photo(seed: int, cells: dict[str, int]) -> np.ndarray:
    cfg = SynthConfig().with_tiles(STYLE)
    r = Renderer(cfg, seed, *SIZE)
    rng = np.random.default_rng([seed, 3])
    setup = r.sample_setup(rng)
    tiles = {n: sample_pose(rng, cfg.tiles, v) for n, v in cells.items()}
    return r.render(setup, tiles, [], rng)[0]


@pytest.fixture(scope="module")
def tiles_set(tmp_path_factory):
    """Two calibration photos with their truth, a new photo of the same set, and the
    tiles file learnt from the two."""
    out = tmp_path_factory.mktemp("tiles")
    cfg = SynthConfig().with_tiles(STYLE)
    truth = {}
    paths = []
    for i in range(2):
        img, layout = calibration_photo(cfg, 77, i, SIZE)
        path = out / f"tiles-{i + 1}.jpg"
        cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        truth[path.name] = {"cells": layout}
        paths.append(path)
    (out / "truth.json").write_text(json.dumps(truth))
    rng = np.random.default_rng(5)
    names = [CELL_NAMES[i] for i in rng.choice(len(CELL_NAMES), 60, replace=False)]
    new_cells = {n: int(rng.integers(1, 7)) for n in names}
    # new photos of the same set, other cameras and light (seed 91's camera streaks its
    # photo past the pips, so the reader holds that frame back with or without the
    # tiles file: a rule of its own, not what this file tests)
    new_photos = []
    for seed in NEW_PHOTO_SEEDS:
        path = out / f"new-{seed}.jpg"
        cv2.imwrite(str(path), _game_photo(seed, new_cells), [cv2.IMWRITE_JPEG_QUALITY, 90])
        new_photos.append(path)
    new = new_photos[0]
    tiles = out / "club.tiles.json"
    res = run("calibrate", "tiles", *map(str, paths), "--truth", str(out / "truth.json"),
              "--out", str(tiles), "--model", BASE)
    return {"dir": out, "paths": paths, "truth": truth, "new": new, "new_cells": new_cells,
            "new_photos": new_photos,
            "tiles": tiles, "result": res}


def _fails(res, *words: str) -> str:
    assert res.exit_code == 2, res.output
    line = res.stderr.strip()
    assert "\n" not in line and "Traceback" not in res.output, res.output
    for w in words:
        assert w in line, line
    return line


def test_calibration_learns_the_set_and_prints_the_contract_object(tiles_set):
    res = tiles_set["result"]
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert list(out)[:5] == ["photos", "tiles", "before", "after", "adapted"]
    assert out["photos"] == 2 and out["tiles"] == 180
    assert set(out["before"]) == set(out["after"]) == {"wrong", "uncertain"}
    # the base model cannot read these tiles; the adapted one reads them
    before = out["before"]["wrong"] + out["before"]["uncertain"]
    after = out["after"]["wrong"] + out["after"]["uncertain"]
    assert out["adapted"] is True
    assert before > 100 and after < before and out["after"]["wrong"] <= 1
    saved = json.loads(tiles_set["tiles"].read_text())
    assert saved["adapted"] is True and saved["report"]["tiles"] == 180


def _errors(out: dict, cells: dict[str, int]) -> int:
    unc = set(out["uncertain"])
    return sum(1 for n in CELL_NAMES
               if n in unc or out["cells"].get(n, 0) != cells.get(n, 0))


def test_read_with_the_tiles_file_reads_new_photos_better(tiles_set):
    cells = tiles_set["new_cells"]
    for new in map(str, tiles_set["new_photos"]):
        base = run("read", "--model", BASE, new)
        adapted = run("read", "--model", BASE, "--tiles", str(tiles_set["tiles"]), new)
        assert base.exit_code == 0 and adapted.exit_code == 0, adapted.output
        b, a = json.loads(base.stdout), json.loads(adapted.stdout)
        assert list(a) == list(b)  # the JSON is unchanged
        assert _errors(a, cells) < _errors(b, cells), new
        assert _errors(a, cells) <= 5, new
        # Known limit (see issue 37): the head can read one cell of a new photo wrong
        # and be sure of it (a bare light x2 cell as a tile, or a six as a four).
        silent = [n for n in a["cells"] if a["cells"][n] != cells.get(n, 0)]
        assert len(silent) <= 1, (new, silent)


def test_a_photo_with_no_board_is_refused(tiles_set, tmp_path):
    cfg = SynthConfig()
    r = Renderer(cfg, 3, *SIZE)
    rng = np.random.default_rng(1)
    img, _ = r.render(r.sample_setup(rng, board=False), {}, [], rng)
    cv2.imwrite(str(tmp_path / "table.jpg"), img)
    (tmp_path / "t.json").write_text(json.dumps({"table.jpg": {"cells": {"H8": 5}}}))
    res = run("calibrate", "tiles", str(tmp_path / "table.jpg"), "--truth",
              str(tmp_path / "t.json"), "--out", str(tmp_path / "x.json"))
    _fails(res, "table.jpg", "no board")
    assert not (tmp_path / "x.json").exists()


def test_a_listed_cell_that_is_plainly_empty_is_refused(tiles_set, tmp_path):
    path = tiles_set["paths"][0]
    cells = dict(tiles_set["truth"][path.name]["cells"])
    empty_dark = next(n for i, n in enumerate(CELL_NAMES)
                      if n not in cells and not IS_LIGHT[i] and n[0] in "FGHIJ")
    cells[empty_dark] = 4
    (tmp_path / "t.json").write_text(json.dumps({path.name: {"cells": cells}}))
    res = run("calibrate", "tiles", str(path), "--truth", str(tmp_path / "t.json"),
              "--out", str(tmp_path / "x.json"))
    _fails(res, path.name, empty_dark, "plainly empty")


def test_the_truth_of_another_photo_is_refused(tiles_set, tmp_path):
    a, b = tiles_set["paths"]
    swapped = {a.name: tiles_set["truth"][b.name], b.name: tiles_set["truth"][a.name]}
    (tmp_path / "t.json").write_text(json.dumps(swapped))
    res = run("calibrate", "tiles", str(a), str(b), "--truth", str(tmp_path / "t.json"),
              "--out", str(tmp_path / "x.json"))
    line = _fails(res, a.name)
    assert "plainly empty" in line or "does not fit the photo" in line


def test_a_truth_that_most_cells_contradict_is_refused(tiles_set, tmp_path):
    """No tile listed on a photo full of them: no listed cell is plainly empty, but
    every cell holding a tile contradicts the truth."""
    a = tiles_set["paths"][0]
    (tmp_path / "t.json").write_text(json.dumps({a.name: {"cells": {}}}))
    res = run("calibrate", "tiles", str(a), "--truth", str(tmp_path / "t.json"),
              "--out", str(tmp_path / "x.json"))
    _fails(res, a.name, "does not fit the photo")


@pytest.mark.parametrize("truth, words", [
    ("{not json", ["not valid JSON"]),
    ('["tiles-1.jpg"]', ["must map each image"]),
    ('{"other.jpg": {"cells": {}}}', ["no entry for tiles-1.jpg"]),
    ('{"tiles-1.jpg": {"cells": {"Z9": 3}}}', ["unknown cell", "Z9"]),
    ('{"tiles-1.jpg": {"cells": {"H8": 7}}}', ["H8", "not a tile"]),
    ('{"tiles-1.jpg": {"cells": {"H8": 2}, "ignore": ["Q1"]}}', ["unknown cell", "Q1"]),
    ('{"tiles-1.jpg": {"tiles": {}}}', ['needs "cells"']),
])
def test_bad_truth_files_are_refused_in_one_line(tiles_set, tmp_path, truth, words):
    (tmp_path / "t.json").write_text(truth)
    res = run("calibrate", "tiles", str(tiles_set["paths"][0]), "--truth",
              str(tmp_path / "t.json"), "--out", str(tmp_path / "x.json"))
    _fails(res, *words)


def test_bad_tiles_files_are_refused_by_read_and_replay(tiles_set, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "zatre-tiles", "version": 1, "head": {"weights": [1]}}')
    _fails(run("read", "--model", BASE, "--tiles", str(bad), str(tiles_set["new"])),
           "damaged")
    _fails(run("read", "--model", BASE, "--tiles", str(tmp_path / "none.json"),
               str(tiles_set["new"])),
           "no such file")
    other = json.loads(tiles_set["tiles"].read_text())
    other["model"]["bytes"] += 1
    (tmp_path / "other.json").write_text(json.dumps(other))
    _fails(run("read", "--model", BASE, "--tiles", str(tmp_path / "other.json"),
               str(tiles_set["new"])), "another pip model")
    # the file is tied to its model: the committed one refuses it
    _fails(run("read", "--tiles", str(tiles_set["tiles"]), str(tiles_set["new"])),
           "another pip model")
    _fails(run("replay", "--model", BASE, "--tiles", str(bad), str(tmp_path)), "damaged")


def test_replay_reads_a_recording_with_the_tiles_file(tiles_set, tmp_path):
    from zatre_vision.synth.game_frames import generate_game

    generate_game(tmp_path / "rec", seed=5, width=640, height=480, max_turns=2,
                  progress=False)
    base = run("replay", "--no-progress", "--model", BASE, str(tmp_path / "rec"))
    adapted = run("replay", "--no-progress", "--model", BASE, "--tiles",
                  str(tiles_set["tiles"]), str(tmp_path / "rec"))
    assert base.exit_code == 0 and adapted.exit_code == 0, adapted.output
    assert list(json.loads(adapted.stdout)) == list(json.loads(base.stdout))


def test_the_live_service_reads_with_the_tiles_beside_its_calibration(tiles_set, tmp_path):
    """`zatre serve`'s camera service: a tiles file saved as calibration.tiles.json
    beside the table's calibration is used by the live reader; without it, the base
    model."""
    import shutil

    from zatre_vision.tracking.sources import camera_service

    folder = tmp_path / "frames"
    folder.mkdir()
    shutil.copy(tiles_set["new"], folder / "000001.jpg")
    cal = tmp_path / "calibration.json"
    service = camera_service(None, str(folder), calibration=str(cal), model=BASE)
    assert service.reader_factory().reader.classifier.adaptation is None
    shutil.copy(tiles_set["tiles"], tmp_path / "calibration.tiles.json")
    live = camera_service(None, str(folder), calibration=str(cal),
                          model=BASE).reader_factory()
    assert live.reader.classifier.adaptation is not None
    assert live.reader.classifier.adaptation.adapted
