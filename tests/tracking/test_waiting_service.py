"""Issue 41 at a live table: a camera turn that waits for a cell it cannot read is in
the state (``waiting_turn``: which cell, what to do), the operator enters the value
with one tap (PIN-protected), and the LED blinks slowly meanwhile."""

from __future__ import annotations

import numpy as np
import pytest

from zatre_vision.camera.base import Frame, make_lores
from zatre_vision.config import load_settings
from zatre_vision.gpio import signal_for
from zatre_vision.server import create_app
from zatre_vision.server.context import context
from zatre_vision.store import open_store
from zatre_vision.table import Table
from zatre_vision.tracking.service import CameraService

from ..fakes import BoardReader

FIRST = {"H8": 6, "H7": 5, "G7": 5}
PIN = "2468"


class NoSource:
    name = "camera"

    def open(self):
        pass

    def read(self):
        return None

    def close(self):
        pass


class Live:
    """A camera service stepped frame by frame (no thread), 5 frames a second."""

    def __init__(self, tmp_path):
        self.table = Table(open_store(tmp_path / "data"), "table-1")
        self.table.new_match(["Ann", "Ben"], "Ann")
        self.table.commit_turn(FIRST, source="camera")
        self.service = CameraService(self.table, NoSource(), lambda: None)
        self.reader = BoardReader(FIRST)
        self.image = np.full((240, 320, 3), 90, np.uint8)
        self.n = 0

    def frames(self, count: int) -> None:
        for _ in range(count):
            self.n += 1
            self.service._step(self.reader, Frame(self.image, make_lores(self.image), self.n,
                                                  self.n / 5))

    def ben_ends_his_turn_with_f8_unreadable(self) -> None:
        self.reader.board["G8"] = 1
        self.frames(4)
        self.reader.board["F8"] = 4
        self.reader.unsure = {"F8"}
        self.frames(3)
        self.service.request("end_turn")
        self.frames(1)
        self.reader.board["G6"] = 1             # Ann's first tile, at once
        self.frames(14)                         # past the quiet 2 s


def test_the_state_says_which_cell_the_turn_waits_for_and_the_turn_waits(tmp_path):
    live = Live(tmp_path)
    live.ben_ends_his_turn_with_f8_unreadable()
    state = live.table.state()
    assert state["turns_played"] == 1           # nothing committed short, G6 not taken
    assert state["waiting_turn"] == {
        "turn": 2, "player": "Ben", "cells": ["F8"], "ambiguous": [], "queued": 0,
        "message": "cannot read F8: lift the hand, or enter its value"}
    assert signal_for(state) == "waiting"
    live.reader.unsure = set()                  # the glare goes: F8 reads
    live.frames(3)
    state = live.table.state()
    assert state["waiting_turn"] is None and signal_for(state) is None
    assert live.table.match.turns[1].placed == {"G8": 1, "F8": 4}


class Control:
    """The server's camera control, over the stepped service."""

    def __init__(self, service):
        self.service = service

    def event(self, name):
        self.service.request(name)
        return True

    def enter_cell(self, cell, value):
        self.service.request_cell(cell, value)
        return True


@pytest.fixture
def operator_app(tmp_path):
    live = Live(tmp_path)
    settings = load_settings(None, {"server": {"pin": PIN, "data_dir": str(tmp_path / "data")}})
    app = create_app(settings, live.table, live.table.store, Control(live.service))
    app.config["TESTING"] = True
    return live, app


def _client(app, signed_in=True):
    c = app.test_client()
    with c.session_transaction() as sess:
        sess["csrf"] = "t"
        if signed_in:
            sess["auth"] = context(app).pins.fingerprint()
    return c


def test_the_operator_enters_the_unreadable_cells_value_with_one_tap(operator_app):
    live, app = operator_app
    live.ben_ends_his_turn_with_f8_unreadable()
    c = _client(app)
    post = lambda body: c.post("/table/waiting-cell", json=body,  # noqa: E731
                               headers={"X-CSRF-Token": "t"})
    assert post({"cell": "E8", "value": 4}).status_code == 409    # no turn waits for E8
    assert post({"cell": "F8", "value": 9}).status_code == 400
    r = post({"cell": "F8", "value": 4})
    assert r.status_code == 200 and "F8 = 4" in r.get_json()["message"]
    live.frames(1)                               # the camera thread takes it
    state = live.table.state()
    assert state["waiting_turn"] is None
    assert live.table.match.turns[1].placed == {"G8": 1, "F8": 4}
    assert "G6" not in state["board"]            # Ann's tile is still hers to complete
    live.reader.board["G5"] = 1
    live.frames(5)
    assert live.table.match.turns[2].placed == {"G6": 1, "G5": 1}


def test_entering_a_waiting_cell_needs_the_pin(operator_app):
    live, app = operator_app
    live.ben_ends_his_turn_with_f8_unreadable()
    c = _client(app, signed_in=False)
    r = c.post("/table/waiting-cell", json={"cell": "F8", "value": 4},
               headers={"X-CSRF-Token": "t"})
    assert r.status_code in (401, 403)
    live.frames(2)
    assert live.table.state()["waiting_turn"]["cells"] == ["F8"]


def test_a_queued_turn_is_named_in_the_message(tmp_path):
    live = Live(tmp_path)
    live.ben_ends_his_turn_with_f8_unreadable()
    live.reader.board["G5"] = 1                  # Ann's turn is complete: queued
    live.frames(5)
    waiting = live.table.state()["waiting_turn"]
    assert waiting["queued"] == 1
    assert waiting["message"].endswith("(1 later turn waits behind it)")
    live.service.request_cell("F8", 4)
    live.frames(1)
    assert [t.placed for t in live.table.match.turns[1:]] == [{"G8": 1, "F8": 4},
                                                             {"G6": 1, "G5": 1}]


def test_many_cells_unsure_for_long_tell_the_table_to_learn_the_tiles(tmp_path):
    from zatre_vision.tracking.pipeline import PipelineConfig

    live = Live(tmp_path)
    live.service.config = PipelineConfig(many_unsure=4, many_unsure_s=10.0)
    live.reader.unsure = set(FIRST) | {"G8", "F8"}
    live.reader.board.update({"G8": 1, "F8": 4})
    live.frames(30)                              # six seconds: not long yet
    live.service._status_at = -1e9
    live.service._report(Frame(live.image, make_lores(live.image), live.n, live.n / 5))
    assert live.table.state()["camera"]["hint"] == ""
    live.frames(30)
    live.service._status_at = -1e9
    live.service._report(Frame(live.image, make_lores(live.image), live.n, live.n / 5))
    hint = live.table.state()["camera"]["hint"]
    assert hint.startswith("5 cells stay unreadable with no hand over them")
    assert "Learn these tiles" in hint


def test_the_camera_status_names_the_board_print_the_reader_found(tmp_path):
    live = Live(tmp_path)
    live.reader.board_print = "amigo"
    live.frames(5)
    live.service._status_at = -1e9
    live.service._report(Frame(live.image, make_lores(live.image), live.n, live.n / 5))
    assert live.table.state()["camera"]["board_print"] == "amigo"
