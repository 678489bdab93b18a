"""The Raspberry Pi camera through picamera2.

picamera2 needs libcamera from the OS, so it is imported only when this source
opens: nothing else in the project needs it, and it cannot be installed off a Pi.
A main stream of about 1280x960 feeds the reader; a small low-resolution stream
feeds the motion gate. Both come from one ``capture_request()``, so they show the
same moment and each frame costs one capture.

Controls set when it opens (each only where the camera has it, per
``camera_controls``):

* ``FrameDurationLimits``: the sensor runs at ``fps`` (both limits 1e6/fps µs), so a
  5 fps setting gives 5 frames a second, not 30 of which 25 are thrown away;
* ``AeFlickerMode``/``AeFlickerPeriod``: exposure in steps of the lamps' flicker
  (10000 µs for 50 Hz mains, 8333 µs for 60 Hz), so stripes and pulsing brightness do
  not come from mains-powered lights (``flicker_hz`` 0: off);
* the locked controls from the calibration (exposure, white balance, and the lens
  position found by autofocus: ``AfMode`` manual with ``LensPosition``).

Focus by default: a camera with autofocus (Camera Module 3, no lens ring) whose
calibration holds no lens position runs one autofocus cycle on the board when it
opens and locks the lens there (``focus`` then says where), so a passing hand never
refocuses it and no setup step is needed. When the cycle finds nothing sharp (board
not in view yet, dark room) the lens is left in continuous autofocus and ``focus``
says so; `zatre calibrate exposure` stores a lens position that then wins.
"""

from __future__ import annotations

import contextlib
import importlib
import time

import numpy as np

from .base import LORES_SIZE, Frame, SourceError

#: libcamera's enums (controls.AfModeEnum, AeFlickerModeEnum)
AF_MANUAL, AF_AUTO, AF_CONTINUOUS = 0, 1, 2
FLICKER_OFF, FLICKER_MANUAL = 0, 1


def flicker_period_us(mains_hz: int) -> int:
    """Lamps on ``mains_hz`` mains flicker at twice that: 50 Hz -> 10000 µs."""
    return round(1e6 / (2 * mains_hz))


