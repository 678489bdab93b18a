"""The Pi camera against a stand-in picamera2 module that behaves as the real one does
where this source relies on it: one capture_request() per frame (both streams from it),
frame-duration and flicker controls set, only the controls the camera has, autofocus
run once during the calibration and the lens then locked (issue 45)."""


import numpy as np
import pytest

from zatre_vision.calibrate import files
from zatre_vision.calibrate.exposure import ExposureError, lock_exposure
from zatre_vision.camera.base import SourceError
from zatre_vision.camera.picamera import AF_AUTO, AF_CONTINUOUS, AF_MANUAL, Picamera2Source

from ..fake_picamera2 import install


class Request:
    def __init__(self, cam, n):
        self.cam, self.n, self.released = cam, n, False

    def make_array(self, stream):
        assert not self.released, "array made from a released request"
        w, h = self.cam.config[stream]["size"]
        if stream == "lores":
            return np.full((h * 3 // 2, w), self.n % 256, np.uint8)  # YUV420
        return np.full((h, w, 3), self.n % 256, np.uint8)

    def get_metadata(self):
        return {"LensPosition": self.cam.lens, "FrameDuration": 200000}

    def release(self):
        self.released = True
        self.cam.released += 1


class StandInCamera:
    instances = []
    #: what a Camera Module 3 lists (name -> (min, max, default))
    CONTROLS = {"FrameDurationLimits": (33333, 120000000, None), "AeEnable": (False, True, True),
                "ExposureTime": (0, 66666, None), "AnalogueGain": (1.0, 16.0, None),
                "AwbEnable": (False, True, True), "ColourGains": (0.0, 32.0, None),
                "AeFlickerMode": (0, 1, 0), "AeFlickerPeriod": (100, 1000000, None),
                "AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0), "LensPosition": (0.0, 15.0, 1.0)}

    def __init__(self, num=0, autofocus=True):
        self.camera_controls = dict(self.CONTROLS)
        if not autofocus:
            for key in ("AfMode", "AfTrigger", "LensPosition"):
                del self.camera_controls[key]
        self.set = []  # every set_controls call, in order
        self.requests = self.released = self.array_calls = self.af_cycles = 0
        self.lens = 1.0
        self.started = False
        StandInCamera.instances.append(self)

    def create_preview_configuration(self, main=None, lores=None):
        return {"main": main, "lores": lores}

    def configure(self, config):
        self.config = config

    def set_controls(self, controls):
        unknown = set(controls) - set(self.camera_controls)
        assert not unknown, f"picamera2 raises for controls the camera lacks: {unknown}"
        self.set.append(dict(controls))
        if controls.get("AfMode") == AF_MANUAL and "LensPosition" in controls:
            self.lens = controls["LensPosition"]

    def controls(self):
        merged = {}
        for c in self.set:
            merged.update(c)
        return merged

    def start(self):
        self.started = True

    def capture_request(self):
        self.requests += 1
        return Request(self, self.requests)

    def capture_array(self, stream="main"):
        self.array_calls += 1  # the old way: one capture per stream
        return Request(self, 0).make_array(stream)

    def capture_metadata(self):
        settle = min(self.requests + self.af_cycles + len(self.set), 5)
        return {"ExposureTime": 15000, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4),
                "LensPosition": self.lens, "Lux": 300.0 + 0 * settle}

    def autofocus_cycle(self):
        assert self.controls().get("AfMode") == AF_AUTO, "autofocus needs AfMode auto"
        self.af_cycles += 1
        self.lens = 2.21  # dioptres: about 45 cm away
        return True

    def stop(self):
        self.started = False

    def close(self):
        pass


@pytest.fixture
def standin(monkeypatch):
    return install(monkeypatch, "picamera2", StandInCamera)


def test_one_request_per_frame_gives_both_streams(standin):
    src = Picamera2Source(1280, 960, fps=5)
    src.open()
    frames = [src.read() for _ in range(6)]
    cam = StandInCamera.instances[0]
    assert cam.requests == 6 and cam.released == 6 and cam.array_calls == 0
    # main and lores are the same moment: both carry the request's number
    for n, f in enumerate(frames, start=1):
        assert f.image[0, 0, 0] == n and f.lores[0, 0] == n
        assert f.image.shape == (960, 1280, 3) and f.lores.shape == (240, 320)
    assert src.metadata["LensPosition"] == 2.21  # focused once at open (below)
    src.close()


@pytest.mark.parametrize("fps,hz,duration,period", [(5, 50, 200000, 10000),
                                                     (10, 60, 100000, 8333),
                                                     (2.5, 0, 400000, None)])
def test_frame_duration_and_flicker_controls_are_set(standin, fps, hz, duration, period):
    src = Picamera2Source(fps=fps, flicker_hz=hz)
    src.open()
    controls = StandInCamera.instances[0].controls()
    assert controls["FrameDurationLimits"] == (duration, duration)
    assert controls.get("AeFlickerPeriod") == period
    assert controls.get("AeFlickerMode") == (1 if period else None)


def test_calibration_focuses_then_locks_the_lens_beside_the_exposure(standin, tmp_path):
    controls, settled = lock_exposure((1280, 960), settle_s=1, sleep=lambda s: None)
    cam = StandInCamera.instances[0]
    assert cam.af_cycles == 1
    assert controls["AfMode"] == AF_MANUAL and controls["LensPosition"] == 2.21
    assert controls["AeEnable"] is False and controls["AwbEnable"] is False
    # AF ran in auto mode and the manual lock came after it
    modes = [c["AfMode"] for c in cam.set if "AfMode" in c]
    assert modes == [AF_AUTO, AF_MANUAL]
    assert cam.set[0]["AeFlickerPeriod"] == 10000  # AE settled with flicker avoidance
    path = tmp_path / "cal.json"
    files.save_controls(path, controls)
    assert files.load_controls(path)["LensPosition"] == 2.21

    # the live camera then opens with the lens held there: no autofocus runs again
    live = Picamera2Source(controls=files.load_controls(path))
    live.open()
    cam2 = StandInCamera.instances[-1]
    assert cam2.controls()["AfMode"] == AF_MANUAL and cam2.lens == 2.21
    live.read()
    assert cam2.af_cycles == 0


def test_a_camera_without_autofocus_gets_no_af_controls(standin, monkeypatch):
    monkeypatch.setattr(StandInCamera, "__init__",
                        lambda self, num=0, _init=StandInCamera.__init__: _init(self, num, False))
    controls, _ = lock_exposure(settle_s=1, sleep=lambda s: None)
    assert "AfMode" not in controls and "LensPosition" not in controls
    # a calibration with a lens lock, used on a camera without AF, is not an error
    src = Picamera2Source(controls={"AfMode": AF_MANUAL, "LensPosition": 2.0})
    src.open()
    assert "AfMode" not in StandInCamera.instances[-1].controls()


def test_a_failed_autofocus_is_a_plain_error(standin, monkeypatch):
    monkeypatch.setattr(StandInCamera, "autofocus_cycle", lambda self: False)
    with pytest.raises(ExposureError, match="autofocus found nothing sharp"):
        lock_exposure(settle_s=1, sleep=lambda s: None)


def test_a_picamera2_that_fails_to_load_is_one_line(monkeypatch):
    def boom(name):
        raise ValueError("numpy.dtype size changed, may indicate binary incompatibility. "
                         "Expected 96 from C header, got 88 from PyObject")

    monkeypatch.setattr("importlib.import_module", boom)
    with pytest.raises(SourceError, match="picamera2 cannot be loaded .*ValueError: numpy.dtype"):
        Picamera2Source().open()


def test_a_usb_camera_is_asked_for_fps_in_mjpg_with_one_buffer():
    import cv2

    from zatre_vision.camera.opencv_source import OpenCVSource

    class Capture:
        def __init__(self, spec):
            self.props = {}

        def isOpened(self):
            return True

        def set(self, prop, value):
            self.props[prop] = value

    made = []
    src = OpenCVSource("0", 1280, 960, fps=5, capture=lambda s: made.append(Capture(s)) or made[-1])
    src.open()
    props = made[0].props
    assert props[cv2.CAP_PROP_FPS] == 5 and props[cv2.CAP_PROP_BUFFERSIZE] == 1
    assert props[cv2.CAP_PROP_FOURCC] == cv2.VideoWriter_fourcc(*"MJPG")
    assert (props[cv2.CAP_PROP_FRAME_WIDTH], props[cv2.CAP_PROP_FRAME_HEIGHT]) == (1280, 960)


def test_a_camera_module_3_focuses_once_on_the_board_at_start_and_locks_it(standin):
    """No calibration: the first open runs one autofocus cycle and holds the lens there;
    frames then never refocus, and a reopen (reconnect) keeps the same lens position."""
    src = Picamera2Source()
    src.open()
    cam = StandInCamera.instances[-1]
    assert cam.af_cycles == 1
    assert [c["AfMode"] for c in cam.set if "AfMode" in c] == [AF_AUTO, AF_MANUAL]
    assert cam.lens == 2.21 and "locked at 2.21 dioptres" in src.focus
    for _ in range(5):
        src.read()
    assert cam.af_cycles == 1 and cam.controls()["AfMode"] == AF_MANUAL
    src.close()
    src.open()  # the reconnect logic reopens: no second cycle, same lens
    again = StandInCamera.instances[-1]
    assert again.af_cycles == 0 and again.lens == 2.21


def test_a_focus_that_finds_nothing_sharp_leaves_continuous_autofocus(standin, monkeypatch):
    monkeypatch.setattr(StandInCamera, "autofocus_cycle", lambda self: False)
    src = Picamera2Source()
    src.open()  # not an error: the camera still gives frames
    cam = StandInCamera.instances[-1]
    assert cam.controls()["AfMode"] == AF_CONTINUOUS
    assert "continuous autofocus" in src.focus and "nothing sharp" in src.focus
    frame = src.read()   # a new request's frame, both streams
    assert frame.image[0, 0, 0] == cam.requests and frame.lores[0, 0] == cam.requests
    assert cam.requests >= 1 and cam.released == cam.requests


def test_a_camera_without_autofocus_is_not_focused(standin, monkeypatch):
    monkeypatch.setattr(StandInCamera, "__init__",
                        lambda self, num=0, _init=StandInCamera.__init__: _init(self, num, False))
    src = Picamera2Source()
    src.open()
    assert src.focus == "" and "AfMode" not in StandInCamera.instances[-1].controls()
