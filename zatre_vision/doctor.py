"""``zatre doctor``: is this table ready to play? Plain OK / WARN / FAIL lines.

Checks the settings, the architecture (64-bit ARM on a Pi), the compiled libraries
(each imported in a child process), the camera (it must give a frame) and the video
group, the pip classifier and its card, the calibration, the free disk space of the
data folder, the database (opens, migrates, schema version), the clock (a Pi has no
battery clock: before network time arrives it may say 1970), under-voltage and
throttling, the CPU temperature and the GPIO button/signal (its pins are claimed and
freed). A check that fails in a way it did not foresee (a PermissionError) is one
FAIL line and the others still run. Exit status 0 when nothing
FAILs, 1 otherwise. Every check is a function taking what it needs, so tests give
fakes.
"""

from __future__ import annotations

import glob
import importlib
import shutil
import subprocess
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

OK, WARN, FAIL = "OK", "WARN", "FAIL"
MB = 1024 * 1024
DISK_WARN_MB, DISK_FAIL_MB = 1024, 200
MIN_YEAR = 2025


@dataclass
class Check:
    level: str
    name: str
    message: str

    def line(self) -> str:
        return f"{self.level:<5} {self.name}: {self.message}"

    def to_json(self) -> dict:
        return {"level": self.level, "check": self.name, "message": self.message}


# -- settings ---------------------------------------------------------------------------
#: what to run instead when the installed settings or data cannot be read by this user
AS_SERVICE_USER = "sudo -u zatre zatre doctor"


def check_config(path: str | None, env=None, installed=None):
    """(Check, settings or None): --config, else $ZATRE_CONFIG, else the installed
    /etc/zatre/config.yaml where it exists, else the defaults; the line says which."""
    from .config import INSTALLED_CONFIG, ConfigError, find_config, load_settings

    found, how = find_config(path, env, INSTALLED_CONFIG if installed is None else installed)
    try:
        settings = load_settings(found)
    except ConfigError as exc:
        hint = ""
        if "permission denied" in str(exc):
            hint = f" (they are for root and the service's user: run {AS_SERVICE_USER})"
            exc = ConfigError(f"{found}: cannot be read by this user")
        return Check(FAIL, "config", f"the settings cannot be used: {exc}{hint}"), None
    where = (f"{found}, {how}" if found is not None
             else "none found: the defaults and ZATRE_* environment")
    return Check(OK, "config", f"settings are valid ({where})"), settings


# -- camera ------------------------------------------------------------------------------
def _with_timeout(fn: Callable[[], object], seconds: float):
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the caller
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        raise TimeoutError(f"no answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def check_camera(spec: str, size: tuple[int, int] = (1280, 960), timeout: float = 15.0,
                 video_glob: str = "/dev/video*", module: str = "picamera2",
                 open_source=None) -> Check:
    spec = spec.strip()
    if spec == "none":
        return Check(OK, "camera", "no camera configured: turns are entered on the dashboard "
                                   "(set camera.source: picamera2 to use the Pi camera)")
    if spec in ("demo", "synthetic", "sim"):
        return Check(OK, "camera", f"simulated camera ({spec}); set camera.source: picamera2 "
                                   "for the real one")
    if spec == "picamera2":
        try:
            importlib.import_module(module)
        except ImportError:
            return Check(FAIL, "camera", "picamera2 is not installed: it comes from Raspberry "
                         "Pi OS (sudo apt install python3-picamera2) and the venv must be made "
                         "with --system-site-packages (install.sh does both)")
        except Exception as exc:  # noqa: BLE001 - e.g. ValueError: numpy.dtype size changed
            why = " ".join(f"{exc.__class__.__name__}: {exc}".split())[:160]
            return Check(FAIL, "camera", f"picamera2 cannot be loaded ({why}): the venv's "
                         "numpy is not the OS's; reinstall with firmware_config/install.sh "
                         "(it installs firmware_config/locks/<release>.txt)")
    if spec.isdigit() and not glob.glob(video_glob):
        return Check(FAIL, "camera", f"camera {spec}: no video device ({video_glob}) exists; "
                                     "is a USB camera plugged in?")
    if open_source is None:
        from .tracking.sources import open_source
    from .camera.base import SourceError

    try:
        src = open_source(spec, size=size)
    except SourceError as exc:
        return Check(FAIL, "camera", str(exc))

    def grab():
        src.open()
        try:
            for _ in range(3):
                frame = src.read()
                if frame is not None:
                    return frame
            return None
        finally:
            src.close()

    try:
        frame = _with_timeout(grab, timeout)
    except TimeoutError as exc:
        return Check(FAIL, "camera", f"{spec}: the camera opened but gave no frame ({exc}); "
                                     "check the ribbon cable and camera_auto_detect=1")
    except SourceError as exc:
        hint = " (is `zatre serve` already using it? sudo systemctl stop zatre)" \
            if spec == "picamera2" else ""
        return Check(FAIL, "camera", f"{exc}{hint}")
    except Exception as exc:  # noqa: BLE001 - any camera failure becomes a plain line
        return Check(FAIL, "camera", f"{spec}: {exc.__class__.__name__}: {exc}")
    if frame is None:
        return Check(FAIL, "camera", f"{spec}: no frame came")
    h, w = frame.image.shape[:2]
    return Check(OK, "camera", f"{spec} gives frames ({w}x{h})")


