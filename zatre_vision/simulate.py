"""Simulated games: simple players that play legal Zatre through the rules engine.

Used by the terminal demo, the property tests, the benchmarks and the synthetic
photo renderer (board states that look like real play). Pure Python, no I/O.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .rules.board import NAMES, Board
from .rules.game import Game, Seat
from .rules.moves import legal_index_placements, ranked_moves
from .rules.sheet import ScoreSheet
from .rules.turn import TurnResult

#: The most legal placements a simulated player looks at in one turn. A hand of many
#: carried-over tiles late in a game can have millions (a greedy game of seed 324 with
#: nine tiles on 95), which would take minutes and gigabytes to list. No turn of the
#: games behind the committed models and benchmarks offers more than 66,000 (training
#: photos seed 1000, group 78), so those games are the same with or without the cap.
MOVE_LIMIT = 100_000

#: A player picks a placement ``{cell: value}`` for (board, hand, sheet, rng).
Player = Callable[[Board, Sequence[int], ScoreSheet, random.Random], dict[str, int]]


def random_player(board: Board, hand: Sequence[int], sheet: ScoreSheet,
                  rng: random.Random) -> dict[str, int]:
    """Any legal placement, uniformly."""
    options = legal_index_placements(board, hand, limit=MOVE_LIMIT)
    return {NAMES[i]: v for i, v in rng.choice(options)}


def greedy_player(board: Board, hand: Sequence[int], sheet: ScoreSheet,
                  rng: random.Random) -> dict[str, int]:
    """The move the sheet-aware evaluator ranks best (random among equals)."""
    moves = ranked_moves(board, hand, sheet, limit=MOVE_LIMIT)
    top = [m for m in moves if m.value >= moves[0].value - 1e-9]
    return dict(rng.choice(top).placed)


PLAYERS: dict[str, Player] = {"random": random_player, "greedy": greedy_player}


@dataclass(frozen=True)
class SimTurn:
    """One played turn, with the state needed to show it."""

    number: int
    seat: str
    hand: tuple[int, ...]
    result: TurnResult
    board: dict[str, int]  # board after the turn
    bag: int


class Simulation:
    """A whole game played by simple players, one turn per ``step()``.

    ``players`` names a strategy per seat ("random" or "greedy"; default greedy).
    Deterministic for a given seed.
    """

    def __init__(self, seats: Sequence[str] | Sequence[Seat], seed: int,
                 players: Sequence[str] | None = None):
        self.rng = random.Random(seed)
        self.game = Game(seats, self.rng)
        kinds = list(players) if players else ["greedy"] * len(self.game.seats)
        if len(kinds) != len(self.game.seats):
            raise ValueError("give one strategy per seat")
        unknown = [k for k in kinds if k not in PLAYERS]
        if unknown:
            raise ValueError(f"unknown strategy {unknown[0]!r} (known: {', '.join(PLAYERS)})")
        self._strategies = [PLAYERS[k] for k in kinds]
        self.game.choose_starter()
        self.turns_played = 0

    def step(self) -> SimTurn | None:
        """Play one turn; None once the game is over."""
        game = self.game
        if game.over:
            return None
        hand = game.begin_turn()
        seat = game.seat
        placed = self._strategies[game.current](game.board, hand, seat.sheet, self.rng)
        result = game.play(placed)
        if not result.legal:  # strategies only propose legal moves: this is a bug
            raise AssertionError(f"simulated player proposed an illegal turn: {result.violations}")
        self.turns_played += 1
        return SimTurn(self.turns_played, seat.name, tuple(hand), result,
                       game.board.to_dict(), len(game.bag))

    def __iter__(self) -> Iterator[SimTurn]:
        while (turn := self.step()) is not None:
            yield turn

    def run(self, max_turns: int | None = None) -> Game:
        """Play to the end (or ``max_turns`` more turns) and return the game."""
        count = 0
        while (max_turns is None or count < max_turns) and self.step() is not None:
            count += 1
        return self.game
