"""``zatre read`` end to end on rendered photos, through the guarded runner (exit codes)."""

from __future__ import annotations

import json

import click
import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from zatre_vision.apps.vision_cli import read
from zatre_vision.board_prints import load_prints
from zatre_vision.errors import run_guarded


class GuardedGroup(click.Group):
    """Wraps commands like ``zatre_vision.cli.main`` does (one-line errors, exit 2)."""

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        return run_guarded(lambda: super(GuardedGroup, self).main(*args, **kwargs))


@click.group(cls=GuardedGroup)
def zatre() -> None:
    """The vision commands as the lead's ``zatre`` group runs them."""


zatre.add_command(read)


def run(*args: str):
    return CliRunner().invoke(zatre, list(args))


def test_one_image_prints_the_contract_object(photos):
    path, truth = photos["some"]
    res = run("read", str(path))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert list(out)[:5] == ["board_found", "corners", "cells", "uncertain", "occluded"]
    assert out["board_found"] is True
    # additive: the print it proved (among the dark-bordered prints not always Peri's)
    assert out["board_print"] in load_prints()
    assert len(out["corners"]) == 4 and all(len(c) == 2 for c in out["corners"])
    assert isinstance(out["elapsed_ms"], float)
    assert all(1 <= v <= 6 for v in out["cells"].values())
    assert set(out["cells"]) <= set(truth["cells"])
    right = sum(out["cells"].get(n) == v for n, v in truth["cells"].items())
    assert right >= 0.9 * len(truth["cells"])


def test_a_photo_too_blurred_to_read_says_so_on_stderr(photos, tmp_path):
    """A full board streaked by camera shake: the reader takes no tile from it (a
    doubtful frame), and says why on stderr; stdout stays the contract's JSON."""
    path, truth = photos["full"]
    img = cv2.imread(str(path))
    streak = np.zeros((9, 9), np.float32)
    streak[4, :] = 1 / 9
    blurred = tmp_path / "shaken.jpg"
    cv2.imwrite(str(blurred), cv2.filter2D(img, -1, streak))
    res = run("read", str(blurred))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["board_found"] is True and out["cells"] == {}
    assert set(out["uncertain"]) == set(truth["cells"])
    assert "too blurred or badly lit to read the tiles; all 193 cells left uncertain" in res.stderr
    # the sharp photo reads without the note
    sharp = run("read", str(path))
    assert sharp.stderr == "" and len(json.loads(sharp.stdout)["cells"]) == 193


def test_several_images_give_json_lines_in_order(photos):
    paths = [str(photos[k][0]) for k in ("empty", "none", "full")]
    res = run("read", *paths)
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 3
    objs = [json.loads(line) for line in lines]
    assert [o["image"] for o in objs] == paths
    assert objs[0]["board_found"] is True and objs[0]["cells"] == {}
    assert objs[1] == {**objs[1], "board_found": False, "cells": {}}
    assert objs[2]["board_found"] is True


def test_no_board_is_not_an_error(photos):
    res = run("read", str(photos["none"][0]))
    assert res.exit_code == 0
    out = json.loads(res.stdout)
    assert out["board_found"] is False and out["cells"] == {}


@pytest.mark.parametrize("which", ["corrupt", "missing"])
def test_bad_input_exits_2_with_one_line(photos, tmp_path, which):
    path = str(photos["corrupt"][0]) if which == "corrupt" else str(tmp_path / "nope.jpg")
    res = run("read", path)
    assert res.exit_code == 2
    assert res.stdout == ""
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("zatre: error:") and path in err[0]


def test_bad_calibration_file_exits_2(photos, tmp_path):
    bad = tmp_path / "cal.json"
    bad.write_text('{"version": 1, "homography": [[1, 2]]}')
    res = run("read", "--calibration", str(bad), str(photos["empty"][0]))
    assert res.exit_code == 2
    assert "cal.json" in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_save_and_use_calibration(photos, tmp_path):
    cal = tmp_path / "cal.json"
    path = str(photos["some"][0])
    first = json.loads(run("read", "--save-calibration", str(cal), path).stdout)
    assert cal.exists()
    again = json.loads(run("read", "--calibration", str(cal), path).stdout)
    assert again["cells"] == first["cells"]
    # the saved fit is the read's, polished at full resolution: a few hundredths of a
    # cell apart
    cell = np.linalg.norm(np.subtract(first["corners"][1], first["corners"][0])) / 15
    for a, b in zip(again["corners"], first["corners"], strict=True):
        assert a == pytest.approx(b, abs=0.05 * cell)