def import_picamera2(module: str = "picamera2"):
    """picamera2, or SourceError with one line. Not only ImportError: with a numpy the
    OS's simplejpeg was not built for, the import raises ValueError ("numpy.dtype size
    changed")."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise SourceError("picamera2 is not installed (it comes with Raspberry Pi OS: "
                          "apt install python3-picamera2)") from None
    except Exception as exc:  # noqa: BLE001 - a half-loading library raises anything
        text = " ".join(f"{exc.__class__.__name__}: {exc}".split())[:160]
        raise SourceError(f"picamera2 cannot be loaded ({text}); the venv's numpy or "
                          "OpenCV is not the one the OS's picamera2 was built for: "
                          "reinstall with firmware_config/install.sh") from None


class Picamera2Source:
    def __init__(self, width: int = 1280, height: int = 960, camera_num: int = 0,
                 controls: dict | None = None, clock=time.monotonic, module: str = "picamera2",
                 fps: float = 5.0, flicker_hz: int = 50, autofocus: bool = True):
        self.name = f"picamera2:{camera_num}"
        self.size = (width, height)
        self.camera_num = camera_num
        self.controls = dict(controls or {})
        self.fps = fps
        self.flicker_hz = flicker_hz
        self._module = module
        self._cam = None
        self._clock = clock
        self._t0 = 0.0
        self._count = 0
        #: the newest frame's metadata (LensPosition, FocusFoM, ExposureTime, ...)
        self.metadata: dict = {}
        #: focus once at open when the calibration holds no lens position
        self.autofocus = autofocus
        #: how the lens was set at open: "locked at 2.21 dioptres (autofocus at start)",
        #: "held by the calibration", "continuous ...", "" (no autofocus)
        self.focus = ""

    def _supported(self, cam, controls: dict) -> dict:
        """``controls`` less those this camera does not have (a camera without
        autofocus has no AfMode); all of them when the camera does not say."""
        known = getattr(cam, "camera_controls", None)
        if not isinstance(known, dict):
            return dict(controls)
        return {k: v for k, v in controls.items() if k in known}

    def start_controls(self) -> dict:
        frame_us = round(1e6 / self.fps)
        controls: dict = {"FrameDurationLimits": (frame_us, frame_us)}
        if self.flicker_hz:
            controls["AeFlickerMode"] = FLICKER_MANUAL
            controls["AeFlickerPeriod"] = flicker_period_us(self.flicker_hz)
        return {**controls, **self.controls}

    def open(self) -> None:
        picamera2 = import_picamera2(self._module)
        try:
            cam = picamera2.Picamera2(self.camera_num)
            config = cam.create_preview_configuration(
                main={"size": self.size, "format": "RGB888"},
                lores={"size": LORES_SIZE, "format": "YUV420"})
            cam.configure(config)
            cam.set_controls(self._supported(cam, self.start_controls()))
            cam.start()
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds
            raise SourceError(f"cannot start the Pi camera: {exc}") from None
        self._focus_once(cam)
        self._cam, self._t0, self._count = cam, self._clock(), 0

    def _focus_once(self, cam) -> None:
        """Autofocus once on what the camera sees (the board) and lock the lens, unless
        the camera has no autofocus or the calibration holds the lens already."""
        if not has_autofocus(cam):
            self.focus = ""
            return
        if "LensPosition" in self.controls:
            self.focus = (f"held at {self.controls['LensPosition']} dioptres by the "
                          "calibration")
            return
        if not self.autofocus:
            return
        try:
            locked = focus_and_lock(cam)
        except Exception as exc:  # noqa: BLE001 - SourceError, or libcamera's own
            with contextlib.suppress(Exception):  # the camera still gives frames
                cam.set_controls({"AfMode": AF_CONTINUOUS})
            self.focus = f"continuous autofocus (the focus at start failed: {exc})"
            return
        self.controls.update(locked)  # a reopen (reconnect) keeps the lens there
        self.focus = (f"locked at {locked['LensPosition']} dioptres (autofocus on the "
                      "board at start)")

    def read(self) -> Frame | None:
        if self._cam is None:
            raise SourceError("camera is not open")
        try:
            request = self._cam.capture_request()  # one capture: both streams, one moment
            try:
                main = request.make_array("main")
                lores = request.make_array("lores")
                self.metadata = dict(request.get_metadata() or {})
            finally:
                request.release()
        except Exception as exc:  # noqa: BLE001
            raise SourceError(f"Pi camera stopped delivering frames: {exc}") from None
        # RGB888 in picamera2 is BGR in memory order, as OpenCV expects.
        image = np.ascontiguousarray(main[:, :, :3])
        if lores.ndim == 2:  # YUV420: the Y plane comes first
            grey = lores[: LORES_SIZE[1], : LORES_SIZE[0]]
        else:
            import cv2

            grey = cv2.cvtColor(lores, cv2.COLOR_BGR2GRAY)
        self._count += 1
        return Frame(image, np.ascontiguousarray(grey), self._count, self._clock() - self._t0)

    def set_controls(self, controls: dict) -> None:
        """Exposure and white-balance locks from the calibration."""
        self.controls.update(controls)
        if self._cam is not None:
            self._cam.set_controls(self._supported(self._cam, controls))

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            finally:
                self._cam = None


def has_autofocus(cam) -> bool:
    known = getattr(cam, "camera_controls", None)
    return isinstance(known, dict) and "AfMode" in known


def focus_and_lock(cam) -> dict:
    """Run one autofocus cycle on a started camera (Camera Module 3) and return the
    controls that hold the lens there: ``{"AfMode": manual, "LensPosition": dioptres}``;
    empty for a camera without autofocus. Raises SourceError when the cycle fails
    (nothing sharp in view)."""
    if not has_autofocus(cam):
        return {}
    cam.set_controls({"AfMode": AF_AUTO})
    if not cam.autofocus_cycle():
        raise SourceError("autofocus found nothing sharp: is the board in view and lit?")
    position = cam.capture_metadata().get("LensPosition")
    if position is None:
        raise SourceError("the camera reports no LensPosition after autofocus")
    controls = {"AfMode": AF_MANUAL, "LensPosition": round(float(position), 3)}
    cam.set_controls(controls)
    return controls
