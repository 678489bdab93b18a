"""The flow of a whole card game: deck, rounds, hands, showing the hand, the end.

From the BrettspielWelt help page (seed 003), with what it leaves open decided here:

- The 50 cards are shuffled; 25 are the first round's stack, the other 25 are set
  aside for the second round. For a third and fourth round the 50 cards are shuffled
  again and split the same way. There are as many rounds as players (1 to 4).
- A round's starting player gets four cards, the others three, dealt from the round's
  stack. *Assumed:* the first player starts round 1 and the start moves one seat
  clockwise each round.
- The starter lays two cards on the round's first turn, everyone else one card a
  turn; after laying, the player draws one card while the stack lasts.
- A player who cannot play shows the hand and takes three new cards, as often as
  needed. *Assumed:* the shown cards go under the round's stack (they stay in the
  round, so all 25 can still be laid). When the stack holds no card that fits, taking
  new cards cannot help: the player passes.
- The round ends when its 25 cards are laid out. *Assumed:* if no card in any hand or
  in the stack fits anywhere, the round ends early and the rest is set aside (the
  source does not say; no minus points).
- The sheet runs on over the rounds: one sheet per player for the whole game.

Typical use::

    game = CardGame(["Ann", "Ben"], random.Random(7))
    while not game.over:
        result = game.play(pick(game.layout, game.hand))   # {} shows the hand
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .rules import (
    CARD_RULES,
    CardLayout,
    CardRules,
    CardSheet,
    CardTurnResult,
    check_card_turn,
    parse_position,
    placeable_card_values,
)


class CardGameError(RuntimeError):
    """A call out of order (playing after the end)."""


@dataclass
class CardSeat:
    name: str
    hand: list[int] = field(default_factory=list)
    sheet: CardSheet = field(default_factory=CardSheet)


@dataclass(frozen=True)
class CardTurnRecord:
    """One turn as played: ``action`` is "play", "show" (hand shown, three new cards)
    or "pass" (cannot play and no card in the stack fits)."""

    seat: str
    round: int
    hand: tuple[int, ...]
    action: str
    result: CardTurnResult
    drawn: tuple[int, ...] = ()


class CardGame:
    def __init__(self, players: Sequence[str], rng: random.Random,
                 rules: CardRules = CARD_RULES):
        if not 1 <= len(players) <= 4:
            raise ValueError("the card game is played by 2 to 4 players (1 for solo practice)")
        if len(set(players)) != len(players):
            raise ValueError("player names must be different")
        self.rules = rules
        self.rng = rng
        self.seats = [CardSeat(p, sheet=CardSheet(rules)) for p in players]
        self.rounds = len(players)
        self.round = 0
        self.layout = CardLayout()
        self.stack: list[int] = []  # the round's face-down stack; the top is the end
        self.set_aside: list[int] = []
        self.layouts: list[CardLayout] = []  # finished rounds
        self.history: list[CardTurnRecord] = []
        self.current = 0
        self.first_turn = True
        self.over = False
        self.blocked_rounds: list[int] = []
        self._start_round()

    # -- rounds -------------------------------------------------------------------------------
    def _start_round(self) -> None:
        self.round += 1
        n = self.rules.cards_per_round
        if self.round % 2 == 1:
            deck = self.rules.deck()
            self.rng.shuffle(deck)
            self.stack, self.set_aside = deck[:n], deck[n:2 * n]
        else:
            self.stack, self.set_aside = self.set_aside, []
        self.layout = CardLayout()
        self.first_turn = True
        starter = (self.round - 1) % len(self.seats)
        self.current = starter
        for k in range(len(self.seats)):
            seat = self.seats[(starter + k) % len(self.seats)]
            seat.hand = self._draw(self.rules.starter_hand if k == 0 else self.rules.hand)

    def _draw(self, n: int) -> list[int]:
        take = min(n, len(self.stack))
        drawn = self.stack[len(self.stack) - take:][::-1]
        del self.stack[len(self.stack) - take:]
        return drawn

    def _end_round(self) -> None:
        self.layouts.append(self.layout)
        for seat in self.seats:
            seat.hand = []
        if self.round >= self.rounds:
            self.over = True
        else:
            self._start_round()

    # -- turns -----------------------------------------------------------------------------------
    @property
    def seat(self) -> CardSeat:
        return self.seats[self.current]

    @property
    def hand(self) -> list[int]:
        return list(self.seat.hand)

    def can_play(self, hand: Sequence[int] | None = None) -> bool:
        hand = self.seat.hand if hand is None else hand
        return bool(placeable_card_values(self.layout, self.rules, self.first_turn) & set(hand))

    def check(self, placed: Mapping[str, int]) -> CardTurnResult:
        """Judge a move of the current player without playing it."""
        return check_card_turn(self.layout, placed, hand=self.seat.hand,
                               first_turn=self.first_turn, rules=self.rules)

    def play(self, placed: Mapping[str, int]) -> CardTurnResult:
        """Play the current player's turn. ``{}`` shows the hand (legal only when no card
        of it fits): the shown cards go under the stack and three new ones are taken,
        and the same player goes on; with no fitting card left in the stack the player
        passes instead. An illegal move changes nothing."""
        if self.over:
            raise CardGameError("the game is over")
        seat = self.seat
        hand_before = tuple(seat.hand)
        result = self.check(placed)
        if not result.legal:
            return result
        if not placed:
            self._show_or_pass(seat, hand_before, result)
            return result
        for name, value in placed.items():
            self.layout.put(parse_position(name), value)
            seat.hand.remove(value)
        seat.sheet.enter(result.points, super_bonus=result.super_bonus)
        drawn = tuple(self._draw(1))
        seat.hand.extend(drawn)
        self.history.append(CardTurnRecord(seat.name, self.round, hand_before, "play", result, drawn))
        self.first_turn = False
        self._next()
        return result

    def _show_or_pass(self, seat: CardSeat, hand_before: tuple[int, ...],
                      result: CardTurnResult) -> None:
        if self.can_play(self.stack):
            self.stack[:0] = seat.hand  # under the stack
            seat.hand = self._draw(self.rules.redraw)
            self.history.append(CardTurnRecord(seat.name, self.round, hand_before, "show", result,
                                               tuple(seat.hand)))
            return  # the same player plays on
        self.history.append(CardTurnRecord(seat.name, self.round, hand_before, "pass", result))
        self._next()

    def _next(self) -> None:
        if len(self.layout) >= self.rules.cards_per_round or self._round_blocked():
            if len(self.layout) < self.rules.cards_per_round:
                self.blocked_rounds.append(self.round)
            self._end_round()
            return
        self.current = (self.current + 1) % len(self.seats)

    def _round_blocked(self) -> bool:
        """No card in any hand or in the stack fits anywhere any more."""
        fits = placeable_card_values(self.layout, self.rules, self.first_turn)
        in_play = set(self.stack) | {v for s in self.seats for v in s.hand}
        return not (fits & in_play)

    # -- views ----------------------------------------------------------------------------------------
    def totals(self) -> dict[str, int]:
        return {s.name: s.sheet.total for s in self.seats}

    def winner(self) -> list[str]:
        best = max(s.sheet.total for s in self.seats)
        return [s.name for s in self.seats if s.sheet.total == best]

    def to_record(self) -> dict:
        """The game as a ``zatre score`` card record (hands and rounds included)."""
        return {
            "variant": "cards",
            "players": [s.name for s in self.seats],
            "turns": [{"player": t.seat, "round": t.round, "placed": dict(t.result.placed),
                       "hand": list(t.hand)} for t in self.history],
        }


__all__ = ["CardGame", "CardGameError", "CardSeat", "CardTurnRecord"]
