"""Turn detection: from per-frame cell reads to committed turns, exactly once each.

The tracker sees frames as :class:`Observation` s (what the vision reader made of a
frame, and whether the motion gate found it still) and table events (``end_turn``,
``undo``). It keeps per-cell votes over still frames; a tile counts once its reads
have settled. New tiles are the settled tiles that the table does not have yet
(committed or pending). It commits them to a :class:`TurnSink`:

- automatically, when the expected number of tiles is down (three on the first
  turn, otherwise two), no hand is over the board, and the board has been still for
  ``commit_still_s``;
- on ``end_turn`` (a button, the dashboard, the keyboard), whatever is new, for turns
  with held-back tiles, after waiting up to ``end_wait_s`` for a tile still settling or
  under the hand (tiles on cells seen empty after the ``end_turn`` are the next
  player's); the first ``end_turn`` with nothing new right after an automatic commit
  only confirms it, any other one commits an empty turn (a pass);
- ``undo`` takes back the last commit and disarms the automatic commit until the
  board moves again, so the same tiles are not committed straight back.

An end of turn never concludes anything from frames that show nothing: while the
board is out of sight or its tiles cannot be read (the reader's doubtful frames:
blur, camera shake, poor light), an ``end_turn`` waits, and its ``end_wait_s`` starts
only once the board reads again. Without that, a camera out of focus turned every
End turn into a pass (one game of the wide tracking benchmark lost 13 of its 14
turns so).

An end of turn that runs out of time with the turn short, while a cell next to its
tiles could not be read, remembers that cell: if a tile settles there later, never
having been read empty, it joins that turn (a *late tile*, through the sink's
optional ``last_turn`` / ``add_late_tile``) rather than the next player's. A turn
flagged for want of that tile is judged again with it.

A flagged (illegal) turn stays on the table as pending; when one of its tiles is
lifted, the pending turn is rejected and what is left is new again. A tile lifted
before any commit simply disappears from the new tiles.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ..rules.board import all_cell_names
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


class TurnSink(Protocol):
    """Where turns go: the table (live) or a match replay (``zatre replay``)."""

    def committed_board(self) -> dict[str, int]:
        """Tiles on the table: committed turns plus the pending (flagged) turn."""

    def pending_cells(self) -> set[str]:
        """Cells of the pending (flagged) turn, empty when none."""

    def neighbours(self, cell: str) -> Iterable[str]:
        """The cells touching ``cell`` side by side (optional: without it an end of
        turn does not wait for unreadable cells)."""

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

    # Optional (without them a tile read late is the next turn's):
    # ``last_turn() -> int | None``, the index of the turn committed last (the flagged
    # one while it waits), and ``add_late_tile(turn, placed, cell, value) -> bool``,
    # which adds a tile read late to that turn if it still holds ``placed`` (True when
    # added; a flagged turn is judged again).

    def undo(self) -> bool:
        """Take back the last commit; False when there was nothing to undo."""


@dataclass(frozen=True)
class TrackerConfig:
    votes: VoteConfig = field(default_factory=VoteConfig)
    #: The board must be still this long (no motion, no hand) before an automatic commit.
    commit_still_s: float = 0.35
    #: An ``end_turn`` with nothing new this soon after an automatic commit confirms it.
    confirm_window_s: float = 4.0
    #: An ``end_turn`` waits at most this long for a tile still settling, or for an
    #: unreadable cell next to the tiles, before it commits what it has. (Players often
    #: press End turn while the hand still hovers over a tile just put down.) A cell
    #: seen empty after the ``end_turn`` cannot hold a tile of the turn that ended, so
    #: the next player's first tiles neither prolong the wait nor join that turn.
    #: While the board cannot be seen or read the wait does not run out: it counts from
    #: the first frame that reads the board again.
    end_wait_s: float = 2.0


@dataclass(frozen=True)
class CommitLog:
    frame: int
    time: float
    placed: dict[str, int]
    reason: str  # "auto" | "end_turn"
    legal: bool


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
        #: while an ``end_turn`` waits: the cells read empty since it (None: none waits)
        self._end_wait: set[str] | None = None
        self._end_deadline = 0.0
        self._last_held: set[str] = set()
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
        #: late tiles: cells next to a turn that an end of turn committed short while
        #: they could not be read -> (that turn's index, its tiles as committed)
        self._late: dict[str, tuple[int, dict[str, int]]] = {}
        #: tiles read after their turn was committed and added to it
        self.late_tiles_added = 0
        #: End turns pressed again while one already waited for the board to read:
        #: ``presses_unseen`` for the wait now running (0 when none runs), and
        #: ``end_turns_merged`` for all that were committed as one turn with the first
        self.presses_unseen = 0
        self.end_turns_merged = 0

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
        if self._blind and self._end_wait is not None:
            # an end of turn waits for the board to read again, then end_wait_s more
            self._end_deadline = max(self._end_deadline, obs.time + self.config.end_wait_s)
        if not obs.board_found or not obs.read or obs.unreadable:
            return
        held = set(obs.held)
        self._last_held = held
        reads = {c: obs.cells.get(c) for c in self.sink.cells_of_interest() if c not in held}
        if self._end_wait is not None:
            self._end_wait.update(c for c, v in reads.items() if v is None)
        self.votes.add(reads, held)
        self._settle_late(reads)
        self._check_lifted_pending()
        if self._end_wait is not None and (not self._waiting()
                                           or obs.time >= self._end_deadline):
            self._commit("end_turn")
            return
        self._maybe_auto_commit(obs)

    def _doubtful(self) -> set[str]:
        """Cells the reader could not read in the last frame where a tile of this turn
        may lie, while the turn has fewer new tiles than a full turn: next to the
        tiles on the table or the new ones."""
        neighbours = getattr(self.sink, "neighbours", None)
        if neighbours is None or not self._last_held:
            return set()
        seen_empty = self._end_wait or set()  # their tiles are the next player's
        new = [c for c in self.new_tiles() if c not in seen_empty]
        expected = self.sink.expected_tiles()
        if expected is not None and len(new) >= expected:
            return set()
        base = self.sink.committed_board()
        around = set()
        for cell in [*base, *new]:
            around.update(neighbours(cell))
        return {c for c in self._last_held & around if c not in base and c not in seen_empty}

    def _waiting(self) -> bool:
        """An end of turn should wait a moment: a tile is still settling, or a cell
        where one may lie could not be read."""
        return self._unsettled_new() or bool(self._doubtful())

    def new_tiles(self) -> dict[str, int]:
        """Settled tiles the table does not have yet."""
        base = self.sink.committed_board()
        return {c: v for c, v in self.votes.settled().items() if c not in base}

    def _unsettled_new(self) -> bool:
        """Some cell off the table board is still changing (a tile just put down; not
        counting cells seen empty since a pending end of turn)."""
        base = self.sink.committed_board()
        seen_empty = self._end_wait or set()
        return any(c not in base and c not in seen_empty for c in self.votes.unsettled())

    def _check_lifted_pending(self) -> None:
        pending = self.sink.pending_cells()
        if pending and any(self.votes.value(c) is None for c in pending):
            self.sink.reject_pending()

    def _maybe_auto_commit(self, obs: Observation) -> None:
        expected = self.sink.expected_tiles()
        if expected is None or not self._auto_armed or obs.hand or not obs.still:
            return
        if self._end_wait is not None:
            return  # an end of turn is waiting: it decides (the next player's tiles
            # may already be down, and must not make this turn look complete)
        if self.sink.pending_cells():
            return  # a flagged turn must be fixed first
        if obs.time - self._last_motion_time < self.config.commit_still_s:
            return
        new = self.new_tiles()
        if len(new) == expected and not self._unsettled_new():
            self._commit("auto")

    def _commit(self, reason: str) -> None:
        seen_empty = self._end_wait or set()
        unread = self._doubtful() if reason == "end_turn" else set()
        self._end_wait = None
        self.end_turns_merged += self.presses_unseen
        self.presses_unseen = 0
        placed = {c: v for c, v in self.new_tiles().items() if c not in seen_empty}
        legal = self.sink.commit_turn(placed, self._last_frame, reason)
        if legal is None:
            return
        self.commits.append(CommitLog(self._last_frame, self._last_time, placed, reason, legal))
        self._last_commit_time = self._last_time
        self._unconfirmed_auto = reason == "auto"
        self._expect_late(unread, placed)  # applied or flagged alike

    # -- late tiles --------------------------------------------------------------------
    # An end of turn that runs out of time commits what it has. When the turn is short
    # and a cell next to its tiles could not be read (a tile the reader calls occluded
    # or unsure frame after frame, no hand near), that cell may hold one of its tiles.
    # If the cell later settles on a tile without ever having been read empty, the
    # tile joins that turn instead of the next player's (which it would otherwise make
    # one tile too long, and the short turn wrong too).
    def _expect_late(self, unread: set[str], placed: dict[str, int]) -> None:
        last_turn = getattr(self.sink, "last_turn", None)
        if not unread or not placed or last_turn is None:
            return
        neighbours = self.sink.neighbours
        near = {n for c in placed for n in neighbours(c)}
        turn = last_turn()
        for cell in unread & near:
            self._late[cell] = (turn, dict(placed))

    def _settle_late(self, reads: Mapping[str, int | None]) -> None:
        """Drop late cells read empty; a late cell that settles on a tile joins its turn."""
        for cell in list(self._late):
            if cell in reads and reads[cell] is None:
                del self._late[cell]  # read empty: no tile of that turn lay there
                continue
            value = self.votes.value(cell)
            if value is None:
                continue
            turn, placed = self._late.pop(cell)
            if cell in self.sink.committed_board():
                continue
            if self.sink.add_late_tile(turn, placed, cell, value):
                self.late_tiles_added += 1
                for other, (t, p) in self._late.items():
                    if t == turn:
                        self._late[other] = (t, {**p, cell: value})

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
            if self._just_resumed() and not self._blind:
                # the turn before may have been committed automatically just before the
                # restart, and this press confirm it: that is not known any more, and a
                # pass recorded wrongly moves every later turn to the wrong player. A
                # player who passes presses again.
                self._resumed = False
                self.resumed_presses_ignored += 1
                return
        if self._blind:
            # nothing is known of this turn's tiles: wait for the board to read again
            # (``observe`` holds the deadline off meanwhile). Another End turn meanwhile
            # is the same wait: a double press cannot be told from the next player's
            # End turn, so it is counted and the table is told (``presses_unseen``)
            if self.waiting_for_the_board:
                self.presses_unseen += 1
            self._start_end_wait()
        elif nothing_new:
            self._commit("end_turn")  # nothing placed: the turn passes
        elif self._waiting():
            self._start_end_wait()  # commit when the board reads clean (or soon anyway)
        else:
            self._commit("end_turn")

    def _just_resumed(self) -> bool:
        """No commit yet since this tracker took over a match under way, and less than
        the confirm window since its first frame."""
        return (self._resumed and not self.commits and self._started_at is not None
                and self._last_time - self._started_at <= self.config.confirm_window_s)

    def _start_end_wait(self) -> None:
        """Wait up to ``end_wait_s`` before committing; a wait already running keeps the
        cells it has seen empty."""
        self._end_wait = set() if self._end_wait is None else self._end_wait
        self._end_deadline = self._last_time + self.config.end_wait_s

    @property
    def waiting_for_the_board(self) -> bool:
        """An end of turn is waiting because the board cannot be seen or read."""
        return self._end_wait is not None and self._blind

    def finish(self) -> None:
        """The frames have ended (a recording): an end of turn still waiting for a tile
        to settle commits what it has, as its deadline would have done. One waiting for
        the board to read again commits nothing: the recording never showed the turn."""
        if self._end_wait is not None and not self._blind:
            self._commit("end_turn")
        elif self._end_wait is not None:
            self.unseen_end_turns += 1 + self.presses_unseen
        self._end_wait = None
        self.presses_unseen = 0

    def undo(self) -> None:
        self._end_wait = None
        self.presses_unseen = 0
        self._late.clear()
        if self.sink.undo():
            self._auto_armed = False
            self._last_commit_time = None
