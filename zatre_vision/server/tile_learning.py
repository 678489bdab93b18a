"""The Calibration page's "learn these tiles": its routes. The photos, the reading
and the fit are the app's ``TileLearningService`` (``services/tile_learning.py``, built by
the app factory), which this module calls and never builds: the dashboard reads no
board itself.

Every correction of a cell during a match keeps the camera's frame with the cell's
right value (``keep_correction``), for "learn from this evening's corrections".
"""

from __future__ import annotations

import cv2
import numpy as np
from flask import Blueprint, abort, current_app, jsonify, request

from .context import context
from .security import require_pin

bp = Blueprint("tile_learning", __name__)

#: an uploaded photo larger than this (bytes) is refused
MAX_UPLOAD = 20 * 1024 * 1024
#: suggested layouts shown (one per photo to take)
LAYOUTS = 2


def service():
    """The app's tile-learning service (``services/tile_learning.py``, built by the app
    factory)."""
    return context().tiles


def learning():
    """The photos and the fit of the table's tiles file now."""
    return service().learning(context().config)


def layouts() -> list[dict]:
    return service().layouts(LAYOUTS)


def state() -> dict:
    tl = learning()
    return {**service().board(),
            "layouts": layouts(), "photos": tl.photos(), "job": tl.job(),
            "stored": tl.stored(), "file": str(tl.tiles_file),
            "corrections": _corrections().count()}


def _restart_camera() -> str:
    """The live reader takes the new tiles: the camera pipeline restarts (as after a new
    calibration); a stopped camera uses them from its next start."""
    camera = context().camera
    if camera is not None and camera.source not in ("none", "demo", "sim"):
        camera.start(camera.source)
        return "the live camera reads with them now."
    return "the live camera reads with them from its next start."


def _reply(message: str, status: int = 200):
    return jsonify({"ok": status == 200, "message": message, "tiles": state()}), status


@bp.get("/api/calibration/tiles")
def api_state():
    return state()


def _allow_upload(view):
    """This route alone takes a photo: larger than the app's form limit."""
    from functools import wraps

    @wraps(view)
    def wrapped(*args, **kwargs):
        request.max_content_length = MAX_UPLOAD
        return view(*args, **kwargs)

    return wrapped


@bp.post("/calibration/tiles/photo")
@_allow_upload
@require_pin
def add_photo():
    if "photo" in request.files:
        data = request.files["photo"].read()
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
        if image is None:
            abort(400, "the upload is not a photo (JPEG or PNG) or is damaged")
    else:
        camera = context().camera
        frame = getattr(getattr(camera, "runner", None), "last_frame", None)
        if frame is None:
            abort(409, "no camera frame yet: start the camera (Setup) or upload a photo")
        image = frame.image
    try:
        entry = learning().add_photo(image)
    except ValueError as exc:
        abort(409, str(exc))
    return _reply(f"Photo {entry['id']} read: {len(entry['cells'])} tiles, "
                  f"{len(entry['uncertain'])} cells uncertain. Correct what is wrong.")


def _truths(body: object) -> dict[int, dict]:
    if not isinstance(body, dict) or not isinstance(body.get("truth"), dict):
        abort(400, 'send {"truth": {"<photo id>": {"cells": {...}, "ignore": [...]}}}')
    out = {}
    for key, entry in body["truth"].items():
        try:
            out[int(key)] = entry
        except ValueError:
            abort(400, f"unknown photo {key!r}")
    return out


@bp.post("/calibration/tiles/learn")
@require_pin
def learn():
    truths = _truths(request.get_json(silent=True))
    app = current_app._get_current_object()

    def on_saved() -> str:
        with app.app_context():
            return _restart_camera()

    try:
        learning().start_fit(truths, on_saved)
    except ValueError as exc:
        abort(409, str(exc))
    return _reply("Learning these tiles…")


@bp.post("/calibration/tiles/clear")
@require_pin
def clear():
    try:
        learning().clear_photos()
    except ValueError as exc:
        abort(409, str(exc))
    return _reply("Photos cleared.")


@bp.post("/calibration/tiles/base")
@require_pin
def base_model():
    tl = learning()
    if tl.busy():
        abort(409, "a fit is running: wait for it to finish")
    tl.tiles_file.unlink(missing_ok=True)
    return _reply("Back to the base model: " + _restart_camera())


# -- every correction feeds it ---------------------------------------------------------
#: "this evening": the corrections of the last this many hours
EVENING_HOURS = 12


def _corrections():
    from ..store.tile_corrections import TileCorrections

    return TileCorrections(context().store)


def keep_correction(cell: str, value: int | None) -> bool:
    """After a cell is corrected during a match: keep the camera's newest frame (JPEG)
    with the cell's right value. False when no camera frame exists (manual entry). A
    failure here never fails the correction itself."""
    import logging

    ctx = context()
    frame = getattr(getattr(ctx.camera, "runner", None), "last_frame", None)
    if frame is None or getattr(frame, "image", None) is None:
        return False
    try:
        ok, jpeg = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        if not ok:
            return False
        _corrections().add(ctx.table.name, ctx.table.match_id, cell, value or 0, jpeg.tobytes())
        return True
    except Exception:  # noqa: BLE001 - the correction stands; only its crop is lost
        logging.getLogger(__name__).exception("could not keep the corrected cell's frame")
        return False


@bp.post("/calibration/tiles/learn-corrections")
@require_pin
def learn_corrections():
    import datetime as dt

    since = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=EVENING_HOURS)
             ).isoformat(timespec="seconds")
    rows = _corrections().since(since)
    app = current_app._get_current_object()

    def on_saved() -> str:
        with app.app_context():
            return _restart_camera()

    try:
        learning().start_corrections_fit(rows, on_saved)
    except ValueError as exc:
        abort(409, str(exc))
    return _reply(f"Learning from {len(rows)} corrections…")


@bp.post("/calibration/tiles/corrections/clear")
@require_pin
def clear_corrections():
    n = _corrections().clear()
    return _reply(f"{n} kept corrections deleted.")
