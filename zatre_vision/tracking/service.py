"""The camera service: a thread that runs frames through the live pipeline into a Table.

source (reconnecting) -> LivePipeline (motion gate, reader, tracker) -> TableSink ->
Table (rules, sheets, store, dashboards). It reports the camera's state to the table
(``ok``, ``reconnecting``, ``no-board``, ``unreadable``, ...), keeps going when the
camera drops out or the board is bumped, and takes ``end_turn`` / ``undo`` from the
dashboard or a button through :meth:`request`. The game itself lives in the table and its store,
so nothing is lost when the camera or this thread stops.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

import cv2

from ..camera.base import CameraStatus, Frame, FrameSource
from ..camera.pacing import FramePacer
from ..camera.reconnect import ReconnectingSource
from ..match import MatchError
from ..store import StoreError
from .pipeline import CellReader, LivePipeline, PipelineConfig
from .sink import TableSink

log = logging.getLogger(__name__)

#: Longest side of the per-turn snapshot kept in the records.
SNAPSHOT_SIDE = 320
STATUS_EVERY_S = 2.0
#: after a fault of the pipeline (not of the camera), the wait before the next frame,
#: doubling with every fault in a row up to the second figure
FAULT_RETRY_S = 1.0
FAULT_RETRY_MAX_S = 30.0
#: a connected camera with no frame for this long is reported as stalled (checked every
#: WATCH_EVERY_S); before the first frame, counted from the start of the capture loop
#: (a first capture that never returns is a stall too)
STALL_S = 10.0
WATCH_EVERY_S = 1.0


def snapshot_jpeg(image, side: int = SNAPSHOT_SIDE) -> bytes | None:
    h, w = image.shape[:2]
    scale = side / max(h, w)
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 75])
    return buf.tobytes() if ok else None


def waiting_turn_info(waiting: dict, match) -> dict:
    """The table's ``waiting_turn`` from the tracker's ``waiting_turn()``: which turn,
    whose, which cells, and what the table should do, in one line."""
    cells = waiting["cells"]
    names = ", ".join(cells)
    ambiguous = waiting["ambiguous"]
    if ambiguous and len(ambiguous) == len(cells):
        message = (f"cannot tell whether the tile on {names} belongs to this turn (a hand "
                   "passed over it after End turn): enter its value, or say no tile of "
                   "this turn lies there")
    else:
        message = f"cannot read {names}: lift the hand, or enter its value"
    queued = waiting["queued"]
    if queued:
        message += (f" ({queued} later turn{'s wait' if queued > 1 else ' waits'} "
                    "behind it)")
    if waiting.get("repeat_presses"):
        message += ("; End turn pressed again meanwhile was taken as the same press (a "
                    "player who passed presses once more when this turn is in)")
    return {"turn": len(match.turns) + 1, "player": match.current_player, "cells": cells,
            "ambiguous": ambiguous, "queued": queued, "message": message}


class CameraService:
    """``start()`` / ``stop()`` / ``request(event)``; see the module doc."""

    def __init__(self, table, source: FrameSource, reader_factory: Callable[[], CellReader],
                 config: PipelineConfig | None = None, clock=time.monotonic,
                 fps: float | None = None, on_frame: Callable[[], None] | None = None,
                 stall_s: float = STALL_S, watch_every_s: float = WATCH_EVERY_S):
        self.table = table
        self.source = ReconnectingSource(source, on_status=self._camera_status)
        self.reader_factory = reader_factory
        self.config = config or PipelineConfig()
        self._clock = clock
        self._events: queue.Queue[str | tuple] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.pipeline: LivePipeline | None = None
        self.sink: TableSink | None = None
        self.error: str | None = None
        self._status_at = 0.0
        self._fps_mark = (0.0, 0)
        #: the newest frame read (the dashboard's board registration takes it)
        self.last_frame: Frame | None = None
        self._frame_at: float | None = None  # when the newest frame came (clock)
        self._capturing_since: float | None = None  # when the capture loop began (clock)
        self._stalled = False
        self.stall_s, self.watch_every_s = stall_s, watch_every_s
        self._watchdog: threading.Thread | None = None
        self._hung_thread: threading.Thread | None = None
        #: at most ``fps`` frames are read a second (None: as fast as they come)
        self.pacer = FramePacer(fps, clock, self._stop.wait) if fps else None
        #: called after every frame read (the systemd watchdog is fed from it)
        self.on_frame = on_frame

    # -- control ------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="camera-service", daemon=True)
        self._thread.start()
        self._watchdog = threading.Thread(target=self._watch, name="camera-watchdog",
                                          daemon=True)
        self._watchdog.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():  # a capture that hangs: left behind, stopped
                self._hung_thread = self._thread
            self._thread = None
        if self._watchdog is not None:
            self._watchdog.join(timeout)
            self._watchdog = None

    @property
    def capture_hung(self) -> bool:
        """Stopped, but its capture thread has not returned (a read that hangs)."""
        return self._hung_thread is not None and self._hung_thread.is_alive()

    def _watch(self) -> None:
        """A camera that says it is connected (or is still opening) but whose read never
        returns (a hung driver, a first capture that never comes back) would leave the
        state "ok" for good: after ``stall_s`` with no frame (before the first frame:
        since the capture loop began) the table is told, once, until frames come again;
        ``server/camera_restarts.py`` then starts the pipeline again. A camera that is
        away ("lost", "reconnecting") is the reconnect logic's, not a stall."""
        while not self._stop.wait(self.watch_every_s):
            since = self._frame_at if self._frame_at is not None else self._capturing_since
            if (since is None or self._stalled
                    or self.source.status.state not in ("ok", "starting")
                    or self._clock() - since < self.stall_s):
                continue
            self._stalled = True
            self.table.set_camera_status({
                "state": "stalled",
                "message": f"camera stalled: no frame for {self._clock() - since:.0f} s; it "
                           "is restarted on its own, enter turns by hand meanwhile"})

    def request(self, event: str) -> None:
        """An ``end_turn`` or ``undo`` from the dashboard, a button or the keyboard."""
        if event not in ("end_turn", "undo"):
            raise ValueError(f"unknown event {event!r} (end_turn, undo)")
        self._events.put(event)

    def request_cell(self, cell: str, value: int | None) -> None:
        """The operator's value for the cell a waiting turn cannot read (None: no tile
        of that turn lies there); the camera thread gives it to the tracker."""
        self._events.put(("enter_cell", cell, value))

    # -- the thread -------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            reader = self.reader_factory()
        except Exception as exc:  # noqa: BLE001 - a missing model must not kill the server
            self.error = f"cannot load the classifier: {exc}"
            self.table.set_camera_status({"state": "error", "message": self.error})
            return
        delay, opened = FAULT_RETRY_S, False
        self._capturing_since = self._clock()
        try:
            while not self._stop.is_set():
                try:
                    if not opened:
                        self.source.open()  # a camera error is the source's to retry
                        opened = True
                    if self.pacer is not None:
                        self.pacer.wait()
                    frame = self.source.read()
                    if self._stop.is_set():  # a read that returned after a restart
                        break
                    if frame is not None and self.on_frame is not None:
                        self.on_frame()
                    if frame is None:
                        if self.source.ended:
                            break
                        continue
                    self._frame_at = self._clock()
                    if self._stalled:  # frames again: say so now (with no match set
                        # up there is no report to say it), and the next report at once
                        self._stalled, self._status_at = False, 0.0
                        self._camera_status(self.source.status)
                    self._step(reader, frame)
                    self.error, delay = None, FAULT_RETRY_S
                except Exception as exc:  # noqa: BLE001 - report, keep the game, go on
                    self._fault(exc, delay)
                    self._stop.wait(delay)
                    delay = min(2 * delay, FAULT_RETRY_MAX_S)
        finally:
            self.source.close()

    def _fault(self, exc: Exception, delay: float) -> None:
        """A fault that is not the camera's (the source retries those itself): the
        database refusing a turn, a frame the pipeline chokes on, a folder it may not
        read. The table hears it in one line; the tracker starts afresh against the
        match as stored, after ``delay`` seconds."""
        if isinstance(exc, StoreError):
            log.error("camera service: %s", exc)  # disk full or read-only: no traceback
            what = f"{exc}: the turn seen was not saved"
        else:
            log.exception("camera service: the pipeline failed")
            what = f"camera pipeline fault ({exc.__class__.__name__}: {exc})"
        self.error = " ".join(f"{what}; trying again in {delay:.0f} s".split())
        self.pipeline = None
        self.table.set_camera_status({"state": "error", "message": self.error})

    def _step(self, reader: CellReader, frame: Frame) -> None:
        self.last_frame = frame
        if frame.new_game:
            self.table.new_match(frame.new_game["players"], frame.new_game.get("starter"),
                                 source="demo")
            self.pipeline = None
        if self.table.match is None:
            return  # no match set up yet: nothing to track
        if frame.game_over and self._finish_demo_game(frame.game_over):
            self._report(frame)
            return
        if self.pipeline is None or self.sink is None or self.sink.match is not self.table.match:
            self.sink = TableSink(self.table, "demo" if self.source.name == "synthetic" else "camera")
            self.pipeline = LivePipeline(reader, self.sink, self.config)
        self.sink.snapshot = lambda image=frame.image: snapshot_jpeg(image)
        self.pipeline.process(frame)
        for event in self._drain(frame):
            if isinstance(event, tuple):
                _, cell, value = event
                if not self.pipeline.tracker.enter_cell(cell, value):
                    log.info("camera service: no turn waits for %s any more", cell)
            else:
                self.pipeline.event(event)
        self._publish_waiting()
        self._report(frame)

    def _finish_demo_game(self, over: dict) -> bool:
        """The synthetic demo's game has ended: finish the table's demo match with the
        game's minus points once its last turn is in (or at the ``final`` still frame),
        so it gets a winner. True while the result is on view (nothing to track)."""
        table = self.table
        if table.match_source != "demo" or table.match is None:
            return False
        if table.match.finished:
            return True
        if len(table.match.turns) < over["turns"] and not over.get("final"):
            return False  # the last turn is still to commit: keep tracking
        if table.match.pending is not None:
            table.reject_pending(source="demo")
        try:
            table.finish(over["minus"], source="demo")
        except MatchError as exc:
            log.warning("demo game could not be finished: %s", exc)
        return True

    def _publish_waiting(self) -> None:
        """Tell the table which turn waits for which cells (only when that changes)."""
        pipeline, sink = self.pipeline, self.sink
        waiting = pipeline.tracker.waiting_turn() if pipeline is not None else None
        if waiting is None or sink is None:
            self.table.set_waiting_turn(None)
            return
        self.table.set_waiting_turn(waiting_turn_info(waiting, sink.match))

    def _drain(self, frame: Frame) -> list[str | tuple]:
        events = list(frame.events)
        while True:
            try:
                events.append(self._events.get_nowait())
            except queue.Empty:
                return events

    # -- status ---------------------------------------------------------------------------------
    def _camera_status(self, status: CameraStatus) -> None:
        self.table.set_camera_status(status.to_json())

    def _report(self, frame: Frame) -> None:
        now = self._clock()
        if now - self._status_at < STATUS_EVERY_S:
            return
        t0, n0 = self._fps_mark
        fps = (frame.index - n0) / (now - t0) if t0 else 0.0
        self._fps_mark = (now, frame.index)
        self._status_at = now
        pipeline = self.pipeline
        visible = pipeline.board_visible if pipeline else False
        state, message = "ok", ""
        if not visible:
            state, message = "no-board", "board not found: is it in view and lit?"
        elif pipeline.unreadable and pipeline.orientation_unknown:
            state, message = "unreadable", ("which way round the board lies cannot be "
                                            "told (turned about 45 degrees, no logo or "
                                            "label seen): turn it square to the camera, "
                                            "or calibrate the camera")
        elif pipeline.unreadable and pipeline.unseen_committed:
            cells = ", ".join(pipeline.unseen_committed[:6])
            state, message = "unreadable", (f"tiles already played are not seen ({cells}): "
                                            "the picture is washed out or blurred, or a "
                                            "tile was moved (put it back)")
        elif pipeline.unreadable:
            state, message = "unreadable", ("the tiles cannot be read: the picture is "
                                            "blurred or badly lit (camera shaken, out of "
                                            "focus, too dark?)")
        if pipeline is not None and pipeline.tracker.waiting_for_the_board:
            message += "; the end of turn waits until the board can be read again"
            presses = 1 + pipeline.tracker.presses_unseen
            if presses > 1:
                message += (f" (End turn was pressed {presses} times meanwhile: every new "
                            "tile will go into one turn; if that was two players' turns, "
                            "correct it with Undo and Enter turn)")
        hint = ""
        unsure = pipeline.unsure_style if pipeline is not None and visible else 0
        if unsure:
            hint = (f"{unsure} cells stay unreadable with no hand over them: tiles of a "
                    "style the camera does not know? Teach it with \u201cLearn these "
                    "tiles\u201d on the Calibration page, or refocus the camera (that page shows "
                    "what it sees).")
        self.table.set_camera_status({
            "state": state,
            "message": message,
            "hint": hint,
            # the board print the reader named (additive: docs/api-additions.md)
            "board_print": pipeline.board_print if pipeline is not None and visible else None,
            "fps": round(fps, 1),
            "frames": self.source.status.frames,
            "reconnects": self.source.status.reconnects,
        })