# -- model -------------------------------------------------------------------------------
def check_model(path: Path | None = None, loader=None) -> Check:
    from .vision.reading.classify import DEFAULT_MODEL, ModelError

    path = Path(path) if path else DEFAULT_MODEL
    if not path.is_file():
        return Check(FAIL, "model", f"{path} is missing: the pip classifier is needed to read "
                     "tiles (it ships in models/; or train one: zatre train)")
    if loader is None:
        from .vision.reading.classify import PipClassifier as loader
    try:
        clf = loader(path)
    except ModelError as exc:
        return Check(FAIL, "model", str(exc))
    except Exception as exc:  # noqa: BLE001
        return Check(FAIL, "model", f"{path}: cannot load ({exc.__class__.__name__}: {exc})")
    card = getattr(clf, "card", None)
    data = getattr(card, "data", {}) or {}
    acc = (data.get("metrics", {}).get("validation_crops") or {}).get("accuracy")
    extra = f", validation accuracy {acc:.4f}" if isinstance(acc, float) else ""
    return Check(OK, "model", f"{path.name} loads (input {getattr(card, 'input_size', '?')} px"
                              f"{extra})")


def check_board_model(path: Path | None = None) -> Check:
    """The board finder is optional: without it the reader searches classically
    (slower, and it misses more boards)."""
    from .vision.location import DEFAULT_BOARD_MODEL, BoardFinder, BoardModelError

    path = Path(path) if path else DEFAULT_BOARD_MODEL
    if not path.is_file():
        return Check(WARN, "board model", f"{path} is missing: the board is found by the "
                     "slower classical search (it ships in models/; or: zatre train --which "
                     "board)")
    try:
        BoardFinder(path)
    except BoardModelError as exc:
        return Check(WARN, "board model", f"{exc}; the classical search is used")
    return Check(OK, "board model", f"{path.name} loads")


# -- calibration ---------------------------------------------------------------------------
def check_calibration(path: Path, camera_source: str) -> Check:
    from .calibrate import files

    if camera_source in ("none", "demo", "synthetic", "sim"):
        return Check(OK, "calibration", "not needed without a real camera")
    if not Path(path).is_file():
        return Check(WARN, "calibration", f"no calibration file ({path}): the board is searched "
                     "in every frame; register it on the dashboard's Calibration page")
    try:
        board = files.load_board(path)
        controls = files.load_controls(path)
    except Exception as exc:  # noqa: BLE001
        return Check(FAIL, "calibration", f"{exc}")
    parts = ["board registered" if board else "no board registration yet",
             "exposure locked" if controls.get("AeEnable") is False else "exposure automatic"]
    if "LensPosition" in controls:
        parts.append(f"focus locked at {controls['LensPosition']:g} dioptres")
    return Check(OK if board else WARN, "calibration", f"{path}: " + ", ".join(parts))


# -- disk ----------------------------------------------------------------------------------
def check_disk(data_dir: Path, usage=shutil.disk_usage) -> Check:
    p = Path(data_dir).resolve()
    while not p.exists() and p != p.parent:
        p = p.parent
    free_mb = usage(p).free / MB
    msg = f"{free_mb / 1024:.1f} GB free for the data folder {data_dir}"
    if free_mb < DISK_FAIL_MB:
        return Check(FAIL, "disk", f"only {free_mb:.0f} MB free for {data_dir}: the database "
                     "cannot grow safely; free space or use a larger SD card")
    if free_mb < DISK_WARN_MB:
        return Check(WARN, "disk", f"only {free_mb:.0f} MB free for {data_dir} (below 1 GB)")
    return Check(OK, "disk", msg)


