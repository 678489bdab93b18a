"""The live pipeline: frame -> stillness gate -> reader (still frames only) -> tracker.

One :class:`LivePipeline` serves both the camera service and ``zatre replay``: the
only difference is where frames come from and which sink receives the turns.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from ..camera.base import Frame
from ..rules.board import cell_index, row_col
from ..settings import Settings, knob, part
from .motion import MotionConfig, MotionGate
from .tracker import ALL_CELLS, Observation, TrackerConfig, TurnSink, TurnTracker


class BoardRead(Protocol):
    """What a board reader returns for one image (see ``zatre read``)."""

    board_found: bool
    corners: list  # the four outer grid corners in the image (TL, TR, BR, BL)
    cells: dict[str, int]  # occupied, confidently read cells
    uncertain: list[str]  # cells the reader is unsure of (occluded ones included)


class CellReader(Protocol):
    def read(self, image) -> BoardRead: ...


@dataclass(frozen=True)
class PipelineConfig(Settings):
    motion: MotionConfig = part(MotionConfig, "the stillness gate (motion.py)")
    tracker: TrackerConfig = part(TrackerConfig, "turns from settled reads (tracker.py)")
    #: the game state is kept and tracking resumes when the board is found again
    lost_after: int = knob(3, 1, 1000, "frames in a row without a board before the board "
                           "counts as lost (bumped or covered)")
    #: an arm sweeping over the table: nothing useful can be read, and it saves the CPU
    skip_read_above: float = knob(0.5, 0.0, 1.0, "share of the image moved above which a "
                                  "frame is not read")
    #: ``doubtful_frame``: too blurred or badly lit, so no tile was taken; shown as the
    #: camera's state (``LivePipeline.unreadable``)
    unreadable_after: int = knob(3, 1, 1000, "reads in a row the reader could not read "
                                 "before the picture counts as unreadable")
    #: ``LivePipeline._unreadable_around``: on a camera far out of focus most frames are
    #: doubtful, and the few read in between are not better frames but lucky guesses
    #: (the wide tracking benchmark's game 7000041: 157 of 195 frames doubtful, and two
    #: in between read the new tiles as empty, so a turn committed wrong;
    #: benchmarks/trials/tracker-guard.md). Not tuned: about a second of reads, and
    #: "most" read plainly.
    doubtful_window: int = knob(6, 1, 100, "reads with the board found that a read is "
                                "judged among (itself included; 1: each read alone)")
    doubtful_share: float = knob(0.5, 0.05, 1.0, "share of those reads that were doubtful "
                                 "frames from which no read among them is evidence")
    #: ``Observation.sure_tiles``
    tile_sure: float = knob(0.9, 0.5, 1.0, "share of \"tile or empty\" the tile classes "
                            "need for an unsure cell (no hand) to surely hold a tile")
    #: ``Observation.doubtful_empty``: an unknown tile style read as empty now and then
    #: (0.5 to 0.66 on the benchmark's held-out tiles; bare cells 0.03 to 0.07). It
    #: does not free a cell an ended turn waits for.
    empty_doubt: float = knob(0.3, 0.05, 0.95, "share of \"tile or empty\" the tile "
                              "classes keep on a cell read empty that makes it doubtful")
    #: ``LivePipeline.unsure_style``
    many_unsure: int = knob(4, 1, 193, "unsure cells with no hand over them, in the median "
                            "read of many_unsure_s, from which the table is told the "
                            "reader does not know these tiles")
    many_unsure_s: float = knob(20.0, 1.0, 600.0, "seconds of reads many_unsure looks at")


@dataclass
class PipelineStats:
    frames: int = 0
    reads: int = 0
    board_lost: int = 0
    #: reads with the board found that the reader could not read (doubtful frames,
    #: those that could not see a committed tile included)
    unreadable_reads: int = 0
    #: reads that called a committed tile's cell empty with nothing over it
    unseen_committed_reads: int = 0
    busy_s: float = 0.0  # processing time spent in the pipeline (not waiting for frames)


_CELL_INDEX = {name: i for i, name in enumerate(ALL_CELLS)}
_GRID_CORNERS = np.array([[0, 0], [15, 0], [15, 15], [0, 15]], np.float32)
_CELL_CENTRES = np.array([[row_col(cell_index(n))[1] + 0.5, row_col(cell_index(n))[0] + 0.5]
                          for n in ALL_CELLS], np.float32)


def _touching(a: str, b: str) -> bool:
    (ra, ca), (rb, cb) = row_col(cell_index(a)), row_col(cell_index(b))
    return max(abs(ra - rb), abs(ca - cb)) == 1


def hand_cells(occluded: frozenset[str], moving: frozenset[str] | set[str]) -> frozenset[str]:
    """The reader's occluded calls that show a hand: those in a patch (another occluded
    call touching them, side or corner) and those with motion on or beside them. A
    lone occluded call on a still board is not a hand: a hand hides a patch of cells,
    and a lone call is nearly always a visible cell the reader cannot read (a blurred
    tile, a marble vein, a glint; the vision benchmark's wide set: 72 of 75 lone calls,
    against 3 of 1,131 calls in patches, ``vision.reading.cell_evidence.no_hand_near``). Taken
    for a hand, a blurred tile at the press was "covered", so a turn waited for the
    operator for a tile that lay there all along."""
    out = set()
    for cell in occluded:
        if cell in moving or any(_touching(cell, o) for o in occluded if o != cell) \
                or any(_touching(cell, m) for m in moving):
            out.add(cell)
    return frozenset(out)


def cell_centres(corners, width: int, height: int) -> np.ndarray:
    """Each cell's centre in 0..1 image coordinates, from the four grid corners."""
    h = cv2.getPerspectiveTransform(_GRID_CORNERS, np.asarray(corners, np.float32))
    pts = cv2.perspectiveTransform(_CELL_CENTRES.reshape(-1, 1, 2), h).reshape(-1, 2)
    return pts / np.array([width, height], np.float32)


