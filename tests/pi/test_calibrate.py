"""zatre calibrate: the printable targets, lens calibration from (synthetic) views,
board registration into the calibration file, the exposure lock against a fake
picamera2, and the live camera source picking the locked controls up."""

import json
import sys

import cv2
import numpy as np
import pytest

from zatre_vision.calibrate import files
from zatre_vision.calibrate.board import RegistrationError, register_board
from zatre_vision.calibrate.exposure import ExposureError, lock_exposure
from zatre_vision.calibrate.lens import LensError, calibrate_lens, lens_for_size
from zatre_vision.calibrate.target import TargetSpec, render_target
from zatre_vision.camera.synthetic import SyntheticSource
from zatre_vision.vision.location.calibration import Calibration

from ..fake_picamera2 import ArrayRequest, install


@pytest.fixture(scope="module")
def board_frame():
    src = SyntheticSource(3, 960, 720)
    src.open()
    frame = src.read()
    src.close()
    return frame.image


def test_targets_are_a4_at_300_dpi_with_the_square_size_printed(zatre, tmp_path):
    for kind in ("charuco", "chessboard"):
        out = tmp_path / f"{kind}.png"
        r = zatre("calibrate", "target", str(out), "--kind", kind)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["kind"] == kind
        img = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
        assert img.shape == (3508, 2480)
    spec = TargetSpec("charuco")
    page = render_target(spec, dpi=150)
    corners, ids = cv2.aruco.CharucoDetector(spec.charuco_board()).detectBoard(page)[:2]
    assert ids is not None and len(ids) == (spec.cols - 1) * (spec.rows - 1)
    with pytest.raises(ValueError, match="do not fit"):
        render_target(TargetSpec("chessboard", 12, 16, 40.0))


def _views(spec: TargetSpec, n: int, seed: int = 1):
    """Photos of the printed target under varied tilts (an ideal pinhole camera)."""
    page = render_target(spec, dpi=100)
    h, w = page.shape
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[250, 120], [870, 160], [900, 860], [220, 820]])
        dst += rng.uniform(-90, 90, dst.shape).astype(np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(page, m, (1280, 960), borderValue=200)
        out.append((f"view{i}.png", cv2.GaussianBlur(img, (3, 3), 0)))
    return out


def test_lens_calibration_from_chessboard_views():
    spec = TargetSpec("chessboard", 7, 10, 20.0)
    res = calibrate_lens(_views(spec, 7), spec)
    # free homographies are not all one pinhole camera: the fit is only roughly exact
    assert len(res["views"]) == 7 and res["rms_px"] < 5.0
    assert np.asarray(res["K"])[0][0] > 0 and len(res["dist"]) == 5
    k_mat, dist = lens_for_size(res, 640, 480)
    assert k_mat[0, 2] == pytest.approx(np.asarray(res["K"])[0][2] / 2)
    with pytest.raises(LensError, match="aspect ratio"):
        lens_for_size(res, 640, 640)


def test_lens_calibration_needs_enough_views():
    spec = TargetSpec("chessboard", 7, 10, 20.0)
    blank = [(f"b{i}.png", np.full((960, 1280), 128, np.uint8)) for i in range(3)]
    with pytest.raises(LensError, match="found in 2 of 5 photos; at least 5"):
        calibrate_lens(_views(spec, 2) + blank, spec)


def test_board_registration_writes_the_calibration_file(zatre, tmp_path, board_frame):
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), board_frame)
    out = tmp_path / "cal.json"
    files.save_controls(out, {"AeEnable": False, "ExposureTime": 9000})  # exposure first
    r = zatre("calibrate", "board", str(img), "--out", str(out))
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["board_found"] and len(res["corners"]) == 4
    assert (tmp_path / "cal.preview.jpg").stat().st_size > 1000
    cal = Calibration.load(out)  # the vision package's own loader reads it
    assert (cal.model.width, cal.model.height) == (960, 720)
    assert files.load_controls(out) == {"AeEnable": False, "ExposureTime": 9000}  # kept
    np.testing.assert_allclose(np.asarray(res["corners"]), cal.model.corners(), atol=0.01)


