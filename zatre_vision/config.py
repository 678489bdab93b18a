"""Settings of the table service: one typed model, loaded from YAML + ``ZATRE_*`` env.

Priority, highest first: command-line options, environment variables
(``ZATRE_SERVER__PORT=8001``: section and key joined by a double underscore), the
YAML file, the defaults below. Unknown keys are refused with a one-line error. Each
concern is its own small section model, so new sections (gpio, calibration) slot in
beside these without touching them.
"""

from __future__ import annotations

import contextvars
import ipaddress
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)


class ConfigError(ValueError):
    """A settings file or value that cannot be used (one-line message)."""


#: The PIN: 4 to 12 ASCII digits (``\d`` would also take other scripts' digits).
#: a PIN: 4 to 12 digits, or a passphrase of 12 to 128 characters (no control
#: characters), which no one guesses offline from a leaked PIN hash
PIN_PATTERN = re.compile(r"[0-9]{4,12}|[^\x00-\x1f\x7f]{12,128}")
PIN_RULE = "4 to 12 digits, or a passphrase of 12 to 128 characters"
#: a PIN chosen now (first setup, a change on the dashboard, ``zatre pin set``): at
#: least 6 digits, or a passphrase; the 4-digit PINs above stay valid where set before
NEW_PIN_PATTERN = re.compile(r"[0-9]{6,12}|[^\x00-\x1f\x7f]{12,128}")
NEW_PIN_RULE = "6 to 12 digits, or a passphrase of 12 to 128 characters"
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def valid_host(host: str) -> bool:
    """An IP address (``0.0.0.0``, ``::``) or a host name: dot-separated labels of
    letters, digits and hyphens whose last label is not all digits (``999.1.1.1`` is
    no address and no name)."""
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    return (len(host) <= 253 and all(_HOST_LABEL.fullmatch(label) for label in labels)
            and not labels[-1].isdigit())


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ServerSettings(_Section):
    #: An IP address or a host name of this machine to listen on.
    host: str = "0.0.0.0"
    port: int = Field(8000, ge=1, le=65535)
    #: The table's PIN (4 to 12 digits, or a passphrase of 12 to 128 characters).
    #: None: chosen on first setup in the browser.
    pin: str | None = None
    data_dir: Path = Path("data")
    #: None: SQLite in data_dir; or ``postgresql://user:pass@host/db`` for a club server.
    db: str | None = None
    #: waitress worker threads for requests (live-view streams hold none of them).
    threads: int = Field(64, ge=4, le=1024)
    #: live-view streams (GET /events) at once from one client address, and in all;
    #: later ones get a 503 and their page polls GET /api/state instead.
    streams_per_address: int = Field(256, ge=1, le=10000)
    streams_total: int = Field(512, ge=1, le=10000)
    #: open connections at most (streams included); more wait to be accepted.
    max_connections: int = Field(1000, ge=16, le=20000)
    #: open connections from one client address at most; more are closed at once
    #: (this machine's own addresses, 127.0.0.1 and ::1, are not limited).
    connections_per_address: int = Field(64, ge=4, le=20000)
    #: connections kept for this machine (the table's own display): every other
    #: address together holds at most max_connections minus these.
    reserved_connections: int = Field(32, ge=0, le=1000)
    #: a connection that sends no complete request for this long is closed.
    idle_timeout_s: float = Field(10.0, ge=1, le=600)
    #: a request's head must arrive whole within this many seconds of its first byte,
    #: and the whole request (with its body) within request_timeout_s; else its
    #: connection is closed (a client sending a byte now and then holds no slot).
    headers_timeout_s: float = Field(5.0, ge=0.5, le=120)
    request_timeout_s: float = Field(30.0, ge=1, le=600)
    table: str = Field("table-1", min_length=1, max_length=40)
    season: str | None = Field(None, max_length=40)
    keepalive_s: float = Field(15.0, gt=0, le=300)
    #: the dashboard's language: "auto" follows each browser's Accept-Language; a
    #: browser's own choice (the EN/DE switch in the top bar) comes first either way.
    language: Literal["auto", "en", "de"] = "auto"

    @field_validator("host")
    @classmethod
    def _host_name(cls, v: str) -> str:
        if not valid_host(v):
            raise ValueError("the host is an IP address (0.0.0.0 for every network) or a "
                             "host name of letters, digits, dots and hyphens")
        return v

    @field_validator("pin")
    @classmethod
    def _pin_digits(cls, v: str | None) -> str | None:
        if v is not None and not PIN_PATTERN.fullmatch(str(v)):
            raise ValueError(f"the PIN is {PIN_RULE}")
        return v

    @field_validator("reserved_connections")
    @classmethod
    def _reserve_leaves_room(cls, v: int, info) -> int:
        most = info.data.get("max_connections")
        if most is not None and v >= most // 2:
            raise ValueError("reserved_connections is less than half of max_connections")
        return v

    @field_validator("db")
    @classmethod
    def _db_url(cls, v: str | None) -> str | None:
        if v is not None and not (v.startswith(("postgresql://", "postgres://", "sqlite:///"))):
            raise ValueError("db is postgresql://... or sqlite:///path")
        return v


