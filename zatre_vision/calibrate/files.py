"""The calibration file: the vision package's Calibration (board + lens) plus the
camera controls locked by ``zatre calibrate exposure``.

A thin wrapper, so that the :class:`Calibration` class and its format stay as the
vision package defines them: this module only adds the top-level key
``camera_controls`` (``{"AeEnable": false, "ExposureTime": 12000, ...}``) and keeps it
when the board part is written again. A file may hold the controls alone (exposure
locked before the board was registered): it then has no board part yet.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..vision.location import Calibration, CalibrationError

CONTROLS_KEY = "camera_controls"
#: picamera2 controls the lock may set, with their JSON types
CONTROL_TYPES = {"AeEnable": bool, "AwbEnable": bool, "ExposureTime": int,
                 "AnalogueGain": float, "ColourGains": list,
                 # the lens held where autofocus found the board (Camera Module 3)
                 "AfMode": int, "LensPosition": float}


#: every top-level key a calibration file may hold (the board/lens part and the controls)
CALIBRATION_KEYS = frozenset({"version", "homography", "k", "image_size", "line_score",
                              "line_contrast", "lens", CONTROLS_KEY})


def read_raw(path: Path | str) -> dict:
    """The file's JSON object ({} when there is no file yet). A file that holds anything
    else (a game record, say) is a CalibrationError, so that it is never overwritten."""
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CalibrationError(f"{path}: not a calibration file ({exc.__class__.__name__})"
                               ) from None
    if not isinstance(d, dict):
        raise CalibrationError(f"{path}: not a calibration file (not a JSON object)")
    other = sorted(set(d) - CALIBRATION_KEYS)
    if other:
        raise CalibrationError(f"{path}: not a calibration file (it holds {other[0]!r}); "
                               "choose another file")
    return d


def _write(path: Path, data: dict) -> None:
    """Atomic replace: a power cut leaves the old file or the new one, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def has_board(path: Path | str) -> bool:
    return "homography" in read_raw(Path(path))


def load_board(path: Path | str | None) -> Calibration | None:
    """The board/lens calibration, or None when there is no file or no board part yet."""
    if path is None or not Path(path).is_file() or not has_board(path):
        return None
    return Calibration.load(path)


def save_board(path: Path | str, calibration: Calibration) -> None:
    """Write the board/lens part, keeping the locked camera controls already there."""
    old = read_raw(Path(path))
    data = calibration.to_dict()
    if CONTROLS_KEY in old:
        data[CONTROLS_KEY] = old[CONTROLS_KEY]
    _write(Path(path), data)


def load_controls(path: Path | str | None) -> dict:
    """The locked camera controls (empty when none are saved)."""
    if path is None:
        return {}
    raw = read_raw(Path(path)).get(CONTROLS_KEY) or {}
    out = {}
    for key, value in raw.items():
        kind = CONTROL_TYPES.get(key)
        if kind is None:
            raise CalibrationError(f"{path}: unknown camera control {key!r}")
        out[key] = tuple(float(v) for v in value) if kind is list else kind(value)
    return out


def save_controls(path: Path | str, controls: dict) -> None:
    """Write the camera controls, keeping the board/lens part already there."""
    data = read_raw(Path(path))
    data[CONTROLS_KEY] = {k: (list(v) if isinstance(v, tuple | list) else v)
                          for k, v in controls.items() if k in CONTROL_TYPES}
    _write(Path(path), data)
