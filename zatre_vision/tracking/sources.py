"""From a camera setting to a running camera service.

``demo`` or ``synthetic``: simulated games rendered live (the self-playing demo);
``picamera2``: the Pi camera; a number: an OpenCV camera; a URL or video file: an
OpenCV stream; an existing folder: its frames, as recorded (``zatre replay`` format).
"""

from __future__ import annotations

import dataclasses
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from ..camera.base import FrameSource, SourceError
from ..camera.folder import FolderSource, read_meta
from ..camera.opencv_source import OpenCVSource
from ..camera.picamera import Picamera2Source
from ..camera.synthetic import SyntheticSource
from .live_reader import LiveBoardReader
from .pipeline import PipelineConfig
from .service import CameraService

SYNTHETIC = ("demo", "synthetic")
DEMO_SIZE = (960, 720)


def open_source(spec: str, players: Sequence[str] | None = None, seed: int | None = None,
                size: tuple[int, int] = (1280, 960), controls: dict | None = None,
                fps: float = 5.0, flicker_hz: int = 50) -> FrameSource:
    """The frame source a camera setting names (not opened yet). ``controls``: the Pi
    camera's locked exposure, white balance and focus (``zatre calibrate exposure``);
    ``fps`` the rate asked of a real camera; ``flicker_hz`` the mains frequency whose
    lamp flicker the Pi camera's exposure avoids (0: off)."""
    spec = spec.strip()
    if spec in SYNTHETIC:
        names = tuple(players) if players and 2 <= len(players) <= 4 else ("Ann", "Ben")
        return SyntheticSource(seed if seed is not None else random.SystemRandom().randrange(10**6),
                               *DEMO_SIZE, players=names)
    if spec == "picamera2":
        return Picamera2Source(*size, controls=controls, fps=fps, flicker_hz=flicker_hz)
    if spec.isdigit() or "://" in spec:
        return OpenCVSource(spec, *size, fps=fps)
    path = Path(spec)
    if path.is_dir():
        return RecordedGameSource(path)
    if path.is_file():
        return OpenCVSource(str(path), *size)
    raise SourceError(f"camera source {spec!r}: not demo, picamera2, a device number, a URL, "
                      "a video file or a folder of frames")


class RecordedGameSource:
    """A folder of frames as a camera, with the folder's ``events.jsonl`` (the players'
    "end turn" presses) attached to their frames, so that a recorded game plays
    through the camera service as it does through ``zatre replay``."""

    def __init__(self, folder: Path):
        self.inner = FolderSource(folder)
        self.name = self.inner.name
        self.events = read_meta(Path(folder)).events

    def open(self) -> None:
        self.inner.open()

    def read(self):
        frame = self.inner.read()
        if frame is None:
            return None
        extra = self.events.get(frame.index)
        return dataclasses.replace(frame, events=(*frame.events, *extra)) if extra else frame

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name):
        return getattr(self.inner, name)


def model_available() -> bool:
    from ..vision.reading.classify import DEFAULT_MODEL

    return Path(DEFAULT_MODEL).is_file()


def camera_service(table, spec: str, players: Sequence[str] | None = None,
                   seed: int | None = None, config: PipelineConfig | None = None,
                   model: str | None = None, calibration: str | None = None,
                   size: tuple[int, int] = (1280, 960), fps: float | None = None,
                   flicker_hz: int = 50) -> CameraService:
    """A camera service for ``table`` reading ``spec`` with the ONNX board reader.

    ``calibration``: the calibration file (``zatre calibrate``); its board part fixes
    the grid, its locked camera controls go to the Pi camera. A missing file or one
    without a board part yet is fine: the reader then searches every frame. The table's
    own tiles (``zatre calibrate tiles``), stored beside it
    (``tile_adapt.tiles_path``), are read with.

    Raises SourceError for a source that cannot be named (not for one that is merely
    unplugged: that one is retried with back-off once the service runs)."""
    from ..calibrate import files

    controls = files.load_controls(calibration) if calibration and Path(calibration).is_file() \
        else None
    source = open_source(spec, players, seed, size, controls, fps or 5.0, flicker_hz)

    def reader():
        from ..vision.reader import BoardReader
        from ..vision.reading.classify import DEFAULT_MODEL
        from ..vision.reading.tile_adapt import TilesError, load_beside

        synthetic = spec.strip() in SYNTHETIC
        cal = files.load_board(calibration) if not synthetic else None
        tiles = load_beside(calibration) if not synthetic else None
        try:
            board_reader = BoardReader(Path(model) if model else DEFAULT_MODEL, threads=1,
                                       calibration=cal, tiles=tiles)
        except TilesError as exc:  # made for another pip model
            print(f"zatre: {exc}; reading with the base model", file=sys.stderr)
            board_reader = BoardReader(Path(model) if model else DEFAULT_MODEL, threads=1,
                                       calibration=cal)
        return LiveBoardReader(board_reader)

    # the synthetic demo paces itself; every other source is held to ``fps``
    pace = fps if fps and spec.strip() not in SYNTHETIC else None
    return CameraService(table, source, reader, config, fps=pace)