class CameraSettings(_Section):
    #: demo (simulated game), none (manual entry), picamera2, an OpenCV device index,
    #: a stream URL or video file, or a folder of frames.
    source: str = "none"
    #: frames a second asked of the camera and processed (a faster camera is slowed)
    fps: float = Field(5.0, gt=0, le=60)
    #: mains frequency of the room's lamps, whose flicker the Pi camera's exposure
    #: avoids: 50 (Europe, most of Asia and Africa), 60 (the Americas), 0 off
    flicker_hz: int = Field(50)
    #: seconds between turns of the simulated demo game
    demo_interval_s: float = Field(2.0, ge=0.01, le=60)
    demo_seed: int | None = None
    #: Calibration file of a fixed camera (``zatre calibrate board`` or the dashboard's
    #: Calibration page). None: ``<data_dir>/calibration.json`` when that file exists.
    calibration: Path | None = None
    #: The pip classifier (ONNX, card beside it). None: models/pips.onnx of the program.
    model: Path | None = None
    #: Main stream size of the Pi camera (``WIDTHxHEIGHT``).
    size: str = Field("1280x960", pattern=r"^\d{3,4}x\d{3,4}$")

    @field_validator("flicker_hz")
    @classmethod
    def _mains(cls, v: int) -> int:
        if v not in (0, 50, 60):
            raise ValueError("flicker_hz is 50, 60 or 0 (off)")
        return v

    def size_wh(self) -> tuple[int, int]:
        w, h = self.size.split("x")
        return int(w), int(h)


class GPIOSettings(_Section):
    """A push button (end turn / undo) and an LED or buzzer (illegal placement), BCM
    pin numbers, through gpiozero (the ``pi`` extra)."""

    enabled: bool = False
    #: BCM pin of the button (to ground, internal pull-up by default); None: no button.
    button_pin: int | None = Field(17, ge=0, le=27)
    button_pull_up: bool = True
    #: seconds held that make a long press (undo) instead of a short one (end turn)
    hold_time_s: float = Field(1.0, ge=0.2, le=10)
    bounce_time_s: float | None = Field(0.05, ge=0, le=1)
    #: what signals an illegal placement: led, buzzer or none
    signal: str = Field("led", pattern=r"^(led|buzzer|none)$")
    signal_pin: int | None = Field(27, ge=0, le=27)
    signal_active_high: bool = True
    #: on and off time of a blink (LED) or beep (buzzer) while the alert stands
    blink_on_s: float = Field(0.3, gt=0, le=10)
    blink_off_s: float = Field(0.3, gt=0, le=10)
    #: gpiozero pin factory (lgpio, rpigpio, native, mock); None: gpiozero's default.
    pin_factory: str | None = Field(None, pattern=r"^(lgpio|rpigpio|pigpio|native|mock)$")

    @field_validator("signal_pin")
    @classmethod
    def _distinct(cls, v: int | None, info) -> int | None:
        if v is not None and v == info.data.get("button_pin"):
            raise ValueError("the signal and the button need different pins")
        return v


class UISettings(_Section):
    #: "Profi" mode: no hints for anyone.
    profi: bool = False


_yaml_path: contextvars.ContextVar[Path | None] = contextvars.ContextVar("_yaml_path", default=None)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ZATRE_", env_nested_delimiter="__",
                                      extra="forbid")

    server: ServerSettings = ServerSettings()
    camera: CameraSettings = CameraSettings()
    ui: UISettings = UISettings()
    gpio: GPIOSettings = GPIOSettings()

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings],
                                   init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource):
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _yaml_path.get()
        if path is not None:
            sources.append(YamlConfigSettingsSource(settings_cls, yaml_file=path))
        return tuple(sources)


