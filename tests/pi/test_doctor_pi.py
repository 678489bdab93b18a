"""zatre doctor's Pi checks (issue 45): power/throttling, temperature, video group,
architecture, libraries in child processes, GPIO pins really claimed and freed, and a
check that dies of an unforeseen error (PermissionError) is one FAIL line while the
others still run."""

import json
import subprocess
import types

import pytest

from zatre_vision import doctor
from zatre_vision.config import GPIOSettings
from zatre_vision.doctor import FAIL, OK, WARN
from zatre_vision.import_check import ImportResult, check_imports


def vcgencmd(answer):
    def run(cmd, **kw):
        assert cmd == ["vcgencmd", "get_throttled"]
        return types.SimpleNamespace(stdout=f"throttled={answer}\n", returncode=0)
    return run


@pytest.mark.parametrize("value,level,words", [
    ("0x0", OK, "no under-voltage"),
    ("0x50005", FAIL, "under-voltage now"),
    ("0x50000", WARN, "under-voltage since boot"),
    ("0x80008", WARN, "soft temperature limit now"),
])
def test_power(value, level, words):
    c = doctor.check_power(run=vcgencmd(value), which=lambda n: "/usr/bin/vcgencmd")
    assert c.level == level and words in c.message


def test_power_off_a_pi_and_a_broken_vcgencmd():
    assert doctor.check_power(which=lambda n: None).level == OK

    def broken(cmd, **kw):
        raise subprocess.TimeoutExpired(cmd, 5)
    assert doctor.check_power(run=broken, which=lambda n: "/x").level == WARN


@pytest.mark.parametrize("milli,level", [("48312\n", OK), ("77000", WARN), ("84500", FAIL),
                                         ("garbage", WARN)])
def test_temperature(tmp_path, milli, level):
    p = tmp_path / "temp"
    p.write_text(milli)
    assert doctor.check_temperature(str(p)).level == level
    assert doctor.check_temperature(str(tmp_path / "none")).level == OK


def test_video_group():
    assert doctor.check_video_group("picamera2", groups={"zatre", "video"}, uid=999).level == OK
    missing = doctor.check_video_group("0", groups={"zatre"}, uid=999)
    assert missing.level == FAIL and "usermod -aG video" in missing.message
    assert doctor.check_video_group("none", groups=set(), uid=999).level == OK
    assert doctor.check_video_group("picamera2", groups=set(), uid=0).level == OK


def test_architecture():
    assert doctor.check_architecture("aarch64", pi=True).level == OK
    c = doctor.check_architecture("armv7l", pi=True)
    assert c.level == FAIL and "64-bit" in c.message
    assert doctor.check_architecture("x86_64", pi=False).level == OK


def test_libraries_report_each_failure_in_one_line():
    def run(name, python):
        if name == "picamera2":
            return ImportResult(name, False, "ValueError: numpy.dtype size changed, may "
                                             "indicate binary incompatibility")
        if name == "onnxruntime":
            return ImportResult(name, False, "the import killed the process with SIGILL")
        return ImportResult(name, True, "1.24.2")
    c = doctor.check_libraries("picamera2", run=run)
    assert c.level == FAIL and "\n" not in c.message
    assert "picamera2 (ValueError: numpy.dtype" in c.message and "SIGILL" in c.message
    assert "numpy 1.24.2" in c.message


def test_import_check_runs_each_module_in_a_child():
    ok, line = check_imports(("json", "no_such_module_zatre"))
    assert not ok and line.startswith("imports FAILED: no_such_module_zatre (ModuleNotFound")
    assert "OK: json" in line
    ok, line = check_imports(("json",))
    assert ok and line.startswith("imports OK: json ")


def test_a_child_killed_by_a_signal_is_named(tmp_path):
    from zatre_vision.import_check import check_module

    # a "python" that dies of SIGILL, as onnxruntime 1.21+ does on a Pi 4
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nkill -ILL $$\n")
    fake.chmod(0o755)
    r = check_module("onnxruntime", python=str(fake))
    assert not r.ok and "SIGILL" in r.detail and "illegal instruction" in r.detail


def test_gpio_claims_and_frees_the_pins():
    gpio = GPIOSettings(enabled=True, pin_factory="mock")
    c = doctor.check_gpio(gpio)
    assert c.level == OK and "claimed and freed" in c.message
    # freed: claiming again works (a pin still held would raise GPIOPinInUse)
    assert doctor.check_gpio(gpio).level == OK


def test_gpio_that_cannot_be_claimed_is_a_fail():
    def bad(gpio):
        raise RuntimeError("BadPinFactory: Unable to load any default pin factory!")
    c = doctor.check_gpio(GPIOSettings(enabled=True), claim=bad)
    assert c.level == FAIL and "BadPinFactory" in c.message


def test_a_permission_error_fails_one_check_and_the_others_run(tmp_path, zatre, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    (data / "zatre.db").write_text("")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"server:\n  data_dir: {data}\ncamera:\n  source: none\n")

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied", str(data))
    monkeypatch.setattr(doctor, "check_database", denied)
    monkeypatch.setattr(doctor, "check_libraries", lambda src: doctor.Check(OK, "libraries", "x"))
    checks = doctor.run_checks(str(cfg), camera=False)
    names = [c.name for c in checks]
    db = checks[names.index("database")]
    assert db.level == FAIL and f"may not read {data}" in db.message
    assert "sudo -u zatre zatre doctor" in db.message  # what to run instead
    for later in ("time", "power", "temperature", "gpio"):
        assert later in names


def test_doctor_command_lists_the_new_checks(zatre, tmp_path):
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"server:\n  data_dir: {tmp_path / 'data'}\ncamera:\n  source: none\n")
    proc = zatre("doctor", "--no-camera", "--json", "--config", str(cfg))
    out = json.loads(proc.stdout)
    names = {c["check"] for c in out["checks"]}
    assert {"architecture", "libraries", "power", "temperature", "video group",
            "gpio"} <= names
    libs = next(c for c in out["checks"] if c["check"] == "libraries")
    assert libs["level"] == OK and "cv2" in libs["message"]