def test_board_registration_without_a_board_is_a_plain_error(zatre, tmp_path):
    with pytest.raises(RegistrationError, match="no board found"):
        register_board(np.full((480, 640, 3), 40, np.uint8))
    img = tmp_path / "empty.png"
    cv2.imwrite(str(img), np.full((480, 640, 3), 40, np.uint8))
    r = zatre("calibrate", "board", str(img), "--out", str(tmp_path / "c.json"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no board found" in r.stderr


def test_files_keep_each_others_parts(tmp_path, board_frame):
    path = tmp_path / "cal.json"
    assert files.load_board(path) is None and files.load_controls(path) == {}
    reg = register_board(board_frame)
    files.save_board(path, reg.calibration)
    files.save_controls(path, {"AwbEnable": False, "ColourGains": (1.6, 1.3)})
    assert files.load_board(path).line_score == pytest.approx(reg.calibration.line_score, abs=1e-3)
    assert files.load_controls(path)["ColourGains"] == (1.6, 1.3)
    (tmp_path / "bad.json").write_text('{"camera_controls": {"Brightness": 1}}')
    with pytest.raises(Exception, match="unknown camera control"):
        files.load_controls(tmp_path / "bad.json")


class MeteredCamera:
    """A fake picamera2.Picamera2 whose auto exposure settles over a few frames."""

    instances = []

    def __init__(self, num=0):
        self.controls = {}
        self.reads = 0
        self.started = self.closed = False
        MeteredCamera.instances.append(self)

    def create_preview_configuration(self, main=None, lores=None):
        return {"main": main, "lores": lores}

    def configure(self, config):
        self.config = config

    def set_controls(self, controls):
        self.controls.update(controls)

    def start(self):
        self.started = True

    def capture_metadata(self):
        self.reads += 1
        settle = min(self.reads, 5)
        return {"ExposureTime": 20000 - 1000 * settle, "AnalogueGain": 2.0 + 0.1 * settle,
                "ColourGains": (1.8, 1.4), "Lux": 300.0}

    def capture_array(self, stream):
        w, h = self.config[stream]["size"]
        return np.full((h * 3 // 2, w) if stream == "lores" else (h, w, 3), 90, np.uint8)

    def capture_request(self):
        return ArrayRequest(self)

    def stop(self):
        pass

    def close(self):
        self.closed = True


@pytest.fixture
def fake_picamera2(monkeypatch):
    return install(monkeypatch, "picamera2", MeteredCamera)


def test_exposure_lock_waits_for_auto_exposure_to_settle(fake_picamera2):
    controls, settled = lock_exposure((1280, 960), settle_s=5, sleep=lambda s: None)
    cam = MeteredCamera.instances[0]
    assert settled and cam.controls == {"AeEnable": True, "AwbEnable": True} and cam.closed
    assert controls == {"AeEnable": False, "ExposureTime": 15000, "AnalogueGain": 2.5,
                        "AwbEnable": False, "ColourGains": (1.8, 1.4)}


def test_exposure_lock_without_picamera2_is_a_plain_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(ExposureError, match="picamera2 is not installed"):
        lock_exposure()


def test_live_pi_camera_applies_the_locked_controls(fake_picamera2, tmp_path, board_frame):
    from zatre_vision.tracking.sources import camera_service

    path = tmp_path / "cal.json"
    controls, _ = lock_exposure(settle_s=5, sleep=lambda s: None)
    files.save_controls(path, controls)
    service = camera_service(table=None, spec="picamera2", calibration=str(path),
                             size=(1280, 960))
    inner = service.source.source if hasattr(service.source, "source") else None
    src = inner or service.source
    src.open()
    cam = MeteredCamera.instances[-1]
    assert cam.controls["AeEnable"] is False and cam.controls["ExposureTime"] == 15000
    assert cam.controls["ColourGains"] == (1.8, 1.4)
    assert src.read().image.shape == (960, 1280, 3)
    src.close()
