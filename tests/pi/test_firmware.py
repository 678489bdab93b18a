"""firmware_config/: the install script (shellcheck, dry run, an install into a folder,
idempotence), the systemd unit (systemd-analyze verify), the example settings and the
hotspot helper (against a fake nmcli)."""

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from zatre_vision.config import load_settings

FW = Path(__file__).resolve().parents[2] / "firmware_config"
INSTALL = FW / "install.sh"
UNIT = FW / "etc/systemd/system/zatre.service"


def sh(*args, env=None, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})}, **kw)


def tree(root: Path) -> dict:
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(),
                                       oct(p.stat().st_mode & 0o777))
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.skipif(shutil.which("shellcheck") is None,
                    reason="shellcheck is not installed (.ci/run installs it with apt)")
def test_shellcheck_is_clean():
    r = sh("shellcheck", INSTALL, FW / "hotspot/zatre-hotspot")
    assert r.returncode == 0, r.stdout + r.stderr


def test_install_into_a_folder_is_complete_and_idempotent(tmp_path):
    root = tmp_path / "root"
    first = sh(INSTALL, "--prefix", root)
    assert first.returncode == 0, first.stderr
    assert "done" in first.stdout
    files = tree(root)
    for path, mode in [("etc/systemd/system/zatre.service", "0o644"),
                       ("etc/zatre/config.yaml", "0o644"), ("etc/zatre/zatre.env", "0o640"),
                       ("etc/avahi/services/zatre.service", "0o644"),
                       ("etc/systemd/system.conf.d/zatre-watchdog.conf", "0o644"),
                       ("boot/firmware/zatre-camera.txt", "0o644"),
                       ("usr/local/sbin/zatre-hotspot", "0o755")]:
        assert files[path][1] == mode, path
    assert (root / "boot/firmware/config.txt").read_text().count("include zatre-camera.txt") == 1
    assert (root / "var/lib/zatre").is_dir() and (root / "opt/zatre").is_dir()
    second = sh(INSTALL, "--prefix", root)
    assert second.returncode == 0
    assert "nothing to do" in second.stdout
    assert tree(root) == files


def test_install_keeps_edited_settings_and_updates_the_unit(tmp_path):
    root = tmp_path / "root"
    sh(INSTALL, "--prefix", root)
    cfg = root / "etc/zatre/config.yaml"
    cfg.write_text("server:\n  port: 8080\n")
    unit = root / "etc/systemd/system/zatre.service"
    unit.write_text("[Unit]\nDescription=old\n")
    r = sh(INSTALL, env={"ZATRE_ROOT": str(root)})
    assert r.returncode == 0
    assert "keeping your /etc/zatre/config.yaml" in r.stdout
    assert cfg.read_text() == "server:\n  port: 8080\n"
    assert unit.read_text() == UNIT.read_text()


def test_dry_run_prints_the_commands_and_changes_nothing(tmp_path):
    r = sh(INSTALL, "--dry-run", "--prefix", tmp_path / "root")
    assert r.returncode == 0, r.stderr
    assert "+ install -D -m 0644" in r.stdout and "dry run:" in r.stdout
    assert not (tmp_path / "root").exists()
    # the whole system install, as on a Pi: every step shown, nothing done
    r = sh(INSTALL, "--dry-run", "--hostname", "zatre-test-host")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "python3 -m venv --system-site-packages /opt/zatre/venv" in out or \
        Path("/opt/zatre/venv/bin/python").exists()
    assert "onnxruntime==1.20.1" in out or Path("/opt/zatre/.installed").exists()
    if not Path("/etc/systemd/system/zatre.service").exists():
        assert "/etc/systemd/system/zatre.service" in out
    assert "hostnamectl set-hostname zatre-test-host" in out


def test_unknown_option_is_refused():
    r = sh(INSTALL, "--frobnicate")
    assert r.returncode == 2 and "unknown option" in r.stderr


def _verify(unit_text: str, tmp_path: Path) -> str:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (apt install systemd)")
    path = tmp_path / "zatre.service"
    path.write_text(unit_text)
    r = sh("systemd-analyze", "verify", "--man=no", path)
    # verify exits 0 even for unknown keys: every line about the unit is a finding
    return "\n".join(line for line in (r.stdout + r.stderr).splitlines()
                     if "zatre.service" in line or r.returncode != 0)


def test_unit_passes_systemd_analyze_verify(tmp_path):
    text = UNIT.read_text()
    exec_line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert exec_line.split()[0] == "ExecStart=/opt/zatre/venv/bin/zatre"  # what install.sh makes
    # the venv binary exists only on the Pi: verify a copy pointing at one that exists
    here = text.replace("ExecStart=/opt/zatre/venv/bin/zatre", f"ExecStart={shutil.which('true')}")
    assert _verify(here, tmp_path) == ""
    for key in ("Restart=always", "User=zatre", "EnvironmentFile=-/etc/zatre/zatre.env",
                "StateDirectory=zatre", "SupplementaryGroups=video gpio", "NoNewPrivileges=true"):
        assert key in text.splitlines()
    # the check is not blind: a misspelt key is found
    broken = here.replace("NoNewPrivileges=", "NoNewPrivilegs=")
    assert "Unknown key" in _verify(broken, tmp_path)


def test_example_settings_are_valid_and_match_the_unit_and_avahi():
    s = load_settings(FW / "etc/zatre/config.yaml")
    assert s.camera.source == "picamera2" and s.gpio.enabled
    assert str(s.server.data_dir) == "/var/lib/zatre"
    avahi = (FW / "etc/avahi/services/zatre.service").read_text()
    assert f"<port>{s.server.port}</port>" in avahi
    assert "WorkingDirectory=/var/lib/zatre" in UNIT.read_text()
    env = (FW / "etc/zatre/zatre.env").read_text()
    assert all(line.startswith(("#", "ZATRE_", "OMP_")) or not line.strip()
               for line in env.splitlines())


def test_hotspot_helper_with_a_fake_nmcli(tmp_path):
    log = tmp_path / "calls"
    fake = tmp_path / "nmcli"
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\n")
    fake.chmod(0o755)
    script = FW / "hotspot/zatre-hotspot"
    r = sh(script, "enable", "short", env={"NMCLI": str(fake)})
    assert r.returncode == 2 and "8 characters" in r.stderr
    r = sh(script, "enable", "zatre-club-42", env={"NMCLI": str(fake)})
    assert r.returncode == 0, r.stderr
    calls = log.read_text()
    assert "connection add type wifi" in calls and "mode ap" in calls
    assert "ipv4.method shared" in calls and "autoconnect-priority -10" in calls
