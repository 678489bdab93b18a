"""Simulated card games: simple players that play legal card Zatre through the engine.

The card-game twin of :mod:`zatre_vision.simulate` (property tests, records for the
command line). Pure Python, no I/O.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from .game import CardGame
from .rules import CardLayout, CardSheet, legal_card_moves, score_card_lines

#: A player picks a move ``{"x,y": value}`` (``{}`` shows the hand) for
#: (layout, hand, first turn of the round, sheet, rng).
CardPlayer = Callable[[CardLayout, Sequence[int], bool, CardSheet, random.Random], dict[str, int]]


def random_card_player(layout: CardLayout, hand: Sequence[int], first_turn: bool,
                       sheet: CardSheet, rng: random.Random) -> dict[str, int]:
    """Any legal move, uniformly; ``{}`` when none (shows the hand)."""
    moves = legal_card_moves(layout, hand, first_turn, sheet.rules)
    return rng.choice(moves) if moves else {}


def move_gain(layout: CardLayout, move: dict[str, int], sheet: CardSheet) -> int:
    """What a legal move adds to the sheet's grand total (bonus rows included)."""
    cards = dict(layout.cards)
    new = []
    for name, v in move.items():
        x, y = (int(k) for k in name.split(","))
        cards[(x, y)] = v
        new.append((x, y))
    _, points, bonus = score_card_lines(cards, new, sheet.rules)
    after = sheet.copy()
    after.enter(points, super_bonus=bonus)
    return after.total - sheet.total


def greedy_card_player(layout: CardLayout, hand: Sequence[int], first_turn: bool,
                       sheet: CardSheet, rng: random.Random) -> dict[str, int]:
    """The move that adds most to the sheet now (random among equals)."""
    moves = legal_card_moves(layout, hand, first_turn, sheet.rules)
    if not moves:
        return {}
    gains = [move_gain(layout, m, sheet) for m in moves]
    best = max(gains)
    return rng.choice([m for m, g in zip(moves, gains, strict=True) if g == best])


CARD_PLAYERS: dict[str, CardPlayer] = {"random": random_card_player, "greedy": greedy_card_player}


class CardSimulation:
    """A whole card game played by simple players; deterministic for a seed."""

    def __init__(self, players: Sequence[str], seed: int, strategies: Sequence[str] | None = None):
        self.rng = random.Random(seed)
        self.game = CardGame(players, self.rng)
        kinds = list(strategies) if strategies else ["greedy"] * len(players)
        if len(kinds) != len(players) or any(k not in CARD_PLAYERS for k in kinds):
            raise ValueError(f"give one strategy per player ({', '.join(CARD_PLAYERS)})")
        self._strategies = [CARD_PLAYERS[k] for k in kinds]

    def step(self) -> bool:
        """Play one turn (showing the hand counts as one); False once the game is over."""
        game = self.game
        if game.over:
            return False
        seat = game.seat
        move = self._strategies[game.current](game.layout, seat.hand, game.first_turn,
                                              seat.sheet, self.rng)
        result = game.play(move)
        if not result.legal:  # strategies only propose legal moves: this is a bug
            raise AssertionError(f"simulated player proposed an illegal turn: {result.violations}")
        return True

    def run(self, max_turns: int | None = None) -> CardGame:
        count = 0
        while (max_turns is None or count < max_turns) and self.step():
            count += 1
        return self.game


__all__ = ["CARD_PLAYERS", "CardSimulation", "greedy_card_player", "move_gain",
           "random_card_player"]
