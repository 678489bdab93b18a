"""Turn detection: from per-frame cell reads to committed turns, exactly once each.

The tracker sees frames as :class:`Observation` s (what the vision reader made of a
frame, and whether the motion gate found it still) and table events (``end_turn``,
``undo``). It keeps per-cell votes over still frames; a tile counts once its reads
have settled. New tiles are the settled tiles that the table does not have yet
(committed, pending or held by an ended turn still waiting). It commits them to a
:class:`TurnSink`:

- automatically, when the expected number of tiles is down (three on the first
  turn, otherwise two), no hand is over the board, and the board has been still for
  ``commit_still_s``;
- on ``end_turn`` (a button, the dashboard, the keyboard), for turns with held-back
  tiles. **The board at the press** (the last frame read before it) decides what the
  turn holds: its tiles are the new tiles settled then; a cell read empty then is free,
  and a tile that appears there later is the next player's, however soon it comes.
  A cell that could not be told then (a tile still settling, a hand over it, or a cell
  the reader is unsure of next to the tiles while the turn is short) is remembered as
  *unsure*, not as free: the turn waits for it (an :class:`EndedTurn`). When a cell
  the reader only doubted (no hand near) reads, a tile there joins the turn (it lay
  there at the press), an empty cell frees it. A cell under a hand at the press, or
  covered by one since, is *ambiguous* when it shows a tile (the next player may have
  put it there): only the operator decides (``enter_cell``); read empty, it is free.
  A tile read at the press (settled, or still settling on that value), or one the
  reader was sure lay there though it could not read its value (``sure_tiles``), is
  the turn's. A turn whose hand is down (as many tiles as an ordinary turn places,
  ``expected_tiles``) waits only for a cell the reader is sure holds a tile: a player
  holds no more tiles than were drawn. A cell an ended turn lets go (the operator says
  no tile of it lies there) goes to the first later ended turn that saw its tile at
  its press (``deferred``), else it is a new tile.
  The first ``end_turn`` with nothing new right after an automatic commit only
  confirms it, any other one commits an empty turn (a pass);
- ``undo`` calls off the newest End turn still waiting, or takes back the last commit
  and disarms the automatic commit until the board moves again, so the same tiles are
  not committed straight back.

**A turn with a cell it cannot read never commits by itself.** After a quiet
``end_wait_s`` it is shown as waiting (``waiting_turn``: which cells, so that the
table lifts the hand or enters the value); the game goes on meanwhile: later turns
(ended by the button, or complete and still) queue in order behind it and commit once
it is settled.

An end of turn never concludes anything from frames that show nothing: while the
board is out of sight or its tiles cannot be read (the reader's doubtful frames:
blur, camera shake, poor light), an ``end_turn`` waits, and the board "at the press"
is the first one read again. Without that, a camera out of focus turned every End
turn into a pass (one game of the wide tracking benchmark lost 13 of its 14 turns so).

A flagged (illegal) turn stays on the table as pending; when one of its tiles is
lifted, the pending turn is rejected and what is left is new again. A tile lifted
before any commit simply disappears from the new tiles.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..rules.board import all_cell_names
from ..settings import Settings, knob, part
from .votes import CellVotes, VoteConfig

ALL_CELLS = tuple(all_cell_names())


@dataclass(frozen=True)
class Observation:
    """One frame as the tracker sees it."""

    frame: int
    time: float  # seconds since the start of the stream
    still: bool  # nothing on the board moved since the previous frame
    board_found: bool = True
    read: bool = True  # the reader ran on this frame (cells and held are meaningful)
    cells: Mapping[str, int] = field(default_factory=dict)  # occupied, readable cells
    held: frozenset[str] = frozenset()  # moving, hidden by a hand or unsure: not read
    hand: bool = False  # a hand (occluder) is over the board
    #: the board is in view but its tiles cannot be read (the reader's doubtful frame):
    #: the frame says nothing about any cell
    unreadable: bool = False
    #: the held cells under a hand or with motion on them (something may be put down
    #: there); the other held cells are only unsure. Empty: the cells under a hand are
    #: not known apart (then ``hand`` marks every held cell covered).
    covered: frozenset[str] = frozenset()
    #: held cells that surely hold a tile, its value unread (the reader's own odds of
    #: "empty" are small): a tile there at the press is the turn's, whoever's hand
    #: passes over it later
    sure_tiles: frozenset[str] = frozenset()
    #: cells read empty though the reader's tile classes keep a fair share (a tile of a
    #: style it does not know, read as empty now and then): they do not free a cell an
    #: ended turn waits for
    doubtful_empty: frozenset[str] = frozenset()


class TurnSink(Protocol):
    """Where turns go: the table (live) or a match replay (``zatre replay``)."""

    def committed_board(self) -> dict[str, int]:
        """Tiles on the table: committed turns plus the pending (flagged) turn."""

    def pending_cells(self) -> set[str]:
        """Cells of the pending (flagged) turn, empty when none."""

    def cells_of_interest(self) -> Iterable[str]:
        """The cells to watch: the board's 193 (a card game: its layout and the free
        positions around it). A cell missing from an observation's ``cells`` is empty
        (so a card game's zero card, value 0, is a card like any other)."""

    def expected_tiles(self) -> int | None:
        """Tiles an ordinary turn places now (3 first turn, else 2); None when only
        an explicit end of turn may commit (the player may hold more tiles)."""

    def commit_turn(self, placed: dict[str, int], frame: int, reason: str) -> bool | None:
        """Commit a turn; True when legal (applied), False when flagged (pending),
        None when the table takes no turn now (a flagged turn waits, or it is over)."""

    def reject_pending(self) -> None: ...

    def undo(self) -> bool:
        """Take back the last commit; False when there was nothing to undo."""


@runtime_checkable
class BoardTurnSink(Protocol):
    """What a sink over a board with seats in turn may add to :class:`TurnSink` (the
    match sinks do; a sink without it still works: an end of turn then waits only for
    tiles still settling, and turns queued behind a waiting one commit only with it)."""

    def neighbours(self, cell: str) -> Iterable[str]:
        """The cells touching ``cell`` side by side."""

    def expected_tiles_ahead(self, ahead: int, opened: bool = False) -> int | None:
        """``expected_tiles`` for the turn ``ahead`` turns after the current one, the
        turns between still waiting in the tracker; ``opened``: one of those places a
        tile (so the board is not empty at that turn)."""


@dataclass(frozen=True)
class TrackerConfig(Settings):
    votes: VoteConfig = part(VoteConfig, "per-cell votes over still frames")
    commit_still_s: float = knob(0.35, 0.0, 60.0, "seconds the board must be still (no "
                                 "motion, no hand) before an automatic commit")
    confirm_window_s: float = knob(4.0, 0.0, 60.0, "seconds after an automatic commit in "
                                   "which an end_turn with nothing new confirms it")
    #: it never commits without them; while the board cannot be seen or read the wait
    #: counts from the first frame read again
    end_wait_s: float = knob(2.0, 0.0, 60.0, "seconds an ended turn with cells it could not "
                             "tell waits for them before the table is told which")


@dataclass(frozen=True)
class CommitLog:
    frame: int
    time: float
    placed: dict[str, int]
    reason: str  # "auto" | "end_turn"
    legal: bool
    #: seconds from the end of the turn (its End turn, or its automatic completion) to
    #: the commit: more than a frame or two only for a turn that waited for a cell
    waited_s: float = 0.0
    #: the cells whose value the operator entered (``enter_cell``)
    entered: tuple[str, ...] = ()


@dataclass
class _Unsure:
    """A cell an ended turn could not tell at its press."""

    #: a hand or motion was over the cell at the press or since: a tile read there may
    #: have been put down after the press (by the next player), so only the operator
    #: may add it to the turn
    touched: bool = False
    #: the cell was read (not held) at least once since the press
    read: bool = False
    #: the value read at the press on a cell still settling (a tile seen then)
    shown: int | None = None
    #: the reader was sure at the press that a tile lay there, its value unread
    occupied: bool = False
    #: confident empty reads in a row since the press (``settle`` of them free it)
    empties: int = 0


@dataclass
class EndedTurn:
    """A turn that was ended (by ``end_turn`` or complete and still) and waits to be
    committed: its tiles as the board showed them at the press, and the cells it
    could not tell then."""

    frame: int
    time: float
    reason: str  # "end_turn" | "auto"
    tiles: dict[str, int] = field(default_factory=dict)
    unsure: dict[str, _Unsure] = field(default_factory=dict)
    #: cells doubted at the press that settled on a tile after a hand passed over
    #: them: the operator says whether the tile is this turn's
    ambiguous: dict[str, int] = field(default_factory=dict)
    #: False while the press waits for the board to be seen or read again
    seen: bool = True
    #: until then the wait is quiet; afterwards the table is told
    deadline: float = 0.0
    entered: list[str] = field(default_factory=list)
    late: int = 0  # tiles read only after the press
    #: tiles seen at the press on cells an earlier ended turn waited for: this turn's
    #: if that turn lets the cell go
    deferred: dict[str, int] = field(default_factory=dict)

    @property
    def cells(self) -> set[str]:
        """Every cell this turn holds or may hold."""
        return set(self.tiles) | set(self.unsure) | set(self.ambiguous)

    @property
    def settled(self) -> bool:
        return self.seen and not self.unsure and not self.ambiguous


class TurnTracker:
    def __init__(self, sink: TurnSink, config: TrackerConfig | None = None):
        self.sink = sink
        self.config = config or TrackerConfig()
        self.votes = CellVotes(self.config.votes)
        self.votes.reset(sink.committed_board())
        #: this tracker takes over a match already under way (the camera service
        #: restarted, or started afresh after a fault): see ``end_turn``
        self._resumed = bool(sink.committed_board())
        self._started_at: float | None = None
        #: End turns with nothing new right after such a take-over, not taken as passes
        self.resumed_presses_ignored = 0
        self.commits: list[CommitLog] = []
        self._last_motion_time = 0.0
        self._last_commit_time: float | None = None
        #: ended turns not committed yet, oldest first (see ``EndedTurn``)
        self.queue: list[EndedTurn] = []
        self._last_held: set[str] = set()
        self._last_covered: set[str] = set()
        self._last_sure: set[str] = set()
        self._unconfirmed_auto = False
        self._auto_armed = True
        self._last_frame = 0
        self._last_time = 0.0
        #: the last frame read gave no view of the tiles (no board found, or a frame the
        #: reader could not read); True until a frame has been read
        self._blind = True
        #: ends of turn still waiting for the board to read again when the frames
        #: ended (``finish``): turns that were never seen, so never committed
        self.unseen_end_turns = 0
        #: ended turns still waiting for a cell when the frames ended (``finish``)
        self.waiting_at_finish = 0
        #: the cells the first of them waited for
        self.waiting_cells_at_finish: list[str] = []
        #: tiles read only after their turn's End turn, and added to it
        self.late_tiles_added = 0
        #: End turns pressed again while one already waited for the board to read:
        #: ``presses_unseen`` for the wait now running (0 when none runs), and
        #: ``end_turns_merged`` for all that were committed as one turn with the first
        self.presses_unseen = 0
        self.end_turns_merged = 0
        #: End turns with nothing new pressed again within ``confirm_window_s`` of one
        #: whose turn still waits for a cell: the same press, not a pass
        self.repeat_presses = 0

    # -- frames ------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        self._last_frame, self._last_time = obs.frame, obs.time
        if self._started_at is None:
            self._started_at = obs.time
        if not obs.board_found:
            self._blind = True
        elif obs.read:
            self._blind = obs.unreadable
        if (not obs.still or obs.hand or not obs.board_found or not obs.read
                or obs.unreadable):
            self._last_motion_time = obs.time
        if not obs.still:
            self._auto_armed = True
        if not obs.board_found or not obs.read or obs.unreadable:
            return
        held = set(obs.held)
        covered = set(obs.covered) if obs.covered or not obs.hand else set(held)
        self._last_held, self._last_covered = held, covered
        self._last_sure = set(obs.sure_tiles)
        reads = {c: obs.cells.get(c) for c in self.sink.cells_of_interest() if c not in held}
        self.votes.add(reads, held)
        doubtful_empty = set(obs.doubtful_empty)
        for turn in self.queue:
            if turn.seen:
                self._follow(turn, reads, covered, doubtful_empty)
            else:  # the first frame read after a press made blind: the board "at" it
                self._take_board(turn)
        self._check_lifted_pending()
        self._advance()
        self._maybe_auto_commit(obs)

    def new_tiles(self) -> dict[str, int]:
        """Settled tiles the table does not have yet, nor an ended turn waiting."""
        taken = self._taken()
        return {c: v for c, v in self.votes.settled().items() if c not in taken}

    def _taken(self) -> set[str]:
        taken = set(self.sink.committed_board())
        for turn in self.queue:
            taken |= turn.cells
        return taken

    def _unsettled_new(self) -> set[str]:
        """Cells off the table (and off the waiting turns) still changing: a tile just
        put down, or lifted."""
        taken = self._taken()
        return {c for c in self.votes.unsettled() if c not in taken}

    def _expected(self) -> int | None:
        """Tiles the next turn to end places by itself (None: only End turn ends it)."""
        return self._expected_ahead(len(self.queue))

    def _expected_ahead(self, index: int) -> int | None:
        """Tiles an ordinary turn places at place ``index`` in the queue."""
        if index == 0:
            return self.sink.expected_tiles()
        if not isinstance(self.sink, BoardTurnSink):
            return None
        opened = any(t.tiles for t in self.queue[:index])
        return self.sink.expected_tiles_ahead(index, opened)

    def _check_lifted_pending(self) -> None:
        pending = self.sink.pending_cells()
        if pending and any(self.votes.value(c) is None for c in pending):
            self.sink.reject_pending()

    def _maybe_auto_commit(self, obs: Observation) -> None:
        expected = self._expected()
        if expected is None or not self._auto_armed or obs.hand or not obs.still:
            return
        if any(not t.seen for t in self.queue):
            return  # an End turn waits for the board: the next frames decide
        if self.sink.pending_cells():
            return  # a flagged turn must be fixed first
        if obs.time - self._last_motion_time < self.config.commit_still_s:
            return
        new = self.new_tiles()
        if len(new) == expected and not self._unsettled_new():
            self.queue.append(EndedTurn(self._last_frame, self._last_time, "auto", dict(new)))
            self._unconfirmed_auto = True
            self._last_commit_time = self._last_time
            self._advance()

    # -- the board at the press ----------------------------------------------------------
    def _take_board(self, turn: EndedTurn) -> None:
        """Fill ``turn`` from the board as the tracker knows it now: settled new tiles
        are its tiles, cells that could not be told are unsure (see the module doc)."""
        taken = self._taken() - turn.cells
        unsettled = self.votes.unsettled()
        tiles = {c: v for c, v in self.votes.settled().items()
                 if c not in taken and c not in unsettled}
        unsure = {c for c in unsettled if c not in taken}
        neighbours = self.sink.neighbours if isinstance(self.sink, BoardTurnSink) else None
        expected = self._expected_at(turn)
        short = expected is None or len(tiles) < expected
        if not short:
            # the player's hand is down (a turn holds no more tiles than were drawn): a
            # cell still changing is another's, unless the reader is sure a tile lies
            # there (then the turn waits for it, and is flagged if it is one too many)
            unsure &= self._last_sure
        if neighbours is not None and short:
            # held cells next to the table's or the turn's tiles, and next to those
            # (a tile placed beside one the reader could not read either)
            held = {c for c in self._last_held if c not in taken and c not in tiles}
            frontier = [*taken, *tiles]
            while frontier:
                around = {n for cell in frontier for n in neighbours(cell)}
                found = (held & around) - unsure
                unsure |= found
                frontier = list(found)
        # tiles on cells an earlier ended turn still waits for: this turn's if that one
        # lets them go (``_pass_on``)
        earlier = set().union(*(t.unsure.keys() | t.ambiguous.keys()
                                for t in self.queue if t is not turn))
        turn.deferred = {c: self.votes.value(c) for c in earlier
                         if self.votes.value(c) is not None and c not in unsettled}
        if not turn.seen:  # the End turns pressed while blind are this one turn
            self.end_turns_merged += self.presses_unseen
            self.presses_unseen = 0
        turn.tiles = tiles
        turn.unsure = {c: _Unsure(touched=c in self._last_covered, shown=self.votes.latest(c),
                               occupied=c in self._last_sure) for c in unsure}
        turn.seen = True
        turn.deadline = self._last_time + self.config.end_wait_s

    def _expected_at(self, turn: EndedTurn) -> int | None:
        """Tiles an ordinary turn places at ``turn``'s place in the queue."""
        index = self.queue.index(turn) if turn in self.queue else len(self.queue)
        return self._expected_ahead(index)

    def _follow(self, turn: EndedTurn, reads: Mapping[str, int | None],
                covered: set[str], doubtful_empty: set[str]) -> None:
        """One frame read after ``turn``'s press: its unsure cells that now read decide.
        Empty takes ``settle`` confident empty reads since the press with no tile read
        between (an unknown tile style is read as empty now and then, with the tile
        classes still strong: those reads do not count; a hand passing over does not
        undo them: the cell held no tile of this turn when they were read); a tile takes
        the votes settling on it."""
        unsettled = self.votes.unsettled()
        for cell in list(turn.unsure):
            state = turn.unsure[cell]
            if cell in covered:
                state.touched = True  # a hand over it: a tile may be put down there
                continue
            if cell not in reads:
                continue  # unsure again: no news
            state.read = True
            if reads[cell] is None:
                state.empties = 0 if cell in doubtful_empty else state.empties + 1
                if state.empties >= self.config.votes.settle:
                    del turn.unsure[cell]  # empty at last: no tile of this turn lay there
                continue
            state.empties = 0  # two empty reads free the cell only with no tile between
            value = self.votes.value(cell)
            if cell in unsettled or value is None:
                continue
            del turn.unsure[cell]
            if state.touched and not state.occupied and value != state.shown:
                turn.ambiguous[cell] = value  # the operator says
            else:
                turn.tiles[cell] = value
                turn.late += 1

    def _advance(self) -> None:
        """Commit the ended turns at the head of the queue that are settled, in order."""
        while self.queue and self.queue[0].settled:
            turn = self.queue.pop(0)
            legal = self.sink.commit_turn(dict(turn.tiles), turn.frame, turn.reason)
            if legal is None:
                continue  # the table takes no turn now (a flagged turn waits)
            waited = max(0.0, self._last_time - turn.time)
            self.commits.append(CommitLog(turn.frame, self._last_time, dict(turn.tiles),
                                          turn.reason, legal, round(waited, 3),
                                          tuple(turn.entered)))
            self.late_tiles_added += turn.late
            if turn.reason == "end_turn":
                self._last_commit_time = self._last_time

    # -- events ------------------------------------------------------------------------
    def end_turn(self) -> None:
        """The player says the turn is over."""
        confirming = self._unconfirmed_auto
        self._unconfirmed_auto = False
        nothing_new = not self.new_tiles() and not self._unsettled_new()
        if nothing_new:
            recent = (self._last_commit_time is not None
                      and self._last_time - self._last_commit_time <= self.config.confirm_window_s)
            if confirming and recent:
                return  # confirms the automatic commit just made (once)
            if self._repeat_press():
                # the turn just ended still waits for a cell: a player pressing again
                # (the wait shows on the dashboard) is far likelier than the next
                # player's pass within seconds, and a pass taken wrongly moves every
                # later turn to the wrong player. Counted; the table is told.
                self.repeat_presses += 1
                return
            if self._just_resumed() and not self._blind:
                # the turn before may have been committed automatically just before the
                # restart, and this press confirm it: that is not known any more, and a
                # pass recorded wrongly moves every later turn to the wrong player. A
                # player who passes presses again.
                self._resumed = False
                self.resumed_presses_ignored += 1
                return
        if self._blind:
            # nothing is known of this turn's tiles: wait for the board to read again.
            # Another End turn meanwhile is the same wait: a double press cannot be told
            # from the next player's End turn, so it is counted and the table is told
            # (``presses_unseen``)
            if self.waiting_for_the_board:
                self.presses_unseen += 1
                return
            self.queue.append(EndedTurn(self._last_frame, self._last_time, "end_turn",
                                        seen=False))
            return
        turn = EndedTurn(self._last_frame, self._last_time, "end_turn")
        self._take_board(turn)
        self.queue.append(turn)
        self._advance()

    def _repeat_press(self) -> bool:
        """The newest ended turn was ended by End turn, still waits for a cell, and was
        pressed within ``confirm_window_s``."""
        if not self.queue:
            return False
        last = self.queue[-1]
        return (last.reason == "end_turn" and last.seen and not last.settled
                and self._last_time - last.time <= self.config.confirm_window_s)

    def enter_cell(self, cell: str, value: int | None) -> bool:
        """The operator says what an ended turn's unsure cell holds: ``value`` (the
        tile joins that turn) or None (no tile of that turn lies there; a tile there is
        a later turn's). False when no waiting turn waits for ``cell``."""
        for index, turn in enumerate(self.queue):
            if cell in turn.unsure or cell in turn.ambiguous:
                turn.unsure.pop(cell, None)
                turn.ambiguous.pop(cell, None)
                if value is not None:
                    turn.tiles[cell] = value
                else:
                    self._pass_on(index, cell)
                turn.entered.append(cell)
                self._advance()
                return True
        return False

    def _pass_on(self, index: int, cell: str) -> None:
        """The ended turn at ``index`` let ``cell`` go: a tile there belongs to the first
        later ended turn that saw it at its press; none did: it is a new tile."""
        for later in self.queue[index + 1:]:
            value = later.deferred.pop(cell, None)
            if value is not None:
                later.tiles[cell] = value
                return

    def waiting_turn(self) -> dict | None:
        """The turn at the head of the queue while it waits for cells past its quiet
        wait: ``cells`` (sorted), ``ambiguous`` (those that show a tile a hand may have
        put down after the press), ``queued`` (turns behind it), ``since_s``. None when
        no turn waits so."""
        if not self.queue:
            return None
        head = self.queue[0]
        if not head.seen or head.settled or self._last_time < head.deadline:
            return None
        return {"cells": sorted({*head.unsure, *head.ambiguous}),
                "ambiguous": sorted(head.ambiguous),
                "queued": len(self.queue) - 1,
                "repeat_presses": self.repeat_presses,
                "since_s": round(self._last_time - head.time, 1)}

    def _just_resumed(self) -> bool:
        """No commit yet since this tracker took over a match under way, and less than
        the confirm window since its first frame."""
        return (self._resumed and not self.commits and self._started_at is not None
                and self._last_time - self._started_at <= self.config.confirm_window_s)

    @property
    def waiting_for_the_board(self) -> bool:
        """An end of turn is waiting because the board cannot be seen or read."""
        return any(not t.seen for t in self.queue)

    def finish(self) -> None:
        """The frames have ended (a recording): turns still waiting stay uncommitted
        (``waiting_at_finish``; those never seen: ``unseen_end_turns``)."""
        for turn in self.queue:
            if not turn.seen:
                self.unseen_end_turns += 1 + self.presses_unseen
            else:
                self.waiting_at_finish += 1
        head = next((t for t in self.queue if t.seen and not t.settled), None)
        if head is not None:
            self.waiting_cells_at_finish = sorted({*head.unsure, *head.ambiguous})
        self.queue.clear()
        self.presses_unseen = 0

    def undo(self) -> None:
        """Call off the newest End turn still waiting, or take back the last commit."""
        self.presses_unseen = 0
        if self.queue:
            self.queue.pop()
            self._auto_armed = False
            return
        if self.sink.undo():
            self._auto_armed = False
            self._last_commit_time = None
