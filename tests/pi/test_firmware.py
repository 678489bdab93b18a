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
                       ("etc/zatre/config.yaml", "0o640"), ("etc/zatre/zatre.env", "0o640"),
                       ("etc/avahi/services/zatre.service", "0o644"),
                       ("etc/systemd/system.conf.d/zatre-watchdog.conf", "0o644"),
                       ("boot/firmware/zatre-camera.txt", "0o644"),
                       ("usr/local/sbin/zatre-hotspot", "0o755")]:
        assert files[path][1] == mode, path
    assert (root / "boot/firmware/config.txt").read_text().count("include zatre-camera.txt") == 1
    assert (root / "var/lib/zatre").is_dir() and (root / "opt/zatre").is_dir()
    assert os.readlink(root / "usr/local/bin/zatre") == "/opt/zatre/venv/bin/zatre"
    # the include goes under [all], whatever section config.txt ended with
    config_txt = (root / "boot/firmware/config.txt").read_text()
    assert "[all]\n# Zatre Vision (camera)\ninclude zatre-camera.txt" in config_txt
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
    # the whole system install, as on a Pi (Bookworm here; both releases:
    # test_install_release.py): every step shown, nothing done
    release = tmp_path / "os-release"
    release.write_text("ID=debian\nVERSION_CODENAME=bookworm\n")
    r = sh(INSTALL, "--dry-run", "--hostname", "zatre-test-host",
           env={"ZATRE_OS_RELEASE": str(release)})
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "python3 -m venv --system-site-packages /opt/zatre/venv" in out or \
        Path("/opt/zatre/venv/bin/python").exists()
    assert "onnxruntime==1.20.1" in out or Path("/opt/zatre/.installed").exists()
    assert "--require-hashes -r /opt/zatre/src/firmware_config/locks/bookworm.txt" in out or \
        Path("/opt/zatre/.installed").exists()
    assert "zatre_vision.import_check numpy cv2 onnxruntime picamera2" in out or \
        Path("/opt/zatre/.installed").exists()
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


def test_the_include_lands_under_all_after_a_section(tmp_path):
    root = tmp_path / "root"
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text("dtparam=audio=on\n[cm4]\notg_mode=1\n")
    assert sh(INSTALL, "--prefix", root).returncode == 0
    lines = (root / "boot/firmware/config.txt").read_text().splitlines()
    inc = lines.index("include zatre-camera.txt")
    sections = [ln for ln in lines[:inc] if ln.startswith("[")]
    assert sections[-1] == "[all]"


def test_avahi_announces_the_port_of_the_settings(tmp_path):
    root = tmp_path / "root"
    (root / "etc/zatre").mkdir(parents=True)
    (root / "etc/zatre/config.yaml").write_text(
        "# port: 1\nui:\n  port: 2\nserver:\n  host: 0.0.0.0\n  port: 8080   # mine\n")
    assert sh(INSTALL, "--prefix", root).returncode == 0
    avahi = (root / "etc/avahi/services/zatre.service").read_text()
    assert "<port>8080</port>" in avahi and "<port>80</port>" not in avahi
    # an existing settings file is made 0640 (it may hold the PIN)
    assert oct((root / "etc/zatre/config.yaml").stat().st_mode & 0o777) == "0o640"


def test_uninstall_keeps_settings_and_games_unless_purged(tmp_path):
    root = tmp_path / "root"
    assert sh(INSTALL, "--prefix", root).returncode == 0
    (root / "var/lib/zatre/zatre.db").write_text("games")
    r = sh(INSTALL, "--uninstall", "--prefix", root)
    assert r.returncode == 0, r.stderr
    for gone in ("etc/systemd/system/zatre.service", "etc/avahi/services/zatre.service",
                 "usr/local/bin/zatre", "usr/local/sbin/zatre-hotspot", "opt/zatre",
                 "boot/firmware/zatre-camera.txt"):
        assert not (root / gone).exists() and not (root / gone).is_symlink(), gone
    assert "include zatre-camera.txt" not in (root / "boot/firmware/config.txt").read_text()
    assert (root / "etc/zatre/config.yaml").is_file()
    assert (root / "var/lib/zatre/zatre.db").read_text() == "games"
    dry = sh(INSTALL, "--uninstall", "--purge", "--dry-run", "--prefix", root)
    assert dry.returncode == 0 and "+ rm -rf" in dry.stdout
    assert (root / "var/lib/zatre/zatre.db").exists()
    assert sh(INSTALL, "--uninstall", "--purge", "--prefix", root).returncode == 0
    assert not (root / "etc/zatre").exists() and not (root / "var/lib/zatre").exists()
    assert sh(INSTALL, "--purge", "--prefix", root).returncode == 2


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed (apt install systemd)")
def test_unit_is_hardened_and_does_not_loop_on_bad_settings(tmp_path):
    text = UNIT.read_text()
    lines = text.splitlines()
    for key in ("Type=notify", "RestartPreventExitStatus=2", "NotifyAccess=main"):
        assert key in lines
    assert any(ln.startswith("WatchdogSec=") for ln in lines)
    r = sh("systemd-analyze", "security", "--offline=yes", UNIT)
    found = [ln for ln in (r.stdout + r.stderr).splitlines() if "Overall exposure" in ln]
    if not found:
        pytest.skip("this systemd-analyze has no offline security check")
    exposure = float(found[0].split("zatre.service:")[1].split()[0])
    assert exposure <= 3.0, found[0]
