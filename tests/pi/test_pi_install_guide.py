"""The Pi install guide (docs/pi-install.md, the manual's Pi page), followed literally on
an installed layout (issue 52): every `zatre` command its shell blocks give is run as
written, on a root made by ``install.sh --prefix``, from a home folder that holds no
table; none writes outside the table's data folder, none falls back to ./data.

As in a chroot, the root's absolute paths (/var/lib/zatre, /etc/zatre) stand for the
root's own; `sudo -u zatre` is dropped (the test's user owns the root). The installed
settings are found through ZATRE_CONFIG, as /etc/zatre/config.yaml is found on the Pi
(the order is tested in test_config_discovery.py). picamera2 is a stand-in module on
PYTHONPATH (the Camera Module 3's autofocus included)."""

import hashlib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from zatre_vision.config import INSTALLED_CONFIG
from zatre_vision.store import open_store

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs/pi-install.md"
INSTALL = REPO / "firmware_config/install.sh"

STANDIN_PICAMERA2 = '''
"""A Camera Module 3 as picamera2 shows it (settled metadata, one autofocus cycle)."""
class Picamera2:
    camera_controls = {k: (0, 1, 0) for k in (
        "FrameDurationLimits", "AeEnable", "ExposureTime", "AnalogueGain", "AwbEnable",
        "ColourGains", "AeFlickerMode", "AeFlickerPeriod", "AfMode", "AfTrigger",
        "LensPosition")}

    def __init__(self, num=0):
        self.lens = 1.0
        self.af_mode = 0

    def create_preview_configuration(self, main=None, lores=None):
        return {"main": main, "lores": lores}

    def configure(self, config):
        pass

    def set_controls(self, controls):
        self.af_mode = controls.get("AfMode", self.af_mode)

    def start(self):
        pass

    def capture_metadata(self):
        return {"ExposureTime": 15000, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4),
                "LensPosition": self.lens}

    def autofocus_cycle(self):
        assert self.af_mode == 1
        self.lens = 2.21
        return True

    def stop(self):
        pass

    def close(self):
        pass
'''


def guide_commands() -> list[str]:
    """Every command of the guide's ``sh`` blocks, one per line or `&&` part."""
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(), flags=re.S)
    commands = []
    for block in blocks:
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                commands += [part.strip() for part in line.split("&&")]
    return commands


def zatre_commands() -> list[list[str]]:
    """The guide's `zatre` commands, as argument lists (sudo -u zatre dropped)."""
    out = []
    for command in guide_commands():
        words = shlex.split(command)
        if words[:3] == ["sudo", "-u", "zatre"]:
            words = words[3:]
        if words and words[0] == "zatre":
            out.append(words)
    return out


def snapshot(*folders: Path) -> dict:
    files = {}
    for folder in folders:
        for p in folder.rglob("*"):
            if p.is_file() and not p.is_symlink():
                files[p] = hashlib.sha256(p.read_bytes()).hexdigest()
            elif p.is_dir():
                files[p] = "dir"
    return files


def test_the_guide_gives_the_commands_a_newcomer_needs():
    commands = guide_commands()
    zatre = [" ".join(c) for c in zatre_commands()]
    for needed in ("git clone https://github.com/zatre-vision/zatre-vision.git",
                   "sudo ./firmware_config/install.sh --dry-run",
                   "sudo ./firmware_config/install.sh", "sudo reboot",
                   "systemctl status zatre", "ssh pi@zatre.local"):
        assert needed in commands, needed
    assert "zatre doctor --no-camera" in zatre
    assert "zatre calibrate exposure" in zatre
    assert "zatre backup /var/lib/zatre/before-update.db" in zatre
    assert "zatre restore /var/lib/zatre/before-update.db" in zatre
    # the release, the image and the three things the install takes over are said
    text = GUIDE.read_text()
    for words in ("Raspberry Pi OS (64-bit)", "Trixie", "renames the Pi to `zatre`",
                  "takes port 80", "needs the package registries", "setup code",
                  "Camera Module 3"):
        assert words in text, words


