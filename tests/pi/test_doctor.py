"""zatre doctor: each check with fakes, and the command's lines and exit status."""

import calendar
import types

import numpy as np

from zatre_vision import doctor
from zatre_vision.camera.base import Frame, SourceError
from zatre_vision.config import GPIOSettings
from zatre_vision.doctor import FAIL, OK, WARN


def ts(year):
    return calendar.timegm((year, 6, 1, 12, 0, 0))


def test_time():
    assert doctor.check_time(ts(1970), ntp=lambda: None).level == FAIL
    assert "battery clock" in doctor.check_time(ts(1970), ntp=lambda: None).message
    assert doctor.check_time(ts(2026), ntp=lambda: False).level == WARN
    ok = doctor.check_time(ts(2026), ntp=lambda: True)
    assert ok.level == OK and "synchronised" in ok.message


def test_disk(tmp_path):
    def usage(free_mb):
        return lambda p: types.SimpleNamespace(free=free_mb * doctor.MB)

    assert doctor.check_disk(tmp_path / "not-yet", usage(5000)).level == OK
    assert doctor.check_disk(tmp_path, usage(600)).level == WARN
    c = doctor.check_disk(tmp_path, usage(100))
    assert c.level == FAIL and "100 MB" in c.message


def test_database(tmp_path):
    from zatre_vision.store import open_store

    fresh = doctor.check_database(tmp_path / "data", None)
    assert fresh.level == OK and "does not exist yet" in fresh.message
    assert not (tmp_path / "data").exists()  # the check creates nothing
    open_store(tmp_path / "data").close()
    c = doctor.check_database(tmp_path / "data", None)
    assert c.level == OK and "schema version" in c.message
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert doctor.check_database(blocker, None).level == FAIL  # data dir is a file


def test_model(tmp_path):
    c = doctor.check_model(tmp_path / "pips.onnx")
    assert c.level == FAIL and "missing" in c.message
    (tmp_path / "pips.onnx").write_bytes(b"not a model")
    card = types.SimpleNamespace(input_size=32,
                                 data={"metrics": {"validation_crops": {"accuracy": 0.998}}})
    good = doctor.check_model(tmp_path / "pips.onnx",
                              loader=lambda p: types.SimpleNamespace(card=card))
    assert good.level == OK and "0.9980" in good.message
    from zatre_vision.vision.reading.classify import ModelError

    def broken(p):
        raise ModelError(f"{p}: unusable model card")

    assert doctor.check_model(tmp_path / "pips.onnx", loader=broken).level == FAIL


class FakeSource:
    def __init__(self, frames=1, fail=None):
        self.frames, self.fail = frames, fail

    def open(self):
        if self.fail:
            raise SourceError(self.fail)

    def read(self):
        img = np.zeros((960, 1280, 3), np.uint8)
        return Frame(img, img[:240, :320, 0], 1, 0.0) if self.frames else None

    def close(self):
        pass


def test_camera(tmp_path):
    assert doctor.check_camera("none").level == OK
    assert doctor.check_camera("demo").level == OK
    c = doctor.check_camera("picamera2", module="no_such_picamera2_module")
    assert c.level == FAIL and "apt install python3-picamera2" in c.message
    c = doctor.check_camera("0", video_glob=str(tmp_path / "video*"))
    assert c.level == FAIL and "no video device" in c.message
    ok = doctor.check_camera("cam", open_source=lambda s, size: FakeSource())
    assert ok.level == OK and "1280x960" in ok.message
    bad = doctor.check_camera("cam", open_source=lambda s, size: FakeSource(fail="unplugged"))
    assert bad.level == FAIL and "unplugged" in bad.message
    assert doctor.check_camera("cam", open_source=lambda s, size: FakeSource(0)).level == FAIL


def test_calibration_and_gpio(tmp_path):
    assert doctor.check_calibration(tmp_path / "c.json", "none").level == OK
    assert doctor.check_calibration(tmp_path / "c.json", "picamera2").level == WARN
    (tmp_path / "c.json").write_text("{broken")
    assert doctor.check_calibration(tmp_path / "c.json", "picamera2").level == FAIL
    assert doctor.check_gpio(GPIOSettings()).level == OK


def test_command_lines_and_status(zatre, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"server:\n  data_dir: {tmp_path / 'data'}\n")
    r = zatre("doctor", "--config", str(cfg), "--model", str(tmp_path / "none.onnx"))
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["OK", "OK"]
    assert any(line.startswith("FAIL  model:") for line in lines)
    assert any(line.startswith(("OK    database:",)) for line in lines)
    cfg.write_text("server:\n  prot: 80\n")
    r = zatre("doctor", "--config", str(cfg), "--json")
    assert r.returncode == 1 and 'server.prot: unknown key' in r.stdout


def test_board_model(tmp_path):
    """The board finder is optional: missing or broken is a warning, not a failure."""
    missing = doctor.check_board_model(tmp_path / "board.onnx")
    assert missing.level == WARN and "missing" in missing.message
    (tmp_path / "board.onnx").write_bytes(b"not a model")
    broken = doctor.check_board_model(tmp_path / "board.onnx")
    assert broken.level == WARN and "classical" in broken.message
    from zatre_vision.vision.location.board_net import DEFAULT_BOARD_MODEL

    assert doctor.check_board_model(DEFAULT_BOARD_MODEL).level == OK
