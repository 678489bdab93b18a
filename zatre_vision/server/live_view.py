"""The live view: what the camera sees now, to aim and focus it.

- ``GET /camera/snapshot.jpg``: the newest camera frame, with the registered grid drawn
  over it (green) when the calibration has a board;
- ``GET /camera/stream.mjpg``: the same as an MJPEG stream (multipart/x-mixed-replace)
  at about ``STREAM_FPS`` frames a second, at most ``MAX_VIEWERS`` at once (a third gets
  503) and for at most ``STREAM_MAX_S`` or until the camera stops (a page left open
  does not hold a server thread for ever: the browser's <img> simply stops; reload to
  resume);
- ``GET /api/camera/focus``: the focus meter, the variance of the Laplacian of the
  frame's centre (higher is sharper; the number to maximise while turning the lens),
  with the lens position where the camera reports one.

The Calibration page shows the stream and polls the meter. Frames come from the
running camera service (``CameraControl.runner.last_frame``); nothing here opens the
camera. Its own blueprint, apart from the dashboard's event streams.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from flask import Blueprint, Response, abort, jsonify

from .context import MAX_VIEWERS, context

STREAM_FPS = 2.0
STREAM_MAX_S = 600.0
VIEW_SIDE = 960
BOUNDARY = "zatre-frame"

bp = Blueprint("live_view", __name__)


def _newest_frame(camera=None):
    if camera is None:
        camera = context().camera
    runner = getattr(camera, "runner", None)
    return getattr(runner, "last_frame", None), runner


def focus_measure(image) -> float:
    """Variance of the Laplacian over the middle half of the frame (grey)."""
    import cv2

    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = grey.shape[:2]
    middle = grey[h // 4: h - h // 4, w // 4: w - w // 4]
    return float(cv2.Laplacian(middle, cv2.CV_64F).var())


def _grid_model(width: int, height: int, settings=None):
    """The calibration's grid for a frame of this size, or None."""
    from ..calibrate import files
    from ..config import calibration_path

    path = calibration_path(settings or context().config)
    try:
        cal = files.load_board(path) if Path(path).is_file() else None
        return cal.model_for(width, height) if cal is not None else None
    except Exception:  # noqa: BLE001 - a broken calibration: the picture without a grid
        return None


def view_jpeg(image, model=None, side: int = VIEW_SIDE) -> bytes:
    import cv2

    from ..calibrate.board import draw_preview

    out = draw_preview(image, model) if model is not None else image
    h, w = out.shape[:2]
    f = min(1.0, side / max(h, w))
    if f < 1.0:
        out = cv2.resize(out, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise ValueError("cannot encode the frame")
    return buf.tobytes()


def _no_frame():
    abort(503, "no camera frame yet: start the camera (Setup) and wait a moment")


@bp.get("/camera/snapshot.jpg")
def snapshot():
    frame, _ = _newest_frame()
    if frame is None:
        _no_frame()
    h, w = frame.image.shape[:2]
    return Response(view_jpeg(frame.image, _grid_model(w, h)), mimetype="image/jpeg",
                    headers={"Cache-Control": "no-store"})


@bp.get("/api/camera/focus")
def focus():
    frame, runner = _newest_frame()
    if frame is None:
        _no_frame()
    source = getattr(getattr(runner, "source", None), "source", None)
    lens = (getattr(source, "metadata", None) or {}).get("LensPosition")
    return jsonify({"focus": round(focus_measure(frame.image), 1), "frame": frame.index,
                    "lens_position": lens})


@bp.get("/camera/stream.mjpg")
def stream():
    frame, _ = _newest_frame()
    if frame is None:
        _no_frame()
    viewers = context().viewers
    if not viewers.take():
        abort(503, f"the live view already has {MAX_VIEWERS} viewers; close one first")
    camera, settings = context().camera, context().config

    def frames():
        sent_index, model_size, model = None, None, None
        end = time.monotonic() + STREAM_MAX_S
        while time.monotonic() < end:
            newest, runner = _newest_frame(camera)
            # the camera stopped (a switch), or the server is shutting down
            if runner is None or viewers.stopped:
                break
            if newest is not None and newest.index != sent_index:
                h, w = newest.image.shape[:2]
                if model_size != (w, h):
                    model_size, model = (w, h), _grid_model(w, h, settings)
                jpeg = view_jpeg(newest.image, model)
                sent_index = newest.index
                yield (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                       f"Content-Length: {len(jpeg)}\r\n\r\n").encode() + jpeg + b"\r\n"
            time.sleep(1.0 / STREAM_FPS)

    released = threading.Event()

    def release() -> None:  # once, however the response ends (never started included)
        if not released.is_set():
            released.set()
            viewers.give()

    response = Response(frames(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                        headers={"Cache-Control": "no-store"})
    response.call_on_close(release)
    return response
