"""``training/fit_locator.py``: the ablation of the board search's fallbacks on the
fitting split, the rule that keeps a fallback only where it pays, and the card entry
``BoardLocator`` loads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from zatre_vision.training import fit_locator as fl
from zatre_vision.vision.judge import Tally
from zatre_vision.vision.location import DEFAULT_BOARD_MODEL, BoardLocator, LocateFallbacks
from zatre_vision.vision.location.fallbacks import LAST_RESORT

DATA = Path(__file__).parent / "data"


def figures(aligned: int, off: int = 0, false: int = 0, ms: float = 10.0,
            found: int | None = None) -> fl.ArmFigures:
    found = aligned + off if found is None else found
    return fl.ArmFigures(Tally(photos=100 + false, boards=100, found=found, on_grid=aligned,
                               off=off, false_boards=false), ms, ms)


def test_a_fallback_pays_only_for_more_boards_on_the_grid_or_fewer_wrong_ones():
    base = figures(90, off=1)
    assert figures(90, off=1).no_worse_than(base)
    assert figures(91, off=0).no_worse_than(base)
    assert not figures(89, off=0).no_worse_than(base)       # a board lost
    assert not figures(90, off=2).no_worse_than(base)       # one more a cell off
    assert not figures(90, off=1, false=1).no_worse_than(base)


def test_last_resorts_stay_on_whatever_the_ablation_says(monkeypatch):
    """On the fitting split no fallback finds a board and each costs time: the refiners
    go, the four that run only where nothing else found a board stay on (the split holds
    no print the network has not seen), and their rows say why."""
    def run_arms(reader, arms, cache, count, log=print):
        return {name: figures(95, ms=20.0 - sum(not v for v in s.as_dict().values()))
                for name, s in arms.items()}

    monkeypatch.setattr(fl, "run_arms", run_arms)
    switches, rows = fl.ablate(None, None, 10, log=lambda s: None)
    assert switches == LocateFallbacks.switched(border_moves=False, line_refit=False)
    assert {n for n in LocateFallbacks.names() if n in switches} == set(LAST_RESORT)
    kept = {r["arm"] for r in rows if r.get("kept") == "last resort"}
    assert kept == {f"without {n}" for n in LAST_RESORT}
    assert all(r["pays"] is False for r in rows[1:7])


def test_idle_refiners_go_one_at_a_time_and_come_back_when_together_they_pay(monkeypatch):
    """Off alone, neither ``border_moves`` nor ``line_refit`` costs a board; off together
    they do (they stand in for each other): the one whose absence saves more time goes,
    the other stays. ``texture`` pays on its own."""
    def run_arms(reader, arms, cache, count, log=print):
        out = {}
        for name, s in arms.items():
            lost = ("texture" not in s) * 3 + ("border_moves" not in s
                                               and "line_refit" not in s) * 2
            saved = 4.0 * ("border_moves" not in s) + 1.0 * ("line_refit" not in s)
            out[name] = figures(95 - lost, ms=20.0 - saved)
        return out

    monkeypatch.setattr(fl, "run_arms", run_arms)
    switches, rows = fl.ablate(None, None, 10, log=lambda s: None)
    assert switches == LocateFallbacks.switched(border_moves=False)
    assert rows[0]["arm"] == "all on"
    singles = {r["arm"]: r["pays"] for r in rows[1:7]}
    assert singles["without texture"] is True and singles["without border_moves"] is False
    assert rows[7]["arm"] == "without border_moves"          # the most time saved first
    assert rows[8]["arm"] == "without border_moves, line_refit" and rows[8]["pays"]


def test_the_fitted_switches_land_in_the_card_and_the_locator_uses_them(tmp_path,
                                                                       monkeypatch):
    """The command end to end on a copy of the committed board model, with the photos
    of the fitting split replaced by two real rendered photos (one with a board, one
    without): the card gets the entry, the table lies beside it, and a fresh
    ``BoardLocator`` reads the switches from it."""
    board = tmp_path / "board.onnx"
    shutil.copy(DEFAULT_BOARD_MODEL, board)
    shutil.copy(str(DEFAULT_BOARD_MODEL) + ".json", str(board) + ".json")
    jpeg = (DATA / "hand-7001-67.jpg").read_bytes()
    truth = json.loads((DATA / "hand-7001-67.json").read_text())
    table = np.full((480, 640, 3), 110, np.uint8)
    blank = cv2.imencode(".jpg", table)[1].tobytes()

    def photos(cache, count):
        yield "real", 1, jpeg, {**truth, "board_found": True}
        yield "none", 2, blank, {"board_found": False}

    monkeypatch.setattr(fl, "photos", photos)
    monkeypatch.setattr(fl, "FIT_SETS", fl.FIT_SETS[:1])
    assert fl.main(["--board-model", str(board), "--photos", "10"]) == 0
    card = json.loads((tmp_path / "board.onnx.json").read_text())
    entry = card["locate_fallbacks"]
    assert entry["ablation"][0] == {**entry["ablation"][0], "arm": "all on", "boards": 1,
                                    "found": 1, "on the grid": 1, "false boards": 0}
    assert set(entry["switches"]) == set(LocateFallbacks.names())
    assert entry["made_by"]["commit"] and entry["photos_per_set"] == 10
    assert (tmp_path / "board.locate-ablation.md").read_text().count("| without ") >= 6
    assert BoardLocator(board).fallbacks == LocateFallbacks.switched(**entry["switches"])


@pytest.mark.parametrize("args, message", [
    (["--photos", "3"], "--photos must be 10 to 5000"),
    (["--board-model", "/nonexistent/board.onnx"], "not found"),
])
def test_bad_settings_are_one_line(args, message, capsys):
    assert fl.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
