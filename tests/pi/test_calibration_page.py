"""The dashboard's Calibration page: register from the camera's newest frame, check
the corners on the preview, accept (PIN) into the file the live service uses."""

import types

import numpy as np
import pytest

from zatre_vision.calibrate import files
from zatre_vision.camera.synthetic import SyntheticSource
from zatre_vision.config import calibration_path, load_settings
from zatre_vision.server import create_app
from zatre_vision.store import open_store
from zatre_vision.table import Table

PIN = "2468"


class FakeCamera:
    def __init__(self, frame):
        self.runner = types.SimpleNamespace(last_frame=frame)
        self.source = "picamera2"
        self.started = []

    def start(self, source, players=None, fresh=False):
        self.started.append(source)

    def event(self, name):
        return False


@pytest.fixture(scope="module")
def frame():
    src = SyntheticSource(3, 960, 720)
    src.open()
    f = src.read()
    src.close()
    return f


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "data")
    yield s
    s.close()


@pytest.fixture
def table(store):
    t = Table(store, "table-1")
    yield t
    t.close()


@pytest.fixture
def setup(tmp_path, store, table, frame):
    settings = load_settings(None, {"server": {"pin": PIN, "data_dir": str(tmp_path / "data")}})
    camera = FakeCamera(frame)
    app = create_app(settings, table, store, camera)
    app.config["TESTING"] = True
    return app, camera, settings


def pin_headers():
    return {"X-Table-PIN": PIN, "Accept": "application/json"}


def test_register_preview_accept(setup):
    app, camera, settings = setup
    c = app.test_client()
    page = c.get("/calibration")
    assert page.status_code == 200 and b"Sign in with the table PIN" in page.data
    assert c.post("/calibration/register").status_code in (400, 401)  # no PIN
    r = c.post("/calibration/register", headers=pin_headers())
    assert r.status_code == 200, r.data
    cand = r.get_json()["calibration"]["candidate"]
    assert cand["board_found"] and len(cand["corners"]) == 4
    prev = c.get("/calibration/candidate.jpg")
    assert prev.status_code == 200 and prev.data[:2] == b"\xff\xd8"
    assert b"top-left" in c.get("/calibration").data
    target = calibration_path(settings)
    assert not target.exists()
    r = c.post("/calibration/accept", headers=pin_headers())
    assert r.status_code == 200
    stored = files.load_board(target)   # the calibration kept is the candidate shown
    assert [stored.model.width, stored.model.height] == cand["image_size"]
    assert np.allclose(stored.model.corners(), cand["corners"], atol=0.01)
    assert stored.line_score == pytest.approx(cand["line_score"], abs=6e-4)
    assert camera.started == ["picamera2"]  # the camera service reloads it
    st = c.get("/api/calibration").get_json()
    assert st["board"] and st["candidate"] is None and st["preview"]
    assert c.get("/calibration/current.jpg").status_code == 200
    assert c.post("/calibration/accept", headers=pin_headers()).status_code == 409


def test_register_without_a_camera_frame_is_409(setup):
    app, camera, _ = setup
    camera.runner = None
    r = app.test_client().post("/calibration/register", headers=pin_headers())
    assert r.status_code == 409 and "no camera frame" in r.get_json()["error"]


def test_discard(setup):
    app, _, _ = setup
    c = app.test_client()
    c.post("/calibration/register", headers=pin_headers())
    c.post("/calibration/discard", headers=pin_headers())
    assert c.get("/api/calibration").get_json()["candidate"] is None
    assert c.get("/calibration/candidate.jpg").status_code == 404
