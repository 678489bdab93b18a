"""`zatre doctor` and `zatre serve` say what to do (issue 52): the permission hint, no
GPIO line blaming the gpio group off a Pi (and no raw gpiozero warnings), a fix on the
libraries line, and the program that holds the service's port, in doctor and in the
journal (serve's stderr) when serve cannot listen."""

import os
import socket
import subprocess
import sys
from pathlib import Path

from zatre_vision import doctor
from zatre_vision.config import GPIOSettings
from zatre_vision.doctor import FAIL, OK
from zatre_vision.import_check import ImportResult
from zatre_vision.port_holder import Holder, describe_holders, port_holders


def listening_socket():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s, s.getsockname()[1]


def test_the_holder_of_a_port_is_named():
    s, port = listening_socket()
    try:
        holders = port_holders(port)
        assert [h.pid for h in holders] == [os.getpid()]
        assert "python" in holders[0].name
        assert f"(pid {os.getpid()})" in describe_holders(port)
        c = doctor.check_port(port)
        assert c.level == FAIL and f"pid {os.getpid()}" in c.message
        assert "set another server.port" in c.message
    finally:
        s.close()
    assert port_holders(port) == []
    assert doctor.check_port(port).level == OK
    # the service itself on its port is fine; a holder root alone could name is said so
    assert doctor.check_port(80, [Holder(812, "/opt/zatre/venv/bin/python3 "
                                               "/opt/zatre/venv/bin/zatre serve")]).level == OK
    hidden = doctor.check_port(80, [Holder(None)])
    assert hidden.level == FAIL and "sudo ss -ltnp" in hidden.message


def test_serve_names_the_program_on_its_port_and_exits_for_a_restart(tmp_path):
    s, port = listening_socket()
    try:
        r = subprocess.run([sys.executable, "-m", "zatre_vision", "serve", "--source", "none",
                            "--host", "127.0.0.1", "--port", str(port), "--data-dir",
                            str(tmp_path / "data"), "--pin", "4821"],
                           capture_output=True, text=True, timeout=60)
    finally:
        s.close()
    errors = [ln for ln in r.stderr.splitlines() if "error" in ln]
    assert r.returncode == 1, r.stderr  # not 2 (bad settings): systemd tries again
    assert len(errors) == 1 and f"(pid {os.getpid()})" in errors[0]
    assert f"cannot listen on 127.0.0.1:{port}" in errors[0]


def test_the_installed_settings_unreadable_say_to_run_as_the_service_user(tmp_path,
                                                                         monkeypatch):
    """As the pi user: /etc/zatre/config.yaml is 0640 root:zatre (root reads anything,
    so the refusal is made by a stand-in read)."""
    cfg = tmp_path / "config.yaml"
    cfg.write_text("server:\n  port: 80\n")
    plain_read = Path.read_text

    def read_text(self, *a, **k):
        if self == cfg:
            raise PermissionError(13, "Permission denied", str(self))
        return plain_read(self, *a, **k)
    with monkeypatch.context() as m:
        m.setattr(Path, "read_text", read_text)
        c, settings = doctor.check_config(None, env={}, installed=cfg)
    assert settings is None and c.level == FAIL
    assert f"{cfg}: cannot be read by this user" in c.message
    assert "run sudo -u zatre zatre doctor" in c.message
    # found by itself: the line says which file and how
    good = tmp_path / "good.yaml"
    good.write_text("server:\n  port: 8080\n")
    c, settings = doctor.check_config(None, env={}, installed=good)
    assert c.level == OK and f"{good}, installed" in c.message and settings.server.port == 8080
    c, _ = doctor.check_config(None, env={"ZATRE_CONFIG": str(good)},
                               installed=tmp_path / "none.yaml")
    assert f"{good}, ZATRE_CONFIG" in c.message


def test_a_permission_error_in_a_check_names_the_command_to_run():
    def denied():
        raise PermissionError(13, "Permission denied", "/var/lib/zatre")
    c = doctor._guarded("database", denied)
    assert c.level == FAIL and "/var/lib/zatre" in c.message
    assert c.message.endswith("run sudo -u zatre zatre doctor")


def test_off_a_pi_the_gpio_line_blames_no_group_and_prints_no_warnings(monkeypatch):
    monkeypatch.setattr(doctor, "on_a_pi", lambda: False)
    c = doctor.check_gpio(GPIOSettings(enabled=True))
    assert c.level == OK and "not a Raspberry Pi" in c.message and "group" not in c.message
    # the command as a process: no raw gpiozero warning reaches the screen
    code = ("import warnings, gpiozero.pins\n"
            "from zatre_vision import doctor\n"
            "from zatre_vision.config import GPIOSettings\n"
            "def claim(g):\n"
            "    warnings.warn('Falling back from lgpio', gpiozero.PinFactoryFallback)\n"
            "    raise RuntimeError('BadPinFactory: Unable to load any default pin factory!')\n"
            "print(doctor.check_gpio(GPIOSettings(enabled=True), claim=claim).line())\n")
    r = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "" and r.stdout.startswith("FAIL  gpio:")


def test_the_libraries_line_gives_a_fix():
    def sigill(name, python):
        if name == "onnxruntime":
            return ImportResult(name, False, "the import killed the process with SIGILL "
                                             "(illegal instruction: this build does not run "
                                             "on this CPU)")
        return ImportResult(name, True, "1.0")
    c = doctor.check_libraries("picamera2", run=sigill)
    assert c.level == FAIL and "Fix:" in c.message and "onnxruntime 1.20.1" in c.message
    assert "sudo ./firmware_config/install.sh" in c.message

    def abi(name, python):
        if name == "picamera2":
            return ImportResult(name, False, "ValueError: numpy.dtype size changed")
        return ImportResult(name, True, "1.0")
    c = doctor.check_libraries("picamera2", run=abi)
    assert "the venv keeps the OS's numpy" in c.message
    assert doctor.check_libraries("none", run=lambda n, p: ImportResult(n, True, "1")).level == OK