# -- database ----------------------------------------------------------------------------------
def check_database(data_dir: Path, db: str | None) -> Check:
    from .store import StoreError, open_store

    if db is None or db.startswith("sqlite:///"):
        path = Path(db[len("sqlite:///"):]) if db else Path(data_dir) / "zatre.db"
        if path.parent.exists() and not path.parent.is_dir():
            return Check(FAIL, "database", f"{path.parent} is a file, not a folder")
        if not path.exists():  # a check creates nothing: the first `zatre serve` does
            return Check(OK, "database", f"{path} does not exist yet: `zatre serve` "
                                         "creates it")
    try:
        store = open_store(data_dir, db)
    except StoreError as exc:
        return Check(FAIL, "database", str(exc))
    except Exception as exc:  # noqa: BLE001 - sqlite3/psycopg errors
        return Check(FAIL, "database", f"cannot open: {exc.__class__.__name__}: {exc}")
    try:
        version = store.schema_version()
        matches = len(store.list_matches(1, 1)) if hasattr(store, "list_matches") else 0
    except Exception as exc:  # noqa: BLE001
        return Check(FAIL, "database", f"opened but unreadable: {exc}")
    finally:
        store.close()
    where = db.split("@")[-1] if db else str(Path(data_dir) / "zatre.db")
    return Check(OK, "database", f"{where} opens, schema version {version}"
                                 + ("" if matches else ", no matches yet"))


# -- the table's PIN -----------------------------------------------------------------------
def check_pin(data_dir: Path, db: str | None, table: str, configured: str | None) -> Check:
    """Whether the table has a PIN; if not, the one-time setup code its first setup
    needs (as ``zatre serve`` printed it)."""
    from .store import StoreError, open_store

    if configured:
        return Check(OK, "pin", "the PIN comes from the settings (server.pin)")
    if (db is None or db.startswith("sqlite:///")) and not (
            Path(db[len("sqlite:///"):]) if db else Path(data_dir) / "zatre.db").exists():
        return Check(OK, "pin", "no PIN yet: `zatre serve` prints the setup code for the "
                                "first setup when it starts")
    try:
        store = open_store(data_dir, db)
    except Exception as exc:  # noqa: BLE001 - check_database says why
        return Check(WARN, "pin", f"cannot read the database ({exc.__class__.__name__})")
    try:
        if store.get_setting(f"pin_hash:{table}"):
            return Check(OK, "pin", f"table {table!r} has its PIN")
        code = store.get_setting(f"setup_code:{table}")
    except StoreError as exc:
        return Check(WARN, "pin", str(exc))
    finally:
        store.close()
    if code:
        return Check(OK, "pin", f"table {table!r} has no PIN yet: its first setup needs the "
                                f"setup code {code}")
    return Check(OK, "pin", f"table {table!r} has no PIN yet: `zatre serve` prints the setup "
                            "code for the first setup when it starts")


# -- time ------------------------------------------------------------------------------------
def _ntp_synchronised(run=subprocess.run) -> bool | None:
    if shutil.which("timedatectl") is None:
        return None
    try:
        out = run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"],
                  capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    value = out.stdout.strip().lower()
    return {"yes": True, "no": False}.get(value)


def check_time(now: float | None = None, ntp: Callable[[], bool | None] = _ntp_synchronised
               ) -> Check:
    now = time.time() if now is None else now
    year = time.gmtime(now).tm_year
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(now))
    if year < MIN_YEAR:
        return Check(FAIL, "time", f"the clock says {stamp}: the Pi has no battery clock and has "
                     "not got network time yet; connect it to a network once (or set the date: "
                     "sudo date -s '2025-06-01 12:00'), else match dates are wrong")
    synced = ntp()
    if synced is False:
        return Check(WARN, "time", f"{stamp}, not synchronised with network time (fine offline; "
                                   "dates may drift)")
    return Check(OK, "time", stamp + (", synchronised" if synced else ""))


