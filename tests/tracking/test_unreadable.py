"""A board in view whose tiles cannot be read (the reader's ``doubtful_frame``: blur,
camera shake, poor light) is shown as the camera state ``unreadable`` after a few reads
in a row, and the game is not touched meanwhile."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from zatre_vision.camera.base import Frame, make_lores
from zatre_vision.store import open_store
from zatre_vision.table import Table
from zatre_vision.tracking.pipeline import LivePipeline, PipelineConfig
from zatre_vision.tracking.service import CameraService

from ..fakes import CORNERS, FakeRead, NoSink, ScriptedReader


def _frames(n: int):
    image = np.full((240, 320, 3), 90, np.uint8)
    return [Frame(image, make_lores(image), i, i / 5) for i in range(n)]


def _feed(pipe: LivePipeline, n: int) -> list[bool]:
    """Still frames until the pipeline has read ``n`` of them (the motion gate skips
    the first, which it has nothing to compare with); ``unreadable`` after each read."""
    states = []
    for frame in _frames(n + 1):
        before = pipe.stats.reads
        pipe.process(frame)
        if pipe.stats.reads > before:
            states.append(pipe.unreadable)
    assert len(states) == n
    return states


def _run(reads: list[FakeRead], window: int = 1) -> list[bool]:
    """``unreadable`` after each read; by default each read judged alone (the count of
    doubtful reads in a row, without the window of ``_unreadable_around``)."""
    pipe = LivePipeline(ScriptedReader(reads), NoSink(),
                        PipelineConfig(unreadable_after=3, doubtful_window=window))
    return _feed(pipe, len(reads))


def test_three_doubtful_reads_in_a_row_make_the_picture_unreadable():
    reads = [FakeRead(True)] + [FakeRead(True, doubtful_frame=True)] * 4 + [FakeRead(True)]
    assert _run(reads) == [False, False, False, True, True, False]


def test_a_lost_board_or_a_clear_read_starts_the_count_again():
    d = FakeRead(True, doubtful_frame=True)
    assert _run([d, d, FakeRead(False), d, d, FakeRead(True), d, d, d]) == [
        False, False, False, False, False, False, False, False, True]


def test_a_clear_read_amid_doubtful_ones_is_no_evidence():
    """Game 7000041 of the wide tracking benchmark: a camera far out of focus, most
    frames doubtful, and a read in between that called the new tiles empty committed a
    turn wrong. With the window (6 reads, half doubtful) a clear read stays unreadable
    until clear reads are most of the window again."""
    d, c = FakeRead(True, doubtful_frame=True), FakeRead(True)
    reads = [c, d, d, d, c, c, c, c, c]
    assert _run(reads, window=6) == [False, False, False, True, True, True, True, False,
                                     False]
    assert _run(reads, window=1) == [False, False, False, True, False, False, False, False,
                                     False]


def test_the_window_holds_back_the_cells_of_a_read_amid_doubtful_ones():
    """The tracker is told the read is unreadable, so its cells are not evidence."""
    d = FakeRead(True, doubtful_frame=True)
    lucky = FakeRead(True, cells={"H8": 3})
    pipe = LivePipeline(ScriptedReader([d, d, lucky]), NoSink(),
                        PipelineConfig(doubtful_window=6))
    observations = [pipe.process(frame) for frame in _frames(4)]
    assert [o.unreadable for o in observations if o.read] == [True, True, True]
    alone = LivePipeline(ScriptedReader([d, d, lucky]), NoSink(),
                         PipelineConfig(doubtful_window=1))
    observations = [alone.process(frame) for frame in _frames(4)]
    assert [o.unreadable for o in observations if o.read] == [True, True, False]


def test_clear_reads_never_become_unreadable_by_the_window():
    c = FakeRead(True)
    assert _run([c] * 12, window=6) == [False] * 12


def test_a_reader_without_the_flag_never_makes_it_unreadable():
    @dataclass
    class Plain:
        board_found: bool = True
        corners: list = field(default_factory=lambda: CORNERS)
        cells: dict = field(default_factory=dict)
        uncertain: list = field(default_factory=list)

    pipe = LivePipeline(ScriptedReader([Plain()] * 5), NoSink())
    assert _feed(pipe, 5) == [False] * 5


class StillSource:
    name = "still"

    def __init__(self, n: int):
        self.frames = _frames(n)

    def open(self):
        pass

    def read(self):
        return self.frames.pop(0) if self.frames else None

    def close(self):
        pass


def test_the_table_shows_the_camera_as_unreadable(tmp_path):
    table = Table(open_store(tmp_path), "t1")
    service = CameraService(table, StillSource(0), lambda: None)
    service.pipeline = LivePipeline(
        ScriptedReader([FakeRead(True, doubtful_frame=True)] * 3 + [FakeRead(True)] * 4),
        NoSink())
    assert _feed(service.pipeline, 3)[-1]
    frame = _frames(1)[0]
    service._report(frame)
    camera = table.state()["camera"]
    assert camera["state"] == "unreadable"
    assert "blurred" in camera["message"]
    # clear reads: the state is ok again once they are most of the last reads
    for _ in range(4):
        service.pipeline.process(frame)
    assert not service.pipeline.unreadable
    service._status_at = -1e9
    service._report(frame)
    assert table.state()["camera"]["state"] == "ok"


def test_end_turn_on_an_unreadable_picture_commits_no_pass():
    """Before session 26 an End turn on a blurred camera committed a pass (nothing new
    could be seen); NoSink fails the test on any commit."""
    d = FakeRead(True, doubtful_frame=True)
    pipe = LivePipeline(ScriptedReader([d] * 40), NoSink(), PipelineConfig(unreadable_after=3))
    frames = _frames(26)
    for frame in frames[:6]:
        pipe.process(frame)
    pipe.event("end_turn")
    for frame in frames[6:]:               # four seconds at 5 fps: past any wait
        pipe.process(frame)
    assert pipe.unreadable
    assert pipe.tracker.waiting_for_the_board
    assert pipe.stats.unreadable_reads == pipe.stats.reads == 25


def _end_turn_on_an_unreadable_board(tmp_path) -> tuple[Table, CameraService]:
    """A camera service whose last three reads were doubtful frames, and an End turn."""
    table = Table(open_store(tmp_path), "t1")
    service = CameraService(table, StillSource(0), lambda: None)
    service.pipeline = LivePipeline(
        ScriptedReader([FakeRead(True, doubtful_frame=True)] * 6), NoSink())
    _feed(service.pipeline, 3)
    service.pipeline.event("end_turn")
    return table, service


def test_the_table_is_told_that_the_end_of_turn_waits_for_the_board(tmp_path):
    table, service = _end_turn_on_an_unreadable_board(tmp_path)
    service._report(_frames(1)[0])
    camera = table.state()["camera"]
    assert camera["state"] == "unreadable"
    assert camera["message"].endswith("the end of turn waits until the board can be read again")


def test_the_table_is_told_when_end_turn_was_pressed_twice_while_unreadable(tmp_path):
    table, service = _end_turn_on_an_unreadable_board(tmp_path)
    for frame in _frames(2):                 # two more frames, still unreadable
        service.pipeline.process(frame)
    service.pipeline.event("end_turn")
    service._report(_frames(1)[0])
    message = table.state()["camera"]["message"]
    assert "End turn was pressed 2 times meanwhile" in message
    assert message.endswith("correct it with Undo and Enter turn)")


class PlayedSink(NoSink):
    """A board with committed tiles (and optionally a flagged turn's) on which nothing
    more may be committed."""

    def __init__(self, committed: dict[str, int], pending: dict[str, int] | None = None):
        self.committed, self.pending = committed, pending or {}

    def committed_board(self):
        return {**self.committed, **self.pending}

    def pending_cells(self):
        return set(self.pending)


def test_a_read_that_cannot_see_a_played_tile_is_no_evidence_of_a_pass(tmp_path):
    """Game 7000041 of the wide tracking benchmark: over-exposed frames read the new
    tiles on light cells, and the committed I9, as empty with confidence, and the End
    turn committed a pass, flagged nowhere. A read that calls a committed tile's cell
    empty sees the board but not its tiles: it counts as doubtful, the End turn waits,
    and the table is told which tiles are not seen."""
    played = {"H8": 6, "I9": 5, "J9": 6}
    washed_out = FakeRead(True, cells={"H8": 6, "J9": 6})      # I9 and the new tiles: "empty"
    table = Table(open_store(tmp_path), "t1")
    service = CameraService(table, StillSource(0), lambda: None)
    pipe = service.pipeline = LivePipeline(ScriptedReader([washed_out] * 30), PlayedSink(played),
                                           PipelineConfig(unreadable_after=3))
    frames = _frames(26)
    for frame in frames[:6]:
        pipe.process(frame)
    pipe.event("end_turn")                   # PlayedSink fails the test on any commit
    for frame in frames[6:]:
        pipe.process(frame)
    assert pipe.unseen_committed == ("I9",)
    assert pipe.unreadable and pipe.tracker.waiting_for_the_board
    assert pipe.stats.unseen_committed_reads == pipe.stats.reads == 25
    service._report(frames[-1])
    camera = table.state()["camera"]
    assert camera["state"] == "unreadable"
    assert "tiles already played are not seen (I9)" in camera["message"]


def test_a_played_tile_under_a_hand_or_read_unsure_leaves_the_read_clear():
    played = {"H8": 6, "I9": 5}
    reads = [FakeRead(True, cells={"H8": 6}, occluded=["I9", "I10", "J9"]),
             FakeRead(True, cells={"H8": 6}, uncertain=["I9"])] * 3
    pipe = LivePipeline(ScriptedReader(reads), PlayedSink(played), PipelineConfig(unreadable_after=3))
    assert _feed(pipe, 6) == [False] * 6
    assert pipe.stats.unseen_committed_reads == 0


def test_a_flagged_turns_tile_lifted_is_seen_as_lifted_not_as_an_unreadable_read():
    """A flagged (illegal) turn's tiles may be lifted: read empty, it is rejected."""
    sink = PlayedSink({"H8": 6}, pending={"I9": 5})
    rejected = []
    sink.reject_pending = lambda: rejected.append(True)
    pipe = LivePipeline(ScriptedReader([FakeRead(True, cells={"H8": 6})] * 8), sink,
                        PipelineConfig(unreadable_after=3))
    assert _feed(pipe, 8) == [False] * 8
    assert pipe.stats.unseen_committed_reads == 0
    assert rejected


def test_the_table_is_told_when_the_board_is_found_but_not_which_way_round(tmp_path):
    """A print with no mark turned about 45 degrees: found, every cell held back
    (``orientation_known`` False); the state names the cause and what to do."""
    table = Table(open_store(tmp_path), "t1")
    service = CameraService(table, StillSource(0), lambda: None)
    guess = FakeRead(True, doubtful_frame=True, orientation_known=False)
    service.pipeline = LivePipeline(ScriptedReader([guess] * 3), NoSink())
    assert _feed(service.pipeline, 3)[-1]
    service._report(_frames(1)[0])
    camera = table.state()["camera"]
    assert camera["state"] == "unreadable"
    assert "which way round" in camera["message"] and "calibrate" in camera["message"]
