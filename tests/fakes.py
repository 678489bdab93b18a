"""Stand-ins for the board reader, shared by the tests that drive the live pipeline
without the classifier: what a read holds (:class:`FakeRead`), reads given in order
(:class:`ScriptedReader`), reads from a synthetic game's ground truth
(:class:`TruthReader`) and reads of a board the test changes (:class:`BoardReader`).

A read carries the fields of ``vision.reader.ReadResult`` that tracking uses.

Sinks for the tracker (``tracking.tracker.TurnSink``): :class:`NoSink`, an empty board on
which nothing may be committed, and :class:`LayoutSink`, a free layout keyed by "x,y"
positions."""

from __future__ import annotations

from dataclasses import dataclass, field

#: a board's four corners in a 320 x 240 frame (where a test's frames show no board)
CORNERS = [[40.0, 30.0], [280.0, 30.0], [280.0, 210.0], [40.0, 210.0]]


@dataclass
class FakeRead:
    board_found: bool = True
    doubtful_frame: bool = False
    corners: list = field(default_factory=lambda: [list(c) for c in CORNERS])
    cells: dict = field(default_factory=dict)
    uncertain: list = field(default_factory=list)
    occluded: list = field(default_factory=list)
    board_print: str | None = None
    orientation_known: bool = True


class ScriptedReader:
    """Gives ``reads`` one per frame, in order."""

    def __init__(self, reads: list):
        self.reads = list(reads)

    def read(self, image):
        return self.reads.pop(0)


class TruthReader:
    """Answers from a synthetic game's ground truth, frame by frame: perfect reads, with
    the cells under a hand reported as occluded (and uncertain). It lets the tracker's
    tests run on real rendered frames, through the real motion gate, without depending
    on the classifier's accuracy."""

    def __init__(self, truth_frames: list[dict]):
        from zatre_vision.vision.reading.reader_config import ReaderConfig

        self._frames = list(truth_frames)
        self._k = 0
        #: as the real reader's (the live reader sets its own veto bar in it)
        self.config = ReaderConfig()

    def read(self, image) -> FakeRead:
        f = self._frames[self._k]
        self._k += 1
        hidden = list(f["hidden"])
        cells = {c: v for c, v in f["cells"].items() if c not in hidden}
        return FakeRead(corners=f["corners"], cells=cells, uncertain=hidden,
                        occluded=list(hidden))


class BoardReader:
    """Reads ``board`` (which the test changes between frames), except the ``unsure``
    cells: those are uncertain, with no hand near."""

    def __init__(self, board: dict[str, int] | None = None):
        self.board: dict[str, int] = dict(board or {})
        self.unsure: set[str] = set()
        #: the print the reads name (``ReadResult.board_print``)
        self.board_print: str | None = None

    def read(self, image) -> FakeRead:
        cells = {c: v for c, v in self.board.items() if c not in self.unsure}
        return FakeRead(cells=cells, uncertain=sorted(self.unsure),
                        board_print=self.board_print)


class NoSink:
    """An empty board on which nothing may be committed."""

    def committed_board(self):
        return {}

    def pending_cells(self):
        return set()

    def cells_of_interest(self):
        from zatre_vision.vision.geometry import CELL_NAMES
        return list(CELL_NAMES)

    def expected_tiles(self):
        return 3

    def commit_turn(self, placed, frame, reason):
        raise AssertionError("nothing may be committed from these frames")

    def reject_pending(self):
        pass

    def undo(self):
        return False


class LayoutSink:
    """A free layout keyed by "x,y" positions (as the card game's), for the tracker's
    position-agnostic interface: empty is "absent", so a zero card is a card."""

    def __init__(self):
        self.layout: dict[str, int] = {}
        self.turns: list[dict[str, int]] = []

    def cells_of_interest(self):
        ring = {f"{x},{y}" for x in range(-3, 4) for y in range(-3, 4)}
        return sorted(ring | set(self.layout))

    def committed_board(self):
        return dict(self.layout)

    def pending_cells(self):
        return set()

    def expected_tiles(self):
        return 2 if not self.layout else 1

    def commit_turn(self, placed, frame, reason):
        self.layout.update(placed)
        self.turns.append(dict(placed))
        return True

    def reject_pending(self):
        pass

    def undo(self):
        return False
