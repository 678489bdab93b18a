"""The Calibration page: confirm the board's corners on the dashboard.

``Register`` (PIN) takes the camera's newest frame, finds the board automatically
(``calibrate.board.register_board``) and keeps the result as a *candidate* in the data
folder with a preview (the frame with the fitted grid and the four corners). The
operator checks the preview and presses ``Accept`` (PIN): the candidate becomes the
calibration file the live service uses (``camera.calibration``; locked exposure in it
is kept) and the camera pipeline restarts with it. ``Discard`` drops the candidate;
``Register`` again is the redo.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from flask import Blueprint, Response, abort, render_template

from ..config import calibration_path
from .context import context
from .security import require_pin

bp = Blueprint("calibration", __name__)


#: the app's ServerContext (context.py)
ctx = context


def paths() -> dict[str, Path]:
    settings = ctx().config
    data = Path(settings.server.data_dir)
    target = calibration_path(settings)
    return {"target": target, "target_preview": target.with_suffix(".preview.jpg"),
            "candidate": data / "calibration-candidate.json",
            "candidate_preview": data / "calibration-candidate.preview.jpg",
            "candidate_info": data / "calibration-candidate.info.json"}


def status() -> dict:
    from ..calibrate import files

    p = paths()
    info = None
    if p["candidate_info"].is_file():
        try:
            info = json.loads(p["candidate_info"].read_text(encoding="utf-8"))
        except (OSError, ValueError):
            info = None
    try:
        controls = files.load_controls(p["target"]) if p["target"].is_file() else {}
        board = p["target"].is_file() and files.has_board(p["target"])
    except Exception:  # noqa: BLE001 - a broken file shows as not calibrated
        controls, board = {}, False
    return {"file": str(p["target"]), "board": board,
            "exposure_locked": not controls.get("AeEnable", True),
            "candidate": info if p["candidate"].is_file() else None,
            "preview": p["target_preview"].is_file()}


@bp.get("/calibration")
def page():
    # no camera at this table (manual entry, the club overview): the live view and the
    # focus meter are not asked for at all, the page says so once
    camera = ctx().camera
    has_camera = camera is not None and getattr(camera, "source", "none") != "none"
    return render_template("calibration.html", page="calibration", cal=status(),
                           has_camera=has_camera)


@bp.get("/api/calibration")
def api_status():
    return status()


@bp.get("/calibration/<which>.jpg")
def preview(which: str):
    p = paths()
    key = {"candidate": "candidate_preview", "current": "target_preview"}.get(which)
    if key is None or not p[key].is_file():
        abort(404, "no preview")
    return Response(p[key].read_bytes(), mimetype="image/jpeg",
                    headers={"Cache-Control": "no-store"})


def _done(message: str):
    from . import admin

    return admin.done(message, "/calibration", calibration=status())


@bp.post("/calibration/register")
@require_pin
def register():
    from ..calibrate import files
    from ..calibrate.board import RegistrationError, preview_jpeg, register_board

    camera = ctx().camera
    frame = getattr(getattr(camera, "runner", None), "last_frame", None)
    if frame is None:
        abort(409, "no camera frame yet: the camera must be running (Setup) and see the board")
    try:
        reg = register_board(frame.image)
    except RegistrationError as exc:
        abort(409, str(exc))
    p = paths()
    p["candidate"].parent.mkdir(parents=True, exist_ok=True)
    files.save_board(p["candidate"], reg.calibration)
    p["candidate_preview"].write_bytes(preview_jpeg(reg.preview))
    p["candidate_info"].write_text(json.dumps(reg.to_json()), encoding="utf-8")
    return _done("Board found: check that the green grid lies on the board's lines, then "
                 "accept (or register again).")


@bp.post("/calibration/accept")
@require_pin
def accept():
    from ..calibrate import files
    from ..calibrate.files import Calibration

    p = paths()
    if not p["candidate"].is_file():
        abort(409, "nothing to accept: register the board first")
    files.save_board(p["target"], Calibration.load(p["candidate"]))
    os.replace(p["candidate_preview"], p["target_preview"])
    for key in ("candidate", "candidate_info"):
        p[key].unlink(missing_ok=True)
    camera = ctx().camera
    if camera is not None and camera.source not in ("none", "demo", "sim"):
        camera.start(camera.source)  # the camera service reloads the calibration
    return _done(f"Calibration saved to {p['target']}; the camera uses it now.")


@bp.post("/calibration/discard")
@require_pin
def discard():
    p = paths()
    for key in ("candidate", "candidate_preview", "candidate_info"):
        p[key].unlink(missing_ok=True)
    return _done("Candidate discarded.")
