"""The tracker's view of a match: a :class:`TurnSink` over a :class:`Match`.

Used as is by ``zatre replay`` and, behind the table's lock, by the live service, so
both commit turns the same way.
"""

from __future__ import annotations

from ..match import Match, MatchError

FIRST_TURN_TILES = 3
TURN_TILES = 2


class MatchSink:
    """Commits tracked turns into a Match and remembers the frame of each commit.

    A player who ended a turn with fewer tiles than expected holds tiles back and may
    place more than two next time, so for that player's next turn only an explicit
    end of turn commits (``expected_tiles`` is None).
    """

    def __init__(self, match: Match):
        self.match = match
        self.frames: list[int] = []  # commit frame of each committed turn
        self.pending_frame: int | None = None
        self._holding: set[str] = set()
        self._held_history: list[tuple[str, bool]] = []

    def committed_board(self) -> dict[str, int]:
        board = self.match.board.to_dict()
        if self.match.pending is not None:
            board.update(self.match.pending.placed)
        return board

    def pending_cells(self) -> set[str]:
        return set(self.match.pending.placed) if self.match.pending is not None else set()

    def expected_tiles(self) -> int | None:
        if self.match.finished:
            return None
        if self.match.board.count == 0:
            return FIRST_TURN_TILES
        if self.match.current_player in self._holding:
            return None
        return TURN_TILES

    def commit_turn(self, placed: dict[str, int], frame: int, reason: str) -> bool | None:
        if self.match.finished or self.match.pending is not None:
            return None
        player = self.match.current_player
        expected = self.expected_tiles()
        try:
            result = self.match.propose(placed)
        except MatchError:
            return None
        if result.legal:
            self.frames.append(frame)
            was_holding = player in self._holding
            short = expected is not None and len(placed) < expected
            self._holding.discard(player)
            if short or (expected is None and len(placed) < TURN_TILES):
                self._holding.add(player)
            self._held_history.append((player, was_holding))
        else:
            self.pending_frame = frame
        return result.legal

    def reject_pending(self) -> None:
        if self.match.pending is not None:
            self.match.reject_pending()
            self.pending_frame = None

    def undo(self) -> bool:
        if self.match.pending is not None:
            self.reject_pending()
            return True
        if not self.match.turns:
            return False
        self.match.undo()
        self.frames.pop()
        player, was_holding = self._held_history.pop()
        self._holding.discard(player)
        if was_holding:
            self._holding.add(player)
        return True
