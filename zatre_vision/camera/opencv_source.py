"""OpenCV cameras: a USB camera index, a stream URL, or a video file.

A USB camera (V4L2) is asked for ``fps`` frames a second in MJPG (a 1280x960 YUYV
stream does not fit USB 2 at any useful rate) with a buffer of one frame, so that a
paced reader gets the newest frame rather than one queued seconds ago."""

from __future__ import annotations

import time

import cv2

from .base import Frame, SourceError, make_lores


def parse_spec(spec: str | int) -> str | int:
    """"0" -> camera index 0; anything else is a URL or a file path."""
    if isinstance(spec, int):
        return spec
    return int(spec) if spec.strip().isdigit() else spec


class OpenCVSource:
    def __init__(self, spec: str | int, width: int = 1280, height: int = 960,
                 clock=time.monotonic, fps: float = 5.0, capture=None):
        self.spec = parse_spec(spec)
        self.name = f"opencv:{self.spec}"
        self.width, self.height = width, height
        self._cap = None
        self._clock = clock
        self._t0 = 0.0
        self._count = 0
        self._is_file = isinstance(self.spec, str) and "://" not in self.spec
        self.fps = fps
        self._capture = capture or cv2.VideoCapture

    def open(self) -> None:
        cap = self._capture(self.spec)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open camera {self.spec!r}")
        if isinstance(self.spec, int):
            cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
            cap.set(cv2.CAP_PROP_FPS, self.fps)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._cap, self._t0, self._count = cap, self._clock(), 0

    def read(self) -> Frame | None:
        if self._cap is None:
            raise SourceError("camera is not open")
        ok, image = self._cap.read()
        if not ok or image is None:
            if self._is_file:
                return None  # end of the video file
            raise SourceError(f"camera {self.spec!r} stopped delivering frames")
        self._count += 1
        return Frame(image, make_lores(image), self._count, self._clock() - self._t0)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
