"""The table's own tiles, learnt on the dashboard: the service the Calibration page's
"learn these tiles" calls (``server/tile_learning.py``, its routes; the app factory
builds one ``TileLearningService`` per app).

The page suggests a layout (``calibrate.tiles.suggested_layout``). The operator adds
photos of it, from the camera's newest frame or as an uploaded file (PIN); each is read
at once with the model the table reads with now, and kept, with its reading, in
``<data_dir>/tiles-calibration/``. The operator corrects the reading on a board
diagram and presses "learn these tiles" (PIN): a worker thread runs the same fit as
``zatre calibrate tiles`` (truth check, held-back check), while the page polls its
state, so no other request waits. A fit that succeeds is stored beside the table's
calibration (``tile_adapt.tiles_path``: the file the live service reads) and the
camera pipeline restarts with it; "back to the base model" deletes that file.

It stands on the services floor, above the domain packages and below the dashboard: it
builds a ``BoardReader`` and runs the fit, which the dashboard does not (ARCHITECTURE.md,
the floors).
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import cv2
import numpy as np

from ..config import calibration_path
from ..vision.geometry import CELL_NAMES, IS_LIGHT

#: photos kept for one calibration at most (the fit reads each several times)
MAX_PHOTOS = 6


class TileLearning:
    """The photos of one calibration, the fit's worker and its last outcome."""

    def __init__(self, folder: Path, tiles_file: Path, model: Path | None,
                 stopping: threading.Event | None = None):
        self.folder = folder
        self.tiles_file = tiles_file
        self.model = model
        #: set when the app's service stops: no fit starts after it
        self.stopping = stopping or threading.Event()
        self._lock = threading.Lock()
        self._job: dict = {"state": "idle"}
        self._worker: threading.Thread | None = None

    # -- readers ------------------------------------------------------------------------
    def reader(self, adapted: bool):
        from ..vision.reader import BoardReader
        from ..vision.reading.classify import DEFAULT_MODEL
        from ..vision.reading.tile_adapt import TileAdaptation, TilesError, attach

        r = BoardReader(self.model or DEFAULT_MODEL, threads=1)
        if adapted and self.tiles_file.is_file():
            try:
                attach(r.classifier, TileAdaptation.load(self.tiles_file), str(self.tiles_file))
            except TilesError:
                r.classifier.adaptation = None
        return r

    # -- photos -------------------------------------------------------------------------
    def _index(self) -> list[dict]:
        path = self.folder / "photos.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return data if isinstance(data, list) else []
        except (OSError, ValueError):
            return []

    def _save_index(self, photos: list[dict]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / "photos.json.tmp"
        tmp.write_text(json.dumps(photos), encoding="utf-8")
        tmp.replace(self.folder / "photos.json")

    def photos(self) -> list[dict]:
        return self._index()

    def add_photo(self, image: np.ndarray) -> dict:
        """Read ``image`` with the table's model now; keep it. ValueError (one line)
        when no board is found or too many photos are kept."""
        if len(self._index()) >= MAX_PHOTOS:
            raise ValueError(f"at most {MAX_PHOTOS} photos: learn from these, or start again")
        result = self.reader(adapted=True).read(image)
        if not result.board_found:
            raise ValueError("no board found in the photo: the whole board must be in view")
        with self._lock:  # two uploads at once get two numbers
            return self._keep(image, result)

    def _keep(self, image: np.ndarray, result) -> dict:
        photos = self._index()
        number = max((p["id"] for p in photos), default=0) + 1
        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"photo-{number}.png"
        cv2.imwrite(str(self.folder / name), image)
        entry = {"id": number, "file": name, "cells": result.cells,
                 "uncertain": sorted(result.uncertain)}
        photos.append(entry)
        self._save_index(photos)
        return entry

    def clear_photos(self) -> None:
        if self.busy():
            raise ValueError("a fit is running: wait for it to finish")
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- the fit ------------------------------------------------------------------------
    def busy(self) -> bool:
        return self._job.get("state") == "running"

    def job(self) -> dict:
        return dict(self._job)

    def start_fit(self, truths: dict[int, dict], on_saved) -> None:
        """Fit in a worker thread from the kept photos with ``truths`` (photo id ->
        {"cells": {...}, "ignore": [...]}). ValueError when one runs or a truth is bad."""
        from ..calibrate.tiles import TruthError, parse_truth

        photos = [p for p in self._index() if p["id"] in truths]
        if not photos:
            raise ValueError("take a photo of the tiles first")
        keyed = {p["file"]: truths[p["id"]] for p in photos}
        try:
            parsed = parse_truth(keyed, [p["file"] for p in photos], "the corrections")
        except TruthError as exc:
            raise ValueError(str(exc)) from None
        items = [(f"photo {p['id']}", self.folder / p["file"], parsed[p["file"]])
                 for p in photos]
        self._start(items, on_saved, f"learning from {len(items)} photo"
                    f"{'s' if len(items) > 1 else ''}…", skip_unreadable=False)

    def start_corrections_fit(self, rows: list[dict], on_saved) -> None:
        """Fit from cells corrected during matches (``store.tile_corrections`` rows):
        each frame is a photo whose corrected cells are known and every other cell is
        left out. Frames where no board is found are skipped."""
        from ..calibrate.tiles import Truth

        if not rows:
            raise ValueError("no corrections kept in that time: nothing to learn from")
        frames: dict[bytes, dict[str, int]] = {}
        for r in rows:  # the last correction of a cell in one frame counts
            frames.setdefault(r["frame"], {})[r["cell"]] = int(r["value"])
        items = []
        for k, (jpeg, cells) in enumerate(frames.items(), start=1):
            truth = Truth({c: v for c, v in cells.items() if v},
                          frozenset(n for n in CELL_NAMES if n not in cells))
            items.append((f"corrected frame {k}", jpeg, truth))
        self._start(items, on_saved, f"learning from {len(rows)} corrections in "
                    f"{len(items)} frames…", skip_unreadable=True)

    def _start(self, items: list, on_saved, message: str, skip_unreadable: bool) -> None:
        with self._lock:
            if self.busy():
                raise ValueError("a fit is already running")
            if self.stopping.is_set():
                raise ValueError("the server is shutting down: no fit starts now")
            self._job = {"state": "running", "message": message}
            self._worker = threading.Thread(target=self._fit,
                                            args=(items, on_saved, skip_unreadable),
                                            name="tile-learning", daemon=True)
            self._worker.start()

    @staticmethod
    def _image(source) -> np.ndarray | None:
        if isinstance(source, bytes):
            return cv2.imdecode(np.frombuffer(source, np.uint8), cv2.IMREAD_COLOR)
        return cv2.imread(str(source), cv2.IMREAD_COLOR)

    def _fit(self, items: list, on_saved, skip_unreadable: bool) -> None:
        from ..calibrate.tiles import TruthError, calibrate_tiles, load_photo
        from ..vision.reading.tile_adapt import TilesError

        try:
            reader = self.reader(adapted=False)
            loaded = []
            for name, source, truth in items:
                image = self._image(source)
                try:
                    if image is None:
                        raise TruthError(f"{name}: the kept image cannot be read; take it again")
                    loaded.append(load_photo(reader, image, name, truth))
                except TruthError:
                    if not skip_unreadable:
                        raise
            if not loaded:
                raise TruthError("no board found in any corrected frame: nothing to learn from")
            head, summary = calibrate_tiles(reader, loaded)
            self.tiles_file.parent.mkdir(parents=True, exist_ok=True)
            head.save(self.tiles_file)
            note = on_saved()
            message = ("Learnt: " if head.adapted else "Not better than the base model, "
                       "which stays: ") + note
            self._job = {"state": "done", "message": message, "report": summary}
        except (TruthError, TilesError, ValueError, OSError) as exc:
            self._job = {"state": "error", "message": str(exc)}
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the server
            current = f"the fit failed ({type(exc).__name__}); the base model stays"
            self._job = {"state": "error", "message": current}

    def wait(self, timeout: float | None = None) -> None:
        w = self._worker
        if w is not None:
            w.join(timeout)

    # -- the stored adaptation ----------------------------------------------------------
    def stored(self) -> dict | None:
        if not self.tiles_file.is_file():
            return None
        try:
            d = json.loads(self.tiles_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"adapted": False, "report": None, "broken": True}
        return {"adapted": bool(d.get("adapted")), "report": d.get("report")}


class TileLearningService:
    """What the dashboard calls: the ``TileLearning`` of the table's tiles file now (a
    new one when the settings move the calibration), the board's cells and the layouts
    to suggest. One per app, built by ``server.create_app`` and started and stopped with
    the app's ``ServerContext``: once stopped, no fit starts."""

    def __init__(self) -> None:
        self._current: TileLearning | None = None
        self._stopping = threading.Event()

    def start(self) -> None:
        self._stopping.clear()

    def stop(self, timeout: float | None = 0.0) -> None:
        """No fit starts after this; a running one (a daemon thread) is waited for up to
        ``timeout`` seconds (None: until it ends)."""
        self._stopping.set()
        if timeout is None or timeout > 0:
            self.wait(timeout)

    def learning(self, settings) -> TileLearning:
        tiles_file = self.tiles_file(settings)
        current = self._current
        if current is None or current.tiles_file != tiles_file:
            folder = Path(settings.server.data_dir) / "tiles-calibration"
            current = TileLearning(folder, tiles_file, settings.camera.model, self._stopping)
            self._current = current
        return current

    @staticmethod
    def tiles_file(settings) -> Path:
        from ..vision.reading.tile_adapt import tiles_path

        return tiles_path(calibration_path(settings))

    @staticmethod
    def board() -> dict:
        """The cells of the board diagram, and which are light."""
        return {"cells": list(CELL_NAMES),
                "light": [n for n, lit in zip(CELL_NAMES, IS_LIGHT, strict=True) if lit]}

    @staticmethod
    def layouts(count: int) -> list[dict]:
        from ..calibrate.tiles import suggested_layout

        return [suggested_layout(i) for i in range(count)]

    def wait(self, timeout: float | None = None) -> None:
        """Until the running fit ends (tests)."""
        if self._current is not None:
            self._current.wait(timeout)