@pytest.fixture
def installed(tmp_path):
    """A root as install.sh --prefix leaves it, with its absolute paths mapped into the
    root, after the service ran once (its database exists)."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc/os-release").write_text("ID=debian\nVERSION_CODENAME=trixie\n")
    r = subprocess.run([str(INSTALL), "--prefix", str(root)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    config = root / "etc/zatre/config.yaml"
    config.write_text(config.read_text().replace("/var/lib/zatre", f"{root}/var/lib/zatre"))
    open_store(root / "var/lib/zatre").close()
    standin = tmp_path / "standin"
    standin.mkdir()
    (standin / "picamera2.py").write_text(STANDIN_PICAMERA2)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "ZATRE_CONFIG": str(config),
           "PYTHONPATH": os.pathsep.join([str(standin), str(REPO),
                                          os.environ.get("PYTHONPATH", "")])}
    return root, home, env


def test_every_zatre_command_of_the_guide_runs_as_written_and_writes_only_to_the_data_folder(
        installed):
    root, home, env = installed
    data = root / "var/lib/zatre"
    before = snapshot(root, home)
    outputs = {}
    for words in zatre_commands():
        args = [w.replace("/var/lib/zatre", str(data)) for w in words[1:]]
        r = subprocess.run([sys.executable, "-m", "zatre_vision", *args], cwd=home, env=env,
                           capture_output=True, text=True, timeout=120,
                           input="975310\n975310\n")   # what `zatre pin set` asks, twice
        outputs[" ".join(words)] = r
        assert r.returncode == 0, f"{' '.join(words)}: {r.stdout}{r.stderr}"
    after = snapshot(root, home)
    changed = sorted(str(p) for p in after if after[p] != before.get(p) and after[p] != "dir")
    gone = sorted(str(p) for p in before if p not in after)
    assert changed, "no command wrote anything"
    for path in changed + gone:
        assert path.startswith(f"{data}/"), f"written outside the data folder: {path}"
    assert not (home / "data").exists()
    # each said which settings it used
    config = root / "etc/zatre/config.yaml"
    for name in ("zatre backup /var/lib/zatre/before-update.db",
                 "zatre restore /var/lib/zatre/before-update.db", "zatre calibrate exposure"):
        assert f"settings: {config} (ZATRE_CONFIG)" in outputs[name].stderr, name
    assert f"settings are valid ({config}, ZATRE_CONFIG)" in \
        outputs["zatre doctor --no-camera"].stdout
    # the exposure and focus lock went into the calibration file the service reads
    assert '"LensPosition": 2.21' in (data / "calibration.json").read_text()
    assert (data / "before-update.db").is_file()
    # the update step, as the guide gives it, on the same root: nothing left to do
    r = subprocess.run([str(INSTALL), "--prefix", str(root)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and "nothing to do" in r.stdout, r.stdout + r.stderr


def test_without_the_table_settings_the_commands_refuse_to_write_into_a_stray_folder(
        installed):
    """From a home folder, with no settings to find: calibrate and restore refuse (one
    line) instead of writing ./data/calibration.json or ./data/zatre.db."""
    if INSTALLED_CONFIG.exists():
        pytest.skip(f"this machine has a table installed ({INSTALLED_CONFIG}): it is found")
    root, home, env = installed
    env = {k: v for k, v in env.items() if k != "ZATRE_CONFIG"}
    for args in (["calibrate", "exposure"], ["calibrate", "exposure", "--unlock"],
                 ["restore", str(root / "var/lib/zatre/zatre.db")]):
        r = subprocess.run([sys.executable, "-m", "zatre_vision", *args], cwd=home, env=env,
                           capture_output=True, text=True, timeout=120,
                           input="975310\n975310\n")   # what `zatre pin set` asks, twice
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.splitlines()) == 1 and "no table uses this folder" in r.stderr
        assert "--config /etc/zatre/config.yaml" in r.stderr
    assert list(home.iterdir()) == []
