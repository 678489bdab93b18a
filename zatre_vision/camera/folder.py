"""An image folder as a camera: the ``zatre replay`` format.

Frames are the folder's JPEG/PNG files in name order; ``meta.json`` may give
``{"players": [...], "fps": 5}`` (and ``"starter"``, who plays first; default the
first player); ``events.jsonl`` may hold table events
(``{"frame": 120, "event": "end_turn"}``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .base import Frame, SourceError, make_lores
from .image_file import ImageFileError, load_image_file

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}
EVENTS = {"end_turn", "undo"}
DEFAULT_FPS = 5.0


@dataclass(frozen=True)
class FolderMeta:
    players: list[str]
    fps: float
    events: dict[int, list[str]]  # frame number -> events after that frame
    starter: str | None = None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise SourceError(f"{path}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise SourceError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise SourceError(f"{path}: cannot be read ({exc.__class__.__name__})") from None


def _decode_json(text: str, where: str) -> object:
    try:
        return json.loads(text)
    except RecursionError:
        raise SourceError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:
        raise SourceError(f"{where}: not valid JSON ({exc})") from None


def read_meta(folder: Path) -> FolderMeta:
    """meta.json and events.jsonl of a replay folder (SourceError when malformed)."""
    players, fps, starter = ["Player 1", "Player 2"], DEFAULT_FPS, None
    meta_path = folder / "meta.json"
    if meta_path.exists():
        meta = _decode_json(_read_text(meta_path), str(meta_path))
        if not isinstance(meta, dict):
            raise SourceError(f"{meta_path}: must be a JSON object")
        players = meta.get("players", players)
        if (not isinstance(players, list) or not 1 <= len(players) <= 6
                or not all(isinstance(p, str) and p for p in players)
                or len(set(players)) != len(players)):
            raise SourceError(f"{meta_path}: 'players' must list 1 to 6 different names")
        fps = meta.get("fps", fps)
        if not isinstance(fps, (int, float)) or isinstance(fps, bool) or not 0 < fps <= 120:
            raise SourceError(f"{meta_path}: 'fps' must be a number between 0 and 120")
        starter = meta.get("starter")
        if starter is not None and starter not in players:
            raise SourceError(f"{meta_path}: 'starter' must be one of the players")
    events: dict[int, list[str]] = {}
    events_path = folder / "events.jsonl"
    if events_path.exists():
        for n, line in enumerate(_read_text(events_path).splitlines(), start=1):
            if not line.strip():
                continue
            ev = _decode_json(line, f"{events_path} line {n}")
            event = ev.get("event") if isinstance(ev, dict) else None
            if not isinstance(event, str) or event not in EVENTS:
                raise SourceError(f"{events_path} line {n}: event must be one of {sorted(EVENTS)}")
            frame = ev.get("frame")
            if not isinstance(frame, int) or isinstance(frame, bool) or frame < 0:
                raise SourceError(f"{events_path} line {n}: 'frame' must be a frame number")
            events.setdefault(frame, []).append(event)
    return FolderMeta(list(players), float(fps), events, starter)


def frame_number(path: Path, position: int) -> int:
    """The frame number of a file: its name's digits (000131.jpg -> 131), else its
    1-based position."""
    digits = "".join(ch for ch in path.stem if ch in "0123456789")
    return int(digits) if digits else position


def _decode_frame(path: Path) -> tuple[np.ndarray | None, str]:
    """(the frame's image, "") or (None, why) for a file that is empty, unreadable,
    corrupt, not a JPEG or PNG, not a regular file or over the size limits (its
    header is read first: a small file claiming 32000x32000 is refused undecoded)."""
    try:
        return load_image_file(path), ""
    except ImageFileError as exc:
        return None, str(exc)


class FolderSource:
    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.name = f"folder:{self.folder}"
        self._files: list[Path] = []
        self._pos = 0
        self.fps = DEFAULT_FPS
        self.skipped: list[str] = []
        #: why each skipped file was skipped (name -> one-line reason)
        self.skip_reasons: dict[str, str] = {}

    def open(self) -> None:
        if not self.folder.is_dir():
            raise SourceError(f"{self.folder}: no such folder")
        self.fps = read_meta(self.folder).fps
        self._files = sorted(p for p in self.folder.iterdir()
                             if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not self._files:
            raise SourceError(f"{self.folder}: no JPEG or PNG frames")
        self._pos = 0

    def read(self) -> Frame | None:
        while self._pos < len(self._files):
            path = self._files[self._pos]
            self._pos += 1
            image, why = _decode_frame(path)
            if image is None:
                self.skipped.append(path.name)  # a corrupt frame is dropped, not fatal
                self.skip_reasons[path.name] = why
                continue
            number = frame_number(path, self._pos)
            return Frame(image, make_lores(image), number, number / self.fps)
        return None

    def close(self) -> None:
        self._files = []
