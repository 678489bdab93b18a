"""The frame-source interface shared by every camera."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

#: Size of the low-resolution stream used for motion (as picamera2's lores stream).
LORES_SIZE = (320, 240)


class SourceError(RuntimeError):
    """A source that cannot be opened or has stopped delivering frames."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # main stream, BGR uint8 (about 1280x960 live)
    lores: np.ndarray  # low-resolution grey stream for the motion gate
    index: int  # 1-based frame number within the source
    time: float  # seconds since the source started
    #: Table events that follow this frame (the synthetic players press "end turn").
    events: tuple[str, ...] = ()
    #: Set on the first frame of a new game by sources that play games themselves
    #: (the synthetic demo): {"players": [...], "starter": name}.
    new_game: dict | None = None
    #: Set on the still frames after a game that played to its end (the synthetic
    #: demo): {"minus": {player: pips}, "turns": n, "final": bool}. The table finishes
    #: its match once it has the game's ``turns``, or at the ``final`` frame.
    game_over: dict | None = None


@dataclass
class CameraStatus:
    """What the dashboard shows about the camera."""

    state: str = "starting"  # starting | ok | reconnecting | lost | ended | off
    source: str = ""
    message: str = ""
    frames: int = 0
    reconnects: int = 0
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"state": self.state, "source": self.source, "message": self.message,
                "frames": self.frames, "reconnects": self.reconnects, **self.extra}


class FrameSource(Protocol):
    """Every camera: open, read frames until None (the end), close."""

    name: str

    def open(self) -> None:
        """Start delivering frames. Raises SourceError when it cannot."""

    def read(self) -> Frame | None:
        """The next frame; None at the end of a finite source. Raises SourceError when
        the camera has gone away."""

    def close(self) -> None: ...


def make_lores(image: np.ndarray) -> np.ndarray:
    """The low-resolution grey stream for sources that have only one stream."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return cv2.resize(grey, LORES_SIZE, interpolation=cv2.INTER_AREA)