# -- gpio --------------------------------------------------------------------------------------
def check_gpio(gpio, claim=None) -> Check:
    """gpiozero imports, and the button and signal pins can really be claimed (then
    freed at once): a pin factory that cannot reach the chip (BadPinFactory) or a pin
    another program holds is a FAIL here, not a warning in the service's log later."""
    if not gpio.enabled:
        return Check(OK, "gpio", "button and signal are off (gpio.enabled: false)")
    if claim is None and gpio.pin_factory != "mock" and not on_a_pi():
        return Check(OK, "gpio", "not a Raspberry Pi: no GPIO pins here to check (the "
                                 "button and light work on the Pi)")
    try:
        with warnings.catch_warnings():  # gpiozero's fallback warnings: not on the screen
            warnings.simplefilter("ignore")
            importlib.import_module("gpiozero")
    except ImportError:
        return Check(FAIL, "gpio", "gpio is enabled but gpiozero is not installed "
                                   "(sudo apt install python3-gpiozero)")
    except Exception as exc:  # noqa: BLE001
        return Check(FAIL, "gpio", f"gpiozero cannot be loaded ({exc.__class__.__name__}: "
                                   f"{str(exc)[:120]})")
    try:
        with warnings.catch_warnings():  # PinFactoryFallback and the like: in the line
            warnings.simplefilter("ignore")
            (claim or claim_pins)(gpio)
    except Exception as exc:  # noqa: BLE001 - BadPinFactory, GPIOPinInUse, OSError, ...
        why = " ".join(f"{exc.__class__.__name__}: {exc}".split())[:200]
        return Check(FAIL, "gpio", f"the pins cannot be claimed ({why}); is the user in the "
                                   "gpio group, is another program using them?")
    return Check(OK, "gpio", f"button on BCM {gpio.button_pin}, {gpio.signal} on BCM "
                             f"{gpio.signal_pin}: claimed and freed")


def claim_pins(gpio) -> None:
    """Open the button and signal devices as the service will, and close them."""
    from gpiozero import LED, Button, Buzzer

    from .gpio import pin_factory

    factory = pin_factory(gpio.pin_factory)
    devices = []
    try:
        if gpio.button_pin is not None:
            devices.append(Button(gpio.button_pin, pull_up=gpio.button_pull_up,
                                  pin_factory=factory))
        if gpio.signal != "none" and gpio.signal_pin is not None:
            kind = LED if gpio.signal == "led" else Buzzer
            devices.append(kind(gpio.signal_pin, active_high=gpio.signal_active_high,
                                pin_factory=factory))
    finally:
        for d in devices:
            d.close()
        if factory is not None:
            factory.close()


# -- the Pi itself -------------------------------------------------------------------------
#: vcgencmd get_throttled bits: now (0-3) and since boot (16-19)
THROTTLE_BITS = {0: "under-voltage", 1: "ARM frequency capped", 2: "throttled",
                 3: "soft temperature limit"}


def check_power(run=subprocess.run, which=shutil.which) -> Check:
    """Under-voltage and throttling, from the firmware (``vcgencmd get_throttled``)."""
    if which("vcgencmd") is None:
        return Check(OK, "power", "no vcgencmd: not a Raspberry Pi, nothing to check")
    try:
        out = run(["vcgencmd", "get_throttled"], capture_output=True, text=True, timeout=5)
        value = int(out.stdout.strip().split("=")[-1], 16)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return Check(WARN, "power", f"vcgencmd get_throttled gave no answer "
                                    f"({exc.__class__.__name__})")
    now = [name for bit, name in THROTTLE_BITS.items() if value & (1 << bit)]
    since = [name for bit, name in THROTTLE_BITS.items() if value & (1 << (bit + 16))]
    if "under-voltage" in now:
        return Check(FAIL, "power", f"under-voltage now (0x{value:x}): use the official "
                     "power supply (5.1 V 3 A for a Pi 4, 5 V 5 A for a Pi 5); the camera and "
                     "SD card misbehave on low voltage")
    if now or since:
        return Check(WARN, "power", f"0x{value:x}: " + ", ".join(
            [f"{n} now" for n in now] + [f"{n} since boot" for n in since if n not in now])
            + " (power supply or cooling)")
    return Check(OK, "power", "no under-voltage or throttling since boot")