def calibration_path(settings: Settings) -> Path:
    """The calibration file the live service uses (it may not exist yet)."""
    cam = settings.camera
    return Path(cam.calibration) if cam.calibration else Path(settings.server.data_dir) / \
        "calibration.json"


def _describe(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "settings"
    if err["type"] == "extra_forbidden":
        return f"{where}: unknown key"
    return f"{where}: {err['msg']}"


def _deep_merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for k, v in extra.items():
        out[k] = _deep_merge(out.get(k) or {}, v) if isinstance(v, dict) else v
    return out


def load_settings(path: str | Path | None = None,
                  overrides: dict[str, dict[str, Any]] | None = None) -> Settings:
    """Load the settings; raises ConfigError with a one-line reason."""
    if path is not None:
        path = Path(path)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{path}: no such file") from None
        except PermissionError:
            raise ConfigError(f"{path}: cannot be read (permission denied; the installed "
                              "settings are for root and the service's user: run the "
                              "command as sudo -u zatre zatre ...)") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
        except RecursionError:
            raise ConfigError(f"{path}: nested too deeply") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1}" if mark is not None else ""
            raise ConfigError(f"{path}: not valid YAML{at}") from None
        if data is not None and not isinstance(data, dict):
            raise ConfigError(f"{path}: the settings file must be a mapping of sections")
    token = _yaml_path.set(path)
    try:
        init = {k: v for k, v in (overrides or {}).items() if v}
        try:
            settings = Settings()
            if init:
                merged = _deep_merge(settings.model_dump(), init)
                settings = Settings.model_validate(merged)
        except ValidationError as exc:
            prefix = f"{path}: " if path is not None else ""
            raise ConfigError(prefix + _describe(exc)) from None
    finally:
        _yaml_path.reset(token)
    return settings


#: Where install.sh puts a table's settings. The commands that look after a table
#: (backup, restore, calibrate, doctor) use it when no --config and no ZATRE_CONFIG is
#: given, so that on an installed Pi they work on the service's table, not ./data.
INSTALLED_CONFIG = Path("/etc/zatre/config.yaml")
#: the SQLite database file a table keeps in its data folder (store/sqlite.py)
DATABASE_NAME = "zatre.db"


def find_config(given: str | Path | None, env: Mapping[str, str] | None = None,
                installed: Path = INSTALLED_CONFIG) -> tuple[Path | None, str]:
    """The settings file a command uses and how it was found: ``--config``, else
    ``$ZATRE_CONFIG``, else ``installed`` where it exists, else (None, "none")."""
    if given:
        return Path(given), "--config"
    env = os.environ if env is None else env
    if env.get("ZATRE_CONFIG"):
        return Path(env["ZATRE_CONFIG"]), "ZATRE_CONFIG"
    if installed.exists():
        return installed, "installed"
    return None, "none"


def describe_source(path: Path | None, how: str, settings: Settings) -> str:
    """One line: which settings a command uses (printed by the command)."""
    where = settings.server.db or settings.server.data_dir
    if path is None:
        return (f"settings: none found (no --config, ZATRE_CONFIG or {INSTALLED_CONFIG}): "
                f"the defaults, data in {where}")
    return f"settings: {path} ({how}), data in {where}"


def table_uses(data_dir: str | Path) -> bool:
    """A table has used ``data_dir``: its database lies there."""
    return (Path(data_dir) / DATABASE_NAME).is_file()


def load_command_settings(given: str | Path | None,
                          overrides: dict[str, dict[str, Any]] | None = None,
                          env: Mapping[str, str] | None = None,
                          installed: Path = INSTALLED_CONFIG) -> tuple[Settings, str, bool]:
    """For the commands that look after a table: (settings, the line that says which
    file is used, whether a settings file was found). Raises ConfigError."""
    path, how = find_config(given, env, installed)
    settings = load_settings(path, overrides)
    return settings, describe_source(path, how, settings), path is not None


def check_table_folder(settings: Settings, found: bool, what: str) -> None:
    """Refuse to write ``what`` (a table's file) into a data folder no table uses: with
    no settings file found, the default ./data counts only where a table's database
    already lies there. Raises ConfigError with the way out."""
    data_dir = Path(settings.server.data_dir)
    if found or settings.server.db or table_uses(data_dir):
        return
    raise ConfigError(f"{data_dir}: no table uses this folder (no {DATABASE_NAME} in it), so "
                      f"no table would read {what} there; give the table's settings "
                      f"(--config /etc/zatre/config.yaml or ZATRE_CONFIG) or --data-dir")
