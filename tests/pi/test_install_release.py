"""install.sh on the Raspberry Pi OS releases of today (issue 52): Trixie (the Imager's
default, Python 3.13, numpy 2) and Bookworm (Python 3.11, numpy 1.24) each get their own
lock file (issue 63: every package pinned with its hashes); another release, or a 32-bit
(armhf) user space, is refused in one line before anything changes; a dry run lists
every change a real run makes; uninstall leaves the root as it found it (host name,
hotspot connection, config.txt).

The release comes from a fake root's ``etc/os-release`` and the architecture from a fake
``dpkg`` first on PATH: the two things the script asks the system about its release."""

import hashlib
import os
import re
import subprocess
from pathlib import Path

import pytest

FW = Path(__file__).resolve().parents[2] / "firmware_config"
INSTALL = FW / "install.sh"
CONFIG_TXT = "# Raspberry Pi config\ndtparam=audio=on\n[cm4]\notg_mode=1\n[all]\n"
FLASH = "flash Raspberry Pi OS (64-bit) Trixie with Raspberry Pi Imager"


def fake_root(base: Path, codename: str | None) -> Path:
    """A root as a fresh card has it: os-release, host name, hosts, config.txt."""
    root = base / "root"
    (root / "etc").mkdir(parents=True)
    if codename is not None:
        (root / "etc/os-release").write_text(
            'PRETTY_NAME="Debian GNU/Linux"\nID=debian\n'
            f'VERSION_CODENAME={codename}\n')
    (root / "etc/hostname").write_text("raspberrypi\n")
    (root / "etc/hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n")
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(CONFIG_TXT)
    return root


def fake_dpkg(base: Path, arch: str) -> dict:
    """PATH with a ``dpkg`` that answers ``--print-architecture`` with ``arch``."""
    bin_dir = base / f"bin-{arch}"
    bin_dir.mkdir()
    dpkg = bin_dir / "dpkg"
    dpkg.write_text(f'#!/bin/sh\n[ "$1" = --print-architecture ] && echo {arch} && exit 0\n'
                    'exit 1\n')
    dpkg.chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}


def sh(*args, env=None):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


def tree(root: Path) -> dict:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = ("link", os.readlink(p))
        elif p.is_file():
            out[rel] = (hashlib.sha256(p.read_bytes()).hexdigest(), oct(p.stat().st_mode))
        else:
            out[rel] = ("dir",)
    return out


@pytest.mark.parametrize("codename, python_numpy", [("trixie", "numpy==2.2.4 \\"),
                                                    ("bookworm", "numpy==1.24.2 \\")])
def test_the_release_picks_its_lock_and_the_dry_run_lists_every_change(
        tmp_path, codename, python_numpy):
    root = fake_root(tmp_path, codename)
    env = fake_dpkg(tmp_path, "arm64")
    before = tree(root)
    dry = sh(INSTALL, "--dry-run", "--prefix", root, env=env)
    assert dry.returncode == 0, dry.stderr
    assert (f"Raspberry Pi OS {codename} (arm64): versions from "
            f"firmware_config/locks/{codename}.txt") in dry.stdout
    assert tree(root) == before  # a dry run changes nothing
    real = sh(INSTALL, "--prefix", root, env=env)
    assert real.returncode == 0, real.stderr
    after = tree(root)
    changed = sorted(p for p in after if after[p] != before.get(p) and after[p] != ("dir",))
    assert changed, "the install changed nothing"
    for path in changed:  # every file the real run wrote or edited, the dry run named
        assert f"{root}/{path}" in dry.stdout, path
    n = int(re.search(r"dry run: (\d+) change", dry.stdout).group(1))
    assert f"done ({n} change(s))" in real.stdout
    # and every line it adds to a file it edits is shown, line for line
    for line in ("[all]", "# Zatre Vision (camera)", "include zatre-camera.txt"):
        assert f"+   + {line}" in dry.stdout
    assert "+   - 127.0.1.1\traspberrypi" in dry.stdout
    assert "+   + 127.0.1.1\tzatre" in dry.stdout
    assert (root / "etc/hostname").read_text() == "zatre\n"
    # the lock's numpy: that release's python3-numpy, which picamera2 is built against
    lock = (FW / f"locks/{codename}.txt").read_text().splitlines()
    assert python_numpy in lock
    assert "onnxruntime==1.20.1 \\" in lock  # 1.21+ dies with SIGILL on a Pi 4


