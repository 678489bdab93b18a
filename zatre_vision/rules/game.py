"""Game flow: the start-player draw, turn order, hands and carry-over, the bag, the end.

A *seat* is a player, or a team in the team variant (rules.md: a team is one seat
that draws two tiles per member and otherwise follows the same rules).

Typical use::

    game = Game(["Ann", "Ben"], random.Random(7))
    game.choose_starter()
    while not game.over:
        hand = game.begin_turn()
        result = game.play(pick_a_placement(game.board, hand))
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .board import Board, cell_index
from .holdings import Holding, allowance, draw_size
from .moves import placeable_values
from .seats import checked_teams, leaders
from .sheet import ScoreSheet
from .tiles import Bag
from .turn import TurnResult, check_turn


class GameError(RuntimeError):
    """A call out of order (playing after the end, before the start, ...)."""


@dataclass
class Seat:
    name: str
    members: int = 1
    hand: list[int] = field(default_factory=list)
    sheet: ScoreSheet = field(default_factory=ScoreSheet)

    @property
    def draw_size(self) -> int:
        return draw_size(self.members)


@dataclass(frozen=True)
class TurnRecord:
    seat: str
    hand: tuple[int, ...]
    drawn: tuple[int, ...]
    result: TurnResult


@dataclass(frozen=True)
class StartDraw:
    """One round of the start-player draw: who drew what."""

    draws: dict[str, int]


class Game:
    def __init__(self, seats: Sequence[str] | Sequence[Seat], rng: random.Random,
                 bag: Bag | None = None):
        if not 1 <= len(seats) <= 6:
            raise ValueError("Zatre is played by 2 to 6 players or teams (1 for solo practice)")
        self.seats: list[Seat] = [s if isinstance(s, Seat) else Seat(s) for s in seats]
        names = [s.name for s in self.seats]
        if len(set(names)) != len(names):
            raise ValueError("seat names must be different")
        checked_teams(names, {s.name: s.members for s in self.seats if s.members != 1},
                      ValueError)
        self.rng = rng
        self.bag = bag if bag is not None else Bag(rng)
        self.board = Board()
        self.current: int | None = None
        self.start_draws: list[StartDraw] = []
        self.history: list[TurnRecord] = []
        self.over = False
        self.blocked = False
        self._turn_open = False
        self._drawn: list[int] = []
        self._drew_last = False

    # -- start ---------------------------------------------------------------------
    def choose_starter(self) -> Seat:
        """Everyone draws one tile; the highest starts (ties draw again among the tied).
        The starter keeps that tile and draws two more; the others go back."""
        if self.current is not None:
            raise GameError("the starting player is already chosen")
        contenders = list(range(len(self.seats)))
        while True:
            draws = {i: self.bag.draw() for i in contenders}
            self.start_draws.append(StartDraw({self.seats[i].name: v for i, v in draws.items()}))
            top = max(draws.values())
            winners = [i for i in contenders if draws[i] == top]
            self.bag.put_back(v for i, v in draws.items() if i not in winners or len(winners) > 1)
            if len(winners) == 1:
                break
            contenders = winners
        starter = winners[0]
        self.current = starter
        seat = self.seats[starter]
        seat.hand = [top, *self.bag.draw_up_to(2)]
        self._drawn = list(seat.hand)
        self._turn_open = True
        return seat

    # -- turns -----------------------------------------------------------------------
    @property
    def seat(self) -> Seat:
        if self.current is None:
            raise GameError("choose the starting player first")
        return self.seats[self.current]

    @property
    def first_turn(self) -> bool:
        return self.board.count == 0

    def begin_turn(self) -> list[int]:
        """Draw for the seat whose turn it is (rule 6) and return its hand."""
        if self.over:
            raise GameError("the game is over")
        seat = self.seat
        if self._turn_open:
            return list(seat.hand)
        # rule 6, as holdings.py decides it for records and live matches
        held = Holding(tuple(seat.hand), len(seat.hand), started=True)
        want = allowance(held, placeable_values(self.board), False, seat.members).most \
            - len(seat.hand)
        drawn = self.bag.draw_up_to(want)
        if drawn and len(self.bag) == 0:
            self._drew_last = True
        seat.hand.extend(drawn)
        self._drawn = drawn
        self._turn_open = True
        return list(seat.hand)

    def check(self, placed: Mapping[str, int]) -> TurnResult:
        """Judge a placement for the current seat without playing it."""
        return check_turn(self.board, placed, hand=self.seat.hand, first_turn=self.first_turn)

    def play(self, placed: Mapping[str, int]) -> TurnResult:
        """Play the current seat's turn. An illegal turn changes nothing: the seat
        must play again. A legal one is applied, scored, and the turn passes on."""
        if not self._turn_open:
            self.begin_turn()
        seat = self.seat
        hand_before = tuple(seat.hand)
        result = self.check(placed)
        if not result.legal:
            return result
        for name, value in placed.items():
            self.board.put(cell_index(name), value)
            seat.hand.remove(value)
        seat.sheet.enter(result.points, result.crosses)
        self.history.append(TurnRecord(seat.name, hand_before, tuple(self._drawn), result))
        self._turn_open = False
        if self._drew_last:
            self._finish()
        elif self._is_blocked():
            self._finish_blocked()
        else:
            self.current = (self.current + 1) % len(self.seats)
        return result

    # -- end ---------------------------------------------------------------------------
    def _is_blocked(self) -> bool:
        """No tile in any hand or in the bag can be placed any more."""
        fits = placeable_values(self.board)
        in_play = set(self.bag.contents()) | {v for s in self.seats for v in s.hand}
        return not (fits & in_play)

    def _finish_blocked(self) -> None:
        """Rules.md: the tiles left in the bag are drawn in turn, as minus points."""
        self.blocked = True
        k = (self.current + 1) % len(self.seats)
        while len(self.bag):
            self.seats[k].hand.append(self.bag.draw())
            k = (k + 1) % len(self.seats)
        self._finish()

    def _finish(self) -> None:
        self.over = True
        for seat in self.seats:
            seat.sheet.minus = sum(seat.hand)

    # -- views ---------------------------------------------------------------------------
    def winner(self) -> list[str]:
        """Names of the seats with the best grand total (several on a tie)."""
        return leaders({s.name: s.sheet.total for s in self.seats})

    def to_record(self) -> dict:
        """The game as a ``zatre score`` input record (hands included)."""
        record = {
            "players": [s.name for s in self.seats],
            "turns": [
                {"player": t.seat, "placed": dict(t.result.placed), "hand": list(t.hand)}
                for t in self.history
            ],
        }
        if self.over:
            record["minus"] = {s.name: s.sheet.minus for s in self.seats}
        if any(s.members > 1 for s in self.seats):
            record["teams"] = {s.name: s.members for s in self.seats}
        return record
