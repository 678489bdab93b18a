"""Frame sources: the Pi camera (against a fake picamera2), OpenCV files, image folders,
and reconnection with back-off."""


import cv2
import numpy as np
import pytest

from zatre_vision.camera.base import LORES_SIZE, SourceError
from zatre_vision.camera.folder import FolderSource
from zatre_vision.camera.opencv_source import OpenCVSource, parse_spec
from zatre_vision.camera.picamera import Picamera2Source
from zatre_vision.camera.reconnect import ReconnectingSource

from ..fake_picamera2 import ArrayRequest, install


class FakePicamera2:
    """The parts of picamera2.Picamera2 the source uses, recording the calls."""

    instances = []

    def __init__(self, num=0):
        self.num = num
        self.calls = []
        self.controls = {}
        self.fail_after = None
        self.captures = 0
        FakePicamera2.instances.append(self)

    def create_preview_configuration(self, main, lores):
        self.calls.append(("config", main, lores))
        return {"main": main, "lores": lores}

    def configure(self, config):
        self.config = config

    def set_controls(self, controls):
        self.controls.update(controls)

    def start(self):
        self.calls.append(("start",))

    def capture_array(self, stream):
        self.captures += 1
        if self.fail_after is not None and self.captures > self.fail_after:
            raise RuntimeError("camera timed out")
        if stream == "main":
            w, h = self.config["main"]["size"]
            return np.full((h, w, 3), 90, np.uint8)
        w, h = self.config["lores"]["size"]
        return np.full((h * 3 // 2, w), 90, np.uint8)  # YUV420: Y plane first

    def capture_request(self):
        return ArrayRequest(self)

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


@pytest.fixture
def fake_picamera2(monkeypatch):
    return install(monkeypatch, "fake_picamera2", FakePicamera2)


def test_picamera2_source_configures_main_and_lores_streams(fake_picamera2):
    src = Picamera2Source(1280, 960, controls={"AeEnable": False}, module="fake_picamera2")
    src.open()
    cam = FakePicamera2.instances[0]
    assert cam.config["main"] == {"size": (1280, 960), "format": "RGB888"}
    assert cam.config["lores"]["size"] == LORES_SIZE
    assert cam.controls == {"AeEnable": False, "FrameDurationLimits": (200000, 200000),
                            "AeFlickerMode": 1, "AeFlickerPeriod": 10000}
    frame = src.read()
    assert frame.image.shape == (960, 1280, 3) and frame.lores.shape == (240, 320)
    assert frame.index == 1
    src.set_controls({"ColourGains": (1.5, 1.2)})
    assert cam.controls["ColourGains"] == (1.5, 1.2)
    src.close()
    assert ("stop",) in cam.calls and ("close",) in cam.calls


def test_picamera2_failures_are_source_errors(fake_picamera2):
    src = Picamera2Source(module="fake_picamera2")
    src.open()
    FakePicamera2.instances[0].fail_after = 0
    with pytest.raises(SourceError, match="stopped delivering"):
        src.read()
    with pytest.raises(SourceError, match="picamera2 is not installed"):
        Picamera2Source(module="no_such_picamera_module").open()


def test_opencv_source_reads_a_video_file_to_its_end(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (320, 240))
    for k in range(6):
        writer.write(np.full((240, 320, 3), 40 * k, np.uint8))
    writer.release()
    src = OpenCVSource(str(path))
    src.open()
    frames = []
    while (f := src.read()) is not None:
        frames.append(f)
    assert len(frames) == 6 and frames[-1].index == 6
    assert frames[0].lores.shape == (240, 320)
    src.close()
    assert parse_spec("0") == 0 and parse_spec("rtsp://cam/1") == "rtsp://cam/1"
    with pytest.raises(SourceError, match="cannot open"):
        OpenCVSource(str(tmp_path / "none.avi")).open()


def test_folder_source_skips_a_corrupt_frame(tmp_path):
    for k in (1, 2, 3):
        cv2.imwrite(str(tmp_path / f"{k:06d}.png"), np.full((48, 64, 3), 60, np.uint8))
    (tmp_path / "000002.png").write_bytes(b"not a png")
    src = FolderSource(tmp_path)
    src.open()
    got = [f.index for f in iter(src.read, None)]
    assert got == [1, 3] and src.skipped == ["000002.png"]


class Dropping:
    name = "dropping"

    def __init__(self, fail_opens, frames):
        self.fail_opens = fail_opens
        self.frames = frames
        self.opened = 0

    def open(self):
        self.opened += 1
        if self.opened in self.fail_opens:
            raise SourceError("camera busy")

    def read(self):
        if not self.frames:
            return None
        item = self.frames.pop(0)
        if item == "drop":
            raise SourceError("unplugged")
        return item

    def close(self):
        pass


def test_reconnect_backs_off_and_reports_state():
    clock = [0.0]
    sleeps = []

    def sleep(s):
        sleeps.append(s)
        clock[0] += s

    states = []
    inner = Dropping({2, 3}, ["f1", "drop", "f2"])
    src = ReconnectingSource(inner, first_delay=0.5, sleep=sleep, clock=lambda: clock[0],
                             on_status=lambda st: states.append(st.state))
    src.open()
    out = []
    for _ in range(40):
        f = src.read()
        if f is not None:
            out.append(f)
        if src.ended:
            break
    assert out == ["f1", "f2"]
    changes = [s for k, s in enumerate(states) if k == 0 or states[k - 1] != s]
    assert changes == ["ok", "reconnecting", "ok", "ended"]
    assert src.status.reconnects == 3  # two failed reopenings, then one that worked
    assert clock[0] >= 0.5 + 1.0  # waited 0.5 s, then 1 s (doubling)


class OpensButNeverReads:
    """A camera that opens every time and fails on the first read (a cable that
    half works)."""

    name = "flaky"

    def __init__(self):
        self.opens = 0

    def open(self):
        self.opens += 1

    def read(self):
        raise SourceError("no frame from the camera")

    def close(self):
        pass


def test_a_camera_that_opens_but_never_reads_backs_off_too():
    clock = [0.0]

    def sleep(s):
        clock[0] += s

    published = []
    inner = OpensButNeverReads()
    src = ReconnectingSource(inner, first_delay=0.5, max_delay=10.0, sleep=sleep,
                             clock=lambda: clock[0],
                             on_status=lambda st: published.append(st.reconnects))
    src.open()
    while clock[0] < 60:
        assert src.read() is None
    # 0.5 + 1 + 2 + 4 + 8 + 10 + 10 + 10 + 10 s: about nine opens a minute, not 120
    assert inner.opens <= 12
    assert max(published) == src.status.reconnects   # the tries are published
