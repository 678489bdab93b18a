"""The tracker's view of a match: :class:`TurnSink` s over a Match.

:class:`MatchSink` commits straight into a :class:`Match` (``zatre replay``);
:class:`TableSink` goes through the live :class:`~zatre_vision.table.Table`, which
persists every change and pushes it to the dashboards. Both decide the same way what
a turn is expected to hold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..match import Match, MatchError
from ..rules.board import NAMES, NEIGHBOURS, cell_index
from ..rules.record import RecordTurn
from ..rules.tiles import FIRST_HAND
from .tracker import ALL_CELLS

TURN_TILES = 2


def full_turn(first: bool, members: int = 1) -> int:
    """Tiles a turn holds when nothing was kept back: three on the first turn, else
    two for each member of the seat (a team draws two per member, rules.md)."""
    return FIRST_HAND if first else TURN_TILES * members


def keeps_tiles_back(turns: Sequence[RecordTurn], player: str,
                     teams: Mapping[str, int]) -> bool:
    """Whether ``player``'s last turn placed fewer tiles than a full turn: the player
    kept tiles back."""
    on_board = 0
    short = False
    for turn in turns:
        if turn.player == player:
            short = len(turn.placed) < full_turn(on_board == 0, teams.get(player, 1))
        on_board += len(turn.placed)
    return short


class MatchSink:
    """Commits tracked turns into a Match and remembers the frame of each commit.

    A player who ended a turn with fewer tiles than a full turn (three on the first,
    two later, two per member for a team) kept tiles back and may place more next
    time, so for that player's next turn only an explicit end of turn commits
    (``expected_tiles`` is None). That is read from the match's turns each time, so it
    stays right after an undo, a correction or a restart of the camera
    service.
    """

    def __init__(self, match: Match):
        self._match = match
        self.frames: list[int] = []  # commit frame of each committed turn
        self.pending_frame: int | None = None

    # -- what the tracker reads ------------------------------------------------------
    @property
    def match(self) -> Match:
        return self._match

    def committed_board(self) -> dict[str, int]:
        match = self.match
        board = match.board.to_dict()
        if match.pending is not None:
            board.update(match.pending.placed)
        return board

    def cells_of_interest(self) -> tuple[str, ...]:
        return ALL_CELLS

    def neighbours(self, cell: str) -> list[str]:
        return [NAMES[n] for n in NEIGHBOURS[cell_index(cell)]]

    def pending_cells(self) -> set[str]:
        pending = self.match.pending
        return set(pending.placed) if pending is not None else set()

    def expected_tiles(self) -> int | None:
        match = self.match
        if match.finished:
            return None
        player = match.current_player
        if keeps_tiles_back(match.turns, player, match.teams):
            return None
        return full_turn(match.board.count == 0, match.teams.get(player, 1))

    def expected_tiles_ahead(self, ahead: int, opened: bool = False) -> int | None:
        """``expected_tiles`` for the turn ``ahead`` turns after the current one, the
        turns between still waiting in the tracker (not committed); ``opened``: one of
        those places a tile. None where it depends on them: the board is still empty
        and none of them is known to open it, or the seat's own last turn is one of
        them."""
        match = self.match
        if ahead <= 0:
            return self.expected_tiles()
        if match.finished or (match.board.count == 0 and not opened) \
                or ahead >= len(match.players):
            return None
        start = match.players.index(match.starter)
        player = match.players[(start + len(match.turns) + ahead) % len(match.players)]
        if keeps_tiles_back(match.turns, player, match.teams):
            return None
        return full_turn(False, match.teams.get(player, 1))

    # -- what the tracker does ---------------------------------------------------------
    def commit_turn(self, placed: dict[str, int], frame: int, reason: str) -> bool | None:
        match = self.match
        if match.finished or match.pending is not None:
            return None
        try:
            legal = self._propose(placed, frame)
        except MatchError:
            return None
        if legal:
            self.frames.append(frame)
        else:
            self.pending_frame = frame
        return legal

    def reject_pending(self) -> None:
        if self.match.pending is not None:
            self._reject()
            self.pending_frame = None

    def undo(self) -> bool:
        match = self.match
        if match.pending is not None:
            self.reject_pending()
            return True
        if match.finished:  # the match reopens; its turns (and their frames) stay
            self._undo()
            return False
        if not match.turns:
            return False
        self._undo()
        if self.frames:
            self.frames.pop()
        return True

    # -- how changes reach the match (overridden by TableSink) ---------------------------
    def _propose(self, placed: dict[str, int], frame: int) -> bool:
        return self._match.propose(placed).legal

    def _reject(self) -> None:
        self._match.reject_pending()

    def _undo(self) -> None:
        self._match.undo()


class TableSink(MatchSink):
    """Commits through a live Table (persisted, published), with a snapshot of the
    frame that completed the turn. ``snapshot`` (a callable giving JPEG bytes, made
    only when a turn is committed) is set by the camera service for each frame."""

    SOURCE = "camera"

    def __init__(self, table, source: str = SOURCE):
        super().__init__(table.match)
        self.table = table
        self.source = source
        self.snapshot: Callable[[], bytes | None] | None = None

    @property
    def match(self) -> Match:
        if self.table.match is None:
            raise MatchError("no match at this table")
        return self.table.match

    def _propose(self, placed: dict[str, int], frame: int) -> bool:
        jpeg = self.snapshot() if self.snapshot is not None else None
        verdict = self.table.commit_turn(placed, snapshot_jpeg=jpeg, source=self.source,
                                         frame=frame)
        return bool(verdict["legal"])

    def _reject(self) -> None:
        self.table.reject_pending(source=self.source)

    def _undo(self) -> None:
        self.table.undo(source=self.source)