TEMP_WARN_C, TEMP_FAIL_C = 75.0, 82.0


def check_temperature(path: str = "/sys/class/thermal/thermal_zone0/temp") -> Check:
    try:
        milli = int(Path(path).read_text().strip())
    except FileNotFoundError:
        return Check(OK, "temperature", "no CPU temperature sensor here")
    except (OSError, ValueError) as exc:
        return Check(WARN, "temperature", f"cannot read {path} ({exc.__class__.__name__})")
    c = milli / 1000
    if c >= TEMP_FAIL_C:
        return Check(FAIL, "temperature", f"CPU at {c:.0f} °C: it throttles (from 80 °C), "
                     "frames slow down; add a heatsink or fan, give the case air")
    if c >= TEMP_WARN_C:
        return Check(WARN, "temperature", f"CPU at {c:.0f} °C: close to throttling (80 °C)")
    return Check(OK, "temperature", f"CPU at {c:.0f} °C")


def check_video_group(camera_source: str, groups=None, uid=None) -> Check:
    """A real camera needs the video group (/dev/video*, /dev/media*, /dev/dma_heap)."""
    import grp
    import os

    if camera_source.strip() in ("none", "demo", "synthetic", "sim") or not (
            camera_source.strip() == "picamera2" or camera_source.strip().isdigit()):
        return Check(OK, "video group", "not needed without a camera device")
    uid = os.getuid() if uid is None else uid
    if uid == 0:
        return Check(OK, "video group", "running as root (the service runs as zatre, which "
                                        "install.sh puts in the video group)")
    try:
        names = groups if groups is not None else {grp.getgrgid(g).gr_name
                                                   for g in os.getgroups()}
    except (KeyError, OSError) as exc:
        return Check(WARN, "video group", f"cannot list this user's groups ({exc})")
    if "video" in names:
        return Check(OK, "video group", "this user is in the video group")
    return Check(FAIL, "video group", "this user is not in the video group, so the camera "
                 "cannot be opened: sudo usermod -aG video $USER and log in again (the "
                 "service's user zatre is added by install.sh)")


def on_a_pi(model: str = "/proc/device-tree/model") -> bool:
    try:
        return "Raspberry Pi" in Path(model).read_text(errors="replace")
    except OSError:
        return False


def check_architecture(machine: str | None = None, pi: bool | None = None) -> Check:
    """64-bit ARM on a Pi: onnxruntime has no wheel for 32-bit (armv7l)."""
    import platform

    machine = machine or platform.machine()
    if pi is None:
        pi = on_a_pi()
    if machine == "aarch64":
        return Check(OK, "architecture", "64-bit ARM (arm64)")
    if machine.startswith("arm"):
        return Check(FAIL, "architecture", f"{machine} is a 32-bit OS: onnxruntime has no "
                     "wheel for it; flash Raspberry Pi OS (64-bit) Trixie with Raspberry Pi Imager")
    if pi:
        return Check(WARN, "architecture", f"{machine} on a Raspberry Pi?")
    return Check(OK, "architecture", f"{machine} (not a Raspberry Pi)")


def check_libraries(camera_source: str, run=None) -> Check:
    """numpy, OpenCV, onnxruntime (and picamera2 for the Pi camera) each import, in a
    child process of their own (a SIGILL or a numpy ABI error is reported as a line)."""
    from .import_check import check_imports

    modules = ("numpy", "cv2", "onnxruntime") + (
        ("picamera2",) if camera_source.strip() == "picamera2" else ())
    ok, line = check_imports(modules, **({"run": run} if run else {}))
    if ok:
        return Check(OK, "libraries", line)
    return Check(FAIL, "libraries", f"{line}. Fix: {libraries_fix(line)}")


def libraries_fix(line: str) -> str:
    """What to do about an import verdict that failed, in one sentence."""
    reinstall = ("run sudo ./firmware_config/install.sh again in the checkout: it installs "
                 "the versions of firmware_config/locks/<release>.txt and checks them")
    if "SIGILL" in line:
        return ("a library is built for a newer CPU than this one (onnxruntime 1.21 and "
                f"later on a Pi 4); {reinstall} (onnxruntime 1.20.1)")
    if "dtype size changed" in line or "numpy" in line and "picamera2" in line:
        return ("picamera2 is built against the OS's numpy and the venv holds another; "
                f"{reinstall} (the venv keeps the OS's numpy)")
    if "No module named" in line or "ModuleNotFoundError" in line:
        return reinstall + (" (picamera2 comes from apt: sudo apt install python3-picamera2, "
                            "with a venv made with --system-site-packages)"
                            if "picamera2" in line else "")
    return reinstall


