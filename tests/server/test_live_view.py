"""The live view (issue 45): snapshot with the registered grid, an MJPEG stream of at
most two viewers, and the focus meter, from the running camera's newest frame."""

import types

import cv2
import numpy as np
import pytest

from zatre_vision.calibrate import files
from zatre_vision.camera.base import Frame
from zatre_vision.config import calibration_path
from zatre_vision.server import create_app
from zatre_vision.server.live_view import MAX_VIEWERS, focus_measure
from zatre_vision.synth.game_frames import GameScene


@pytest.fixture(scope="module")
def board_image():
    return next(iter(GameScene(3, 640, 480, max_turns=1).frames())).image


def camera_with(image, index=1):
    runner = types.SimpleNamespace(last_frame=Frame(image, image[:, :, 0], index, 0.0))
    return types.SimpleNamespace(runner=runner, source="picamera2")


@pytest.fixture
def live_app(settings, table, store, board_image):
    app = create_app(settings, table, store, camera_with(board_image))
    app.config["TESTING"] = True
    return app


def decode(data):
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


def test_no_frame_yet_is_a_503(settings, table, store):
    app = create_app(settings, table, store, types.SimpleNamespace(runner=None, source="none"))
    c = app.test_client()
    for url in ("/camera/snapshot.jpg", "/camera/stream.mjpg", "/api/camera/focus"):
        r = c.get(url, headers={"Accept": "application/json"})
        assert r.status_code == 503 and "no camera frame" in r.get_json()["error"]


def test_snapshot_draws_the_registered_grid(live_app, settings, board_image):
    c = live_app.test_client()
    plain = decode(c.get("/camera/snapshot.jpg").data)
    assert plain.shape == board_image.shape
    from zatre_vision.calibrate.board import register_board

    files.save_board(calibration_path(settings), register_board(board_image).calibration)
    gridded = decode(c.get("/camera/snapshot.jpg").data)
    green = (gridded[:, :, 1].astype(int) - gridded[:, :, 2].astype(int) > 80).sum()
    green_before = (plain[:, :, 1].astype(int) - plain[:, :, 2].astype(int) > 80).sum()
    assert green > green_before + 500  # the grid lines (1 px, 32 of them)


def test_focus_meter_prefers_the_sharp_frame(settings, table, store, board_image):
    blurred = cv2.GaussianBlur(board_image, (0, 0), 4)
    assert focus_measure(board_image) > 3 * focus_measure(blurred)
    for image in (board_image, blurred):
        app = create_app(settings, table, store, camera_with(image))
        body = app.test_client().get("/api/camera/focus").get_json()
        assert body["focus"] == round(focus_measure(image), 1) and body["frame"] == 1


def test_stream_sends_frames_and_holds_two_viewers_at_most(live_app, board_image, monkeypatch):
    from zatre_vision.server import live_view

    monkeypatch.setattr(live_view.time, "sleep", lambda s: None)
    monkeypatch.setattr(live_view, "STREAM_MAX_S", 0.5)
    c = live_app.test_client()
    open_streams = [c.get("/camera/stream.mjpg", buffered=False) for _ in range(MAX_VIEWERS)]
    for r in open_streams:
        assert r.status_code == 200 and r.mimetype == "multipart/x-mixed-replace"
    third = c.get("/camera/stream.mjpg", headers={"Accept": "application/json"})
    assert third.status_code == 503 and "viewers" in third.get_json()["error"]
    first = next(open_streams[0].response)
    assert first.startswith(b"--zatre-frame\r\nContent-Type: image/jpeg")
    jpeg = first.split(b"\r\n\r\n", 1)[1]
    shown = decode(jpeg)   # the camera's newest frame (no grid registered), as a JPEG
    assert shown.shape == board_image.shape
    assert np.abs(shown.astype(int) - board_image.astype(int)).mean() < 4
    for r in open_streams:
        r.close()  # the viewer leaves: its place is free again
    again = c.get("/camera/stream.mjpg", buffered=False)
    assert again.status_code == 200
    again.close()


def test_calibration_page_shows_the_live_view_and_meter(live_app):
    html = live_app.test_client().get("/calibration").get_data(as_text=True)
    assert 'src="/camera/stream.mjpg"' in html and 'id="focus-meter"' in html
    assert "/static/live-view.js" in html


def test_the_stream_ends_when_the_camera_stops(settings, table, store, board_image, monkeypatch):
    from zatre_vision.server import live_view

    monkeypatch.setattr(live_view.time, "sleep", lambda s: None)
    camera = camera_with(board_image)
    app = create_app(settings, table, store, camera)
    r = app.test_client().get("/camera/stream.mjpg", buffered=False)
    it = iter(r.response)
    assert next(it).startswith(b"--zatre-frame")
    camera.runner = None  # CameraControl.stop(): the server is shutting down
    assert list(it) == []
    r.close()


def test_without_a_camera_the_page_asks_for_no_stream_and_shows_no_path(client, operator):
    """No camera at this table: no live view and no focus meter are asked for (no 503s
    logged every second), the page says so; a spectator sees no server path."""
    html = client.get("/calibration").get_data(as_text=True)
    assert "/camera/stream.mjpg" not in html and 'id="focus-meter"' not in html
    assert 'id="no-camera"' in html
    assert "calibration.json" not in html                      # a spectator: no path
    assert "calibration.json" in operator.get("/calibration").get_data(as_text=True)