@pytest.mark.parametrize("codename", ["trixie", "bookworm"])
def test_the_whole_system_dry_run_names_the_release_lock(tmp_path, codename):
    """As on a Pi (apt, user, venv, pip, hostname, systemctl), nothing done."""
    root = fake_root(tmp_path, codename)
    env = {**fake_dpkg(tmp_path, "arm64"), "ZATRE_OS_RELEASE": str(root / "etc/os-release")}
    r = sh(INSTALL, "--dry-run", "--hostname", "zatre-test-host", env=env)
    assert r.returncode == 0, r.stderr
    if not Path("/opt/zatre/.installed").exists():  # a machine with no install of its own
        assert (f"pip install --quiet --require-hashes -r /opt/zatre/src/firmware_config/"
                f"locks/{codename}.txt") in r.stdout
        assert "pip install --quiet --no-deps --no-build-isolation -e /opt/zatre/src" \
            in r.stdout
    assert "hostnamectl set-hostname zatre-test-host" in r.stdout


@pytest.mark.parametrize("codename", ["bullseye", "forky", "jammy", None])
def test_an_unknown_release_is_refused_in_one_line_with_nothing_changed(tmp_path, codename):
    root = fake_root(tmp_path, codename)
    if codename is None:  # no os-release at all: the system run (ZATRE_OS_RELEASE) says so
        env = {**fake_dpkg(tmp_path, "arm64"), "ZATRE_OS_RELEASE": str(root / "etc/os-release")}
        r = sh(INSTALL, "--dry-run", env=env)
    else:
        before = tree(root)
        r = sh(INSTALL, "--prefix", root, env=fake_dpkg(tmp_path, "arm64"))
        assert tree(root) == before
    assert r.returncode == 1
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert f"release '{codename or 'unknown'}'" in lines[0] and FLASH in lines[0]


def test_a_32_bit_user_space_is_refused_in_one_line_with_nothing_changed(tmp_path):
    """32-bit Raspberry Pi OS on a Pi 4 boots a 64-bit kernel: uname -m says aarch64,
    dpkg says armhf; dpkg is asked."""
    root = fake_root(tmp_path, "bookworm")
    before = tree(root)
    r = sh(INSTALL, "--prefix", root, env=fake_dpkg(tmp_path, "armhf"))
    assert r.returncode == 1 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1
    assert "32-bit system (armhf)" in r.stderr and FLASH in r.stderr
    assert tree(root) == before
    (tmp_path / "system").mkdir()  # the whole system run refuses it too
    env = {**fake_dpkg(tmp_path / "system", "armhf"),
           "ZATRE_OS_RELEASE": str(root / "etc/os-release")}
    r = sh(INSTALL, "--dry-run", env=env)
    assert r.returncode == 1 and "32-bit" in r.stderr and r.stdout == ""


def test_uninstall_puts_the_root_back_as_it_was(tmp_path):
    """Host name, hosts line, the hotspot's NetworkManager connection and config.txt,
    over three install and uninstall cycles: no [all] line piles up."""
    root = fake_root(tmp_path, "trixie")
    env = fake_dpkg(tmp_path, "arm64")
    original = tree(root)
    for _ in range(3):
        assert sh(INSTALL, "--prefix", root, env=env).returncode == 0
        nm = root / "etc/NetworkManager/system-connections/zatre-hotspot.nmconnection"
        nm.parent.mkdir(parents=True, exist_ok=True)
        nm.write_text("[connection]\nid=zatre-hotspot\n")  # what zatre-hotspot enable made
        dry = sh(INSTALL, "--uninstall", "--purge", "--dry-run", "--prefix", root, env=env)
        assert dry.returncode == 0
        for line in ("+   - [all]", "+   - # Zatre Vision (camera)",
                     "+   - include zatre-camera.txt", "+   - 127.0.1.1\tzatre",
                     "+   + 127.0.1.1\traspberrypi", f"+ rm -rf {nm}"):
            assert line in dry.stdout, line
        r = sh(INSTALL, "--uninstall", "--purge", "--prefix", root, env=env)
        assert r.returncode == 0, r.stderr
        assert "host name back to raspberrypi" in r.stdout
        after = {p: v for p, v in tree(root).items() if v != ("dir",)}
        assert after == {p: v for p, v in original.items() if v != ("dir",)}
    assert (root / "boot/firmware/config.txt").read_text() == CONFIG_TXT


def test_the_system_uninstall_deletes_the_hotspot_connection(tmp_path):
    """On the system, the connection goes through nmcli before its helper is removed."""
    calls = tmp_path / "calls"
    nmcli = tmp_path / "nmcli"
    nmcli.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n'
                     '[ "$1" = -t ] && echo zatre-hotspot\nexit 0\n')
    nmcli.chmod(0o755)
    r = sh(INSTALL, "--uninstall", "--dry-run", env={"NMCLI": str(nmcli)})
    assert r.returncode == 0, r.stderr
    assert f"+ {nmcli} connection delete zatre-hotspot" in r.stdout
    assert "delete" not in calls.read_text()  # asked, not done