class LivePipeline:
    def __init__(self, reader: CellReader, sink: TurnSink, config: PipelineConfig | None = None,
                 clock: Callable[[], float] = time.perf_counter):
        self.config = config or PipelineConfig()
        self.reader = reader
        self.gate = MotionGate(self.config.motion)
        self.tracker = TurnTracker(sink, self.config.tracker)
        self.stats = PipelineStats()
        self._clock = clock
        self._missing = 0
        self.board_visible = True
        self.last_read: BoardRead | None = None
        #: the board print the reader last named (``calibration/prints/``), if any
        self.board_print: str | None = None
        #: reads in a row with the board found that were doubtful frames
        self.doubtful_reads = 0
        #: whether each of the last ``doubtful_window`` reads with the board found was a
        #: doubtful frame by itself (``_unreadable_around``)
        self._recent_doubt: deque[bool] = deque(maxlen=self.config.doubtful_window)
        #: the committed tiles the last read could not see (``_unseen_committed``)
        self.unseen_committed: tuple[str, ...] = ()
        #: the last read found the board but not which way round it lies (a print with
        #: no mark seen, turned about 45 degrees, no calibration)
        self.orientation_unknown = False
        #: (time, cells unsure with no hand over them) of the reads of the last
        #: ``many_unsure_s`` seconds
        self._unsure_counts: deque[tuple[float, int]] = deque()

    def process(self, frame: Frame) -> Observation:
        """Feed one frame; returns what the tracker saw."""
        t0 = self._clock()
        self.stats.frames += 1
        obs = self._observe(frame)
        self.tracker.observe(obs)
        self.stats.busy_s += self._clock() - t0
        return obs

    def _observe(self, frame: Frame) -> Observation:
        motion = self.gate.update(frame.lores)
        if motion.amount > self.config.skip_read_above:
            return Observation(frame.index, frame.time, still=False, read=False)
        read = self.reader.read(frame.image)
        self.stats.reads += 1
        self.last_read = read
        if not read.board_found:
            self.doubtful_reads = 0
            self._missing += 1
            if self._missing >= self.config.lost_after and self.board_visible:
                self.board_visible = False
                self.stats.board_lost += 1
            return Observation(frame.index, frame.time, still=False, board_found=False)
        self._missing = 0
        self.board_visible = True
        self.board_print = getattr(read, "board_print", None) or self.board_print
        h, w = frame.image.shape[:2]
        moving = motion.at(cell_centres(read.corners, w, h))
        moving_cells = {n for n, m in zip(ALL_CELLS, moving, strict=True) if m}
        occluded = frozenset(getattr(read, "occluded", ()) or ())
        hand = hand_cells(occluded, moving_cells)
        held = frozenset(read.uncertain) | occluded | moving_cells
        cells = {c: v for c, v in read.cells.items() if c not in held}
        self.unseen_committed = self._unseen_committed(cells, held)
        self.stats.unseen_committed_reads += bool(self.unseen_committed)
        self.orientation_unknown = not getattr(read, "orientation_known", True)
        doubtful = self._unreadable_around(
            bool(getattr(read, "doubtful_frame", False) or self.unseen_committed))
        self.doubtful_reads = self.doubtful_reads + 1 if doubtful else 0
        self.stats.unreadable_reads += doubtful
        # a lone occluded call on a still board is a cell the reader cannot read, not a
        # hand: only doubted
        doubted = (frozenset(read.uncertain) | occluded) - hand - moving_cells
        if not doubtful:
            self._count_unsure(frame.time, len(doubted))
        return Observation(frame.index, frame.time, still=not moving_cells, board_found=True,
                           cells=cells, held=held, hand=bool(hand), unreadable=doubtful,
                           covered=hand, sure_tiles=self._sure_tiles(read, doubted),
                           doubtful_empty=self._doubtful_empty(read, held))

    def _unreadable_around(self, doubtful: bool) -> bool:
        """Whether this read is no evidence: a doubtful frame itself, or read while at
        least ``doubtful_share`` of the last ``doubtful_window`` reads with the board
        found (this one included, two at least) were doubtful frames. A clear read
        amid unreadable ones is a lucky guess on a picture that cannot be read, not a
        better picture."""
        recent = self._recent_doubt
        recent.append(doubtful)
        return doubtful or (len(recent) >= 2
                             and sum(recent) >= self.config.doubtful_share * len(recent))

    def _unseen_committed(self, cells: Mapping[str, int], held: frozenset[str]) -> tuple[str, ...]:
        """Committed tiles (not a flagged turn's, which may be lifted) that this read
        calls empty, with nothing over them. Tiles of a committed turn stay where they
        are, so such a read sees the board but not its tiles (washed out, blurred): its
        empties are not evidence. Taken as evidence, new tiles on light cells read
        empty in an over-exposed frame made an End turn a pass (the wide tracking
        benchmark's game 7000041, turn 3), committed with no flag."""
        pending = self.tracker.sink.pending_cells()
        return tuple(sorted(c for c in self.tracker.sink.committed_board()
                            if c not in cells and c not in held and c not in pending))

    def _doubtful_empty(self, read: BoardRead, held: frozenset[str]) -> frozenset[str]:
        """Cells read empty (not held) whose tile classes keep ``empty_doubt`` of the
        network's "tile or empty" (a reader without probabilities: none)."""
        probabilities = getattr(read, "probabilities", None)
        if probabilities is None:
            return frozenset()
        p = np.asarray(probabilities, np.float32)
        tile, empty = p[:, 1:7].sum(axis=1), p[:, 0]
        share = tile / np.maximum(tile + empty, 1e-9)
        return frozenset(name for name, s in zip(ALL_CELLS, share, strict=True)
                         if s >= self.config.empty_doubt and name not in held
                         and name not in read.cells)

    def _sure_tiles(self, read: BoardRead, doubted: frozenset[str]) -> frozenset[str]:
        """The ``doubted`` cells whose tile classes take at least ``tile_sure`` of the
        network's "tile or empty" (a reader without probabilities: none)."""
        probabilities = getattr(read, "probabilities", None)
        if probabilities is None or not doubted:
            return frozenset()
        sure = set()
        for cell in doubted:
            p = probabilities[_CELL_INDEX[cell]]
            tile, empty = float(np.sum(p[1:7])), float(p[0])
            if tile + empty > 0 and tile / (tile + empty) >= self.config.tile_sure:
                sure.add(cell)
        return frozenset(sure)

    def _count_unsure(self, now: float, count: int) -> None:
        window = self._unsure_counts
        window.append((now, count))
        while window and window[0][0] < now - self.config.many_unsure_s:
            window.popleft()

    @property
    def unsure_style(self) -> int:
        """Cells the reader stays unsure of with no hand over them (the median of the
        last ``many_unsure_s`` seconds of reads, once they span that long), when at
        least ``many_unsure``: not tiles a hand hides, but tiles the reader does not
        know (or a picture out of focus). 0 otherwise."""
        window = self._unsure_counts
        if len(window) < 3 or window[-1][0] - window[0][0] < 0.9 * self.config.many_unsure_s:
            return 0
        median = sorted(c for _, c in window)[len(window) // 2]
        return median if median >= self.config.many_unsure else 0

    @property
    def unreadable(self) -> bool:
        """The board is in view but the last ``unreadable_after`` reads could not read
        its tiles (blur, camera shake, poor light): the tracker is waiting."""
        return self.doubtful_reads >= self.config.unreadable_after

    def event(self, name: str) -> None:
        if name == "end_turn":
            self.tracker.end_turn()
        elif name == "undo":
            self.tracker.undo()
        else:
            raise ValueError(f"unknown event {name!r} (end_turn, undo)")

    def run(self, frames: Iterable[Frame], events: dict[int, list[str]] | None = None,
            after_frame: Callable[[TurnTracker], None] | None = None) -> None:
        """Process a finite stream; ``events`` fire after the frame with their number.
        ``after_frame`` (a stand-in for the table, e.g. an operator entering a waiting
        cell's value) is called with the tracker after each frame, before its events."""
        queue = sorted((events or {}).items())
        k = 0
        for frame in frames:
            self.process(frame)
            if after_frame is not None:
                after_frame(self.tracker)
            while k < len(queue) and queue[k][0] <= frame.index:
                for name in queue[k][1]:
                    self.event(name)
                k += 1
        for _, names in queue[k:]:
            for name in names:
                self.event(name)
        self.tracker.finish()