def check_port(port: int, holders=None) -> Check:
    """The service's port: free, or served by zatre itself; else which program holds
    it (the service cannot start then)."""
    from .port_holder import describe_holders, port_holders

    found = port_holders(port) if holders is None else holders
    if not found:
        return Check(OK, "port", f"port {port} is free for the service")
    if all(h.pid is not None and "zatre" in h.name for h in found):
        return Check(OK, "port", f"port {port}: the table's server listens "
                                 f"(pid {', '.join(str(h.pid) for h in found)})")
    held = describe_holders(port) if holders is None else \
        "held by " + ", ".join(h.describe() for h in found)
    return Check(FAIL, "port", f"port {port} is {held}: the service cannot listen there; "
                               f"stop that program (sudo systemctl disable --now NAME) or "
                               f"set another server.port")


def _guarded(name: str, fn: Callable[[], Check]) -> Check:
    """A check that fails in a way it did not foresee (PermissionError on a data folder
    of another user, ...) is one FAIL line; the other checks still run."""
    try:
        return fn()
    except PermissionError as exc:
        what = f" {exc.filename}" if exc.filename else ""
        return Check(FAIL, name, f"could not be checked: this user may not read{what}; "
                                 f"run {AS_SERVICE_USER}")
    except Exception as exc:  # noqa: BLE001 - reported, never a traceback
        why = " ".join(f"{exc.__class__.__name__}: {exc}".split())[:200]
        return Check(FAIL, name, f"could not be checked ({why})")


def run_checks(config: str | None = None, camera: bool = True,
               model: Path | None = None) -> list[Check]:
    from .config import calibration_path

    first, settings = check_config(config)
    checks = [first]
    if settings is None:
        return checks
    cam = settings.camera
    srv = settings.server
    checks.append(_guarded("architecture", check_architecture))
    checks.append(_guarded("libraries", lambda: check_libraries(cam.source)))
    if camera:
        checks.append(_guarded("camera", lambda: check_camera(cam.source, cam.size_wh())))
    checks.append(_guarded("video group", lambda: check_video_group(cam.source)))
    checks.append(_guarded("model", lambda: check_model(model or cam.model)))
    checks.append(_guarded("board model", check_board_model))
    checks.append(_guarded("calibration", lambda: check_calibration(
        calibration_path(settings), cam.source)))
    checks.append(_guarded("port", lambda: check_port(srv.port)))
    checks.append(_guarded("disk", lambda: check_disk(srv.data_dir)))
    checks.append(_guarded("database", lambda: check_database(srv.data_dir, srv.db)))
    checks.append(_guarded("pin", lambda: check_pin(srv.data_dir, srv.db, srv.table, srv.pin)))
    checks.append(_guarded("time", check_time))
    checks.append(_guarded("power", check_power))
    checks.append(_guarded("temperature", check_temperature))
    checks.append(_guarded("gpio", lambda: check_gpio(settings.gpio)))
    return checks


def _command():
    import json as _json

    import click

    @click.command()
    @click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
                  help="The settings file the service uses (e.g. /etc/zatre/config.yaml).")
    @click.option("--no-camera", is_flag=True,
                  help="Skip the camera check (the camera is busy while the service runs).")
    @click.option("--model", type=click.Path(dir_okay=False), default=None)
    @click.option("--json", "as_json", is_flag=True, help="One JSON object instead of lines.")
    def doctor(config_file, no_camera, model, as_json):
        """Check camera, model, calibration, disk, database, clock and GPIO in plain words."""
        checks = run_checks(config_file, camera=not no_camera,
                            model=Path(model) if model else None)
        failed = any(c.level == FAIL for c in checks)
        if as_json:
            click.echo(_json.dumps({"ok": not failed, "checks": [c.to_json() for c in checks]}))
        else:
            for c in checks:
                click.echo(c.line())
            click.echo("all good" if not failed else "something is wrong: see FAIL above",
                       err=True)
        if failed:
            raise SystemExit(1)

    return doctor


doctor = _command()
