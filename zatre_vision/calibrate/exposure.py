"""Exposure, white-balance and focus lock for the Pi camera: let auto exposure (AE) and
auto white balance (AWB) settle on the lit board (with the flicker of mains-powered
lamps avoided), then fix their values so the reader sees the same brightness and
colours all evening (AE hunting when hands pass the camera would otherwise change
every cell's look). A camera with autofocus (Camera Module 3) then focuses once on the
board and its lens position is stored beside the exposure (``AfMode`` manual,
``LensPosition``), so it does not refocus on a passing hand."""

from __future__ import annotations

import time


class ExposureError(RuntimeError):
    """The camera cannot be used for the lock (one-line reason)."""


def _stable(a: dict, b: dict, tol: float = 0.03) -> bool:
    for key in ("ExposureTime", "AnalogueGain"):
        x, y = float(a[key]), float(b[key])
        if abs(x - y) > tol * max(abs(x), abs(y), 1e-9):
            return False
    ga, gb = a.get("ColourGains"), b.get("ColourGains")
    if ga and gb:
        return all(abs(float(x) - float(y)) <= tol * max(abs(float(x)), 1e-9)
                   for x, y in zip(ga, gb, strict=False))
    return True


def settle_controls(cam, settle_s: float = 3.0, step_s: float = 0.2, sleep=time.sleep,
                    clock=time.monotonic) -> tuple[dict, bool]:
    """Read frame metadata until AE/AWB hold still for three reads (or ``settle_s``
    passes); the locked controls and whether they settled."""
    start = clock()
    last, still = None, 0
    md: dict = {}
    while True:
        md = cam.capture_metadata()
        if "ExposureTime" not in md or "AnalogueGain" not in md:
            raise ExposureError("the camera reports no ExposureTime/AnalogueGain metadata")
        still = still + 1 if last is not None and _stable(last, md) else 0
        last = md
        if still >= 3:
            settled = True
            break
        if clock() - start >= settle_s:
            settled = False
            break
        sleep(step_s)
    controls = {"AeEnable": False, "ExposureTime": int(md["ExposureTime"]),
                "AnalogueGain": round(float(md["AnalogueGain"]), 4)}
    if md.get("ColourGains"):
        controls["AwbEnable"] = False
        controls["ColourGains"] = tuple(round(float(g), 4) for g in md["ColourGains"][:2])
    return controls, settled


def lock_exposure(size: tuple[int, int] = (1280, 960), camera_num: int = 0,
                  settle_s: float = 3.0, module: str = "picamera2", sleep=time.sleep,
                  flicker_hz: int = 50, focus: bool = True) -> tuple[dict, bool]:
    """Open the Pi camera with AE/AWB (and AF) on, let them settle, return the controls
    to lock: exposure, white balance and, with autofocus, the lens position."""
    from ..camera.base import SourceError
    from ..camera.picamera import (
        FLICKER_MANUAL,
        flicker_period_us,
        focus_and_lock,
        import_picamera2,
    )

    try:
        picamera2 = import_picamera2(module)
    except SourceError as exc:
        raise ExposureError(f"{exc}; the exposure lock is for the Pi camera") from None
    try:
        cam = picamera2.Picamera2(camera_num)
        cam.configure(cam.create_preview_configuration(main={"size": size,
                                                             "format": "RGB888"}))
        start = {"AeEnable": True, "AwbEnable": True}
        known = getattr(cam, "camera_controls", None)
        if flicker_hz and isinstance(known, dict) and "AeFlickerMode" in known:
            start |= {"AeFlickerMode": FLICKER_MANUAL,
                      "AeFlickerPeriod": flicker_period_us(flicker_hz)}
        cam.set_controls(start)
        cam.start()
    except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds
        raise ExposureError(f"cannot start the Pi camera ({exc}); is `zatre serve` using it? "
                            "Stop the service first: sudo systemctl stop zatre") from None
    try:
        controls, settled = settle_controls(cam, settle_s, sleep=sleep)
        if focus:
            try:
                controls |= focus_and_lock(cam)
            except SourceError as exc:
                raise ExposureError(str(exc)) from None
        return controls, settled
    finally:
        try:
            cam.stop()
            cam.close()
        except Exception:  # noqa: BLE001
            pass
