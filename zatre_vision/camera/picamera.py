"""The Raspberry Pi camera through picamera2.

picamera2 needs libcamera from the OS, so it is imported only when this source
opens: nothing else in the project needs it, and it cannot be installed off a Pi.
A main stream of about 1280x960 feeds the reader; a small low-resolution stream
feeds the motion gate.
"""

from __future__ import annotations

import importlib
import time

import cv2
import numpy as np

from .base import LORES_SIZE, Frame, SourceError


class Picamera2Source:
    def __init__(self, width: int = 1280, height: int = 960, camera_num: int = 0,
                 controls: dict | None = None, clock=time.monotonic, module: str = "picamera2"):
        self.name = f"picamera2:{camera_num}"
        self.size = (width, height)
        self.camera_num = camera_num
        self.controls = dict(controls or {})
        self._module = module
        self._cam = None
        self._clock = clock
        self._t0 = 0.0
        self._count = 0

    def open(self) -> None:
        try:
            picamera2 = importlib.import_module(self._module)
        except ImportError:
            raise SourceError("picamera2 is not installed (it comes with Raspberry Pi OS: "
                              "apt install python3-picamera2)") from None
        try:
            cam = picamera2.Picamera2(self.camera_num)
            config = cam.create_preview_configuration(
                main={"size": self.size, "format": "RGB888"},
                lores={"size": LORES_SIZE, "format": "YUV420"})
            cam.configure(config)
            if self.controls:
                cam.set_controls(self.controls)
            cam.start()
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds
            raise SourceError(f"cannot start the Pi camera: {exc}") from None
        self._cam, self._t0, self._count = cam, self._clock(), 0

    def read(self) -> Frame | None:
        if self._cam is None:
            raise SourceError("camera is not open")
        try:
            main = self._cam.capture_array("main")
            lores = self._cam.capture_array("lores")
        except Exception as exc:  # noqa: BLE001
            raise SourceError(f"Pi camera stopped delivering frames: {exc}") from None
        # RGB888 in picamera2 is BGR in memory order, as OpenCV expects.
        image = np.ascontiguousarray(main[:, :, :3])
        grey = lores[: LORES_SIZE[1], : LORES_SIZE[0]] if lores.ndim == 2 else cv2.cvtColor(
            lores, cv2.COLOR_BGR2GRAY)
        self._count += 1
        return Frame(image, np.ascontiguousarray(grey), self._count, self._clock() - self._t0)

    def set_controls(self, controls: dict) -> None:
        """Exposure and white-balance locks from the calibration."""
        self.controls.update(controls)
        if self._cam is not None:
            self._cam.set_controls(controls)

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            finally:
                self._cam = None
