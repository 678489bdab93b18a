"""A card-game match at a table: what the dashboard needs to score a card game by hand.

The card-game twin of :class:`zatre_vision.match.Match`. The truth is the record (a
``zatre score`` card record); layouts and sheets are derived by replaying it through
the card engine (``apply_all``: committed turns stay even if a later correction shows
they broke a rule; their violations are shown on the turn). An illegal proposal
becomes the ``pending`` turn with an alert until it is accepted (override), rejected
or corrected.

Turn order: the round's starter moves one seat clockwise each round; after a turn
with cards the next player goes on; after a shown hand (``show_hand``, a turn with
nothing placed) the same player goes on. A player who passes (no card in the stack
fits) is entered with ``show_hand(player=...)`` and the next turn names its player.
Each turn is judged by the record's referee (``CardReferee``), as ``zatre score``
judges it: a turn out of turn or with too big a hand is flagged, and ``end_round``
is refused while the round cannot be blocked (cards that fit are still to come).
A round ends by itself when its 25 cards are laid out; ``end_round`` ends a blocked
round early. The match is over after as many rounds as players. Pure logic, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from ..rules.record import RecordError
from ..rules.seats import checked_starter, leaders
from .record import (
    VARIANT,
    CardRecord,
    CardRecordTurn,
    CardReplayState,
    parse_card_record,
    run_card_replay,
    unblocked_reason,
)
from .rules import (
    CARD_RULES,
    ZERO_RULE_SETTINGS,
    CardLayout,
    CardTurnResult,
    PositionError,
    max_value_at,
    parse_position,
    position_name,
)


class CardMatchError(ValueError):
    """An operation that does not fit the match's state (one-line message)."""


@dataclass(frozen=True)
class PendingCardTurn:
    player: str
    placed: dict[str, int]
    hand: tuple[int, ...] | None
    round: int | None
    result: CardTurnResult

    def to_json(self) -> dict:
        return {"player": self.player, "placed": dict(self.placed),
                "violations": [v.to_json() for v in self.result.violations]}


def card_hints(layout: CardLayout) -> dict[str, int]:
    """For every free position next to a card, the largest card it still takes
    (0..6; positions where not even a zero fits are left out)."""
    out = {}
    for p in sorted(layout.frontier(), key=lambda p: (p[1], p[0])):
        m = max_value_at(layout.cards, p, CARD_RULES.line_directions)
        if m >= 0:
            out[position_name(p)] = min(m, max(CARD_RULES.values))
    return out


@dataclass
class CardMatch:
    #: the game, as ``zatre_vision.variants`` names it
    variant: ClassVar[str] = VARIANT

    players: list[str]
    starter: str | None = None
    turns: list[CardRecordTurn] = field(default_factory=list)
    finished: bool = False
    pending: PendingCardTurn | None = None
    zero_rule: str | None = None  # the club's zero rule, "on" / "off" (None: the data file's)
    #: a stored match from an earlier version (``from_record``): a ``round`` that does not
    #: fit the count is replayed as recorded, with a note in the state's alerts
    as_recorded: bool = False
    notes: list[str] = field(default_factory=list, init=False)  # as recorded: restore notes
    _next_round: int | None = None
    _replayed: CardReplayState | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.starter = checked_starter(self.players, self.starter, 4, CardMatchError)
        if self.zero_rule is not None and self.zero_rule not in ZERO_RULE_SETTINGS:
            raise CardMatchError(f"the zero rule is \"on\" or \"off\", not {self.zero_rule!r}")

    # -- derived state ---------------------------------------------------------------------------
    def record(self) -> CardRecord:
        return CardRecord(list(self.players), list(self.turns), self.starter, self.zero_rule,
                          self.as_recorded)

    @property
    def replayed(self) -> CardReplayState:
        if self._replayed is None:
            self._replayed = run_card_replay(self.record(), apply_all=True)
        return self._replayed

    def _changed(self) -> None:
        self._replayed = None

    @property
    def rounds(self) -> int:
        return len(self.players)

    @property
    def layout(self) -> CardLayout:
        """The layout the next turn is laid on (empty when a new round begins)."""
        return CardLayout() if self._round_begins() else self.replayed.layout

    def _round_full(self) -> bool:
        return len(self.replayed.layout) >= CARD_RULES.cards_per_round

    def _round_begins(self) -> bool:
        return self._next_round is not None or (self._round_full() and self.round < self.rounds)

    @property
    def round(self) -> int:
        """The round of the last turn played (1 before any turn)."""
        return self.replayed.round

    @property
    def next_round(self) -> int:
        return self._next_round or (self.round + 1 if self._round_full() else self.round)

    @property
    def over(self) -> bool:
        """All rounds are laid out (or the match was finished by hand)."""
        return self.finished or (self.round >= self.rounds and self._round_full())

    def _seat(self, offset: int, player: str) -> str:
        return self.players[(self.players.index(player) + offset) % len(self.players)]

    @property
    def current_player(self) -> str:
        if self._round_begins() or not self.turns:
            return self._seat(self.next_round - 1, self.starter)
        last = self.turns[-1]
        return last.player if not last.placed else self._seat(1, last.player)

    # -- turns -------------------------------------------------------------------------------------
    def _require_open(self) -> None:
        if self.over:
            raise CardMatchError("the match is over")

    def propose(self, placed: Mapping[str, int], hand: Sequence[int] | None = None,
                player: str | None = None) -> CardTurnResult:
        """Commit a turn (``{}``: the player shows the hand). Legal: applied at once.
        Illegal: held as the pending turn. CardMatchError for input that is no turn."""
        self._require_open()
        if self.pending is not None:
            raise CardMatchError("a flagged turn is waiting: accept, reject or correct it first")
        player = player or self.current_player
        if player not in self.players:
            raise CardMatchError(f"unknown player {player!r}")
        placed = _validated(placed)
        hand_t = tuple(hand) if hand is not None else None
        if hand_t is not None and not all(CARD_RULES.is_card(v) for v in hand_t):
            raise CardMatchError(f"hand cards must be values {CARD_RULES.value_range()}")
        rnd = self.next_round if self._round_begins() else None
        # the record's referee: the turn, turn order and hand size, as in zatre score
        try:
            result, _, _ = self.replayed.referee.judge(
                CardRecordTurn(player, placed, hand_t, rnd), len(self.turns) + 1)
        except RecordError as exc:
            raise CardMatchError(str(exc)) from None
        if result.legal:
            self.turns.append(CardRecordTurn(player, placed, hand_t, rnd))
            self._next_round = None
            self._changed()
        else:
            self.pending = PendingCardTurn(player, placed, hand_t, rnd, result)
        return result

    def show_hand(self, hand: Sequence[int] | None = None, player: str | None = None
                  ) -> CardTurnResult:
        """The player cannot play: shows the hand and takes three new cards."""
        return self.propose({}, hand, player)

    def accept_pending(self) -> None:
        p = self._take_pending()
        self.turns.append(CardRecordTurn(p.player, p.placed, p.hand, p.round, override=True))
        self._next_round = None
        self._changed()

    def reject_pending(self) -> PendingCardTurn:
        return self._take_pending()

    def _take_pending(self) -> PendingCardTurn:
        if self.pending is None:
            raise CardMatchError("no flagged turn is waiting")
        p, self.pending = self.pending, None
        return p

    def undo(self) -> CardRecordTurn | PendingCardTurn | None:
        """Drop the flagged turn, else the end of a finished match (the turns stay),
        else an early end of round, else the last turn."""
        if self.pending is not None:
            return self._take_pending()
        if self.finished:
            self.finished = False
            self._changed()
            return None
        if self._next_round is not None:
            self._next_round = None
            return None
        if not self.turns:
            raise CardMatchError("nothing to undo")
        turn = self.turns.pop()
        self._changed()
        return turn

    def end_round(self) -> None:
        """End a blocked round early (no card in any hand or the stack fits)."""
        self._require_open()
        if self.pending is not None:
            raise CardMatchError("a flagged turn is waiting: accept or reject it first")
        if not self.turns or self._round_begins():
            raise CardMatchError("the round has not begun")
        if self.round >= self.rounds:
            raise CardMatchError("this is the last round: finish the match instead")
        layouts = self.replayed.layouts
        why = unblocked_reason(layouts[-1], layouts[-2] if len(layouts) > 1 else None,
                               self.round)
        if why:
            raise CardMatchError(f"round {self.round} cannot be blocked yet: {why}")
        self._next_round = self.round + 1

    def set_card(self, position: str, value: int | None) -> None:
        """Correct one card of the current round: change or remove a card, or add one
        that was missed (to the last turn). Everything after is recomputed."""
        _position(position)
        if value is not None and not CARD_RULES.is_card(value):
            raise CardMatchError(f"{value!r} is not a card value ({CARD_RULES.value_range()})")
        replayed = self.replayed
        for k in range(len(self.turns) - 1, -1, -1):
            t = self.turns[k]
            if replayed.turns[k].round != self.round:
                break
            if position in t.placed:
                placed = dict(t.placed)
                if value is None:
                    del placed[position]
                else:
                    placed[position] = value
                self.turns[k] = CardRecordTurn(t.player, placed, t.hand, t.round, t.override)
                self._changed()
                return
        if value is None:
            return
        if not self.turns:
            raise CardMatchError("no turn yet: propose the first turn instead")
        last = self.turns[-1]
        hand = None if last.hand is None else (*last.hand, value)
        self.turns[-1] = CardRecordTurn(last.player, {**last.placed, position: value}, hand,
                                        last.round, last.override)
        self._changed()

    def finish(self) -> None:
        if self.pending is not None:
            raise CardMatchError("a flagged turn is waiting: accept or reject it first")
        self.finished = True

    # -- views -----------------------------------------------------------------------------------------
    def totals(self) -> dict[str, int]:
        return {p: s.total for p, s in self.replayed.sheets.items()}

    def winners(self) -> list[str]:
        return leaders(self.totals())

    def state(self) -> dict:
        """The live card match as JSON (the dashboard's ``/api/state`` for cards)."""
        rep = self.replayed
        alerts = []
        if self.pending is not None:
            alerts.append({"kind": "illegal-turn", "player": self.pending.player,
                           "cells": sorted(self.pending.placed),
                           "reasons": [v.message for v in self.pending.result.violations],
                           "violations": [v.to_json() for v in self.pending.result.violations]})
        notes = (rep.referee.notes if rep.referee is not None else []) + self.notes
        if notes:
            alerts.append({"kind": "as-recorded", "reasons": notes})
        layout = self.layout
        over = self.over
        return {
            "variant": "cards",
            "zero_rule": self.record().rules().zero_rule_name,
            "players": list(self.players),
            "starter": self.starter,
            "turn": None if over else self.current_player,
            "turn_number": len(self.turns) + 1,
            "round": self.next_round if not over else self.round,
            "rounds": self.rounds,
            "first_turn": not layout.cards,
            "board": layout.to_dict(),
            "layouts": [lay.to_dict() for lay in rep.layouts],
            "cards_laid": len(layout),
            "cards_per_round": CARD_RULES.cards_per_round,
            "sheets": {p: s.to_json() for p, s in rep.sheets.items()},
            "pending": self.pending.to_json() if self.pending else None,
            "alerts": alerts,
            "last_turn": rep.turns[-1].to_json() if rep.turns else None,
            "hints": card_hints(layout) if layout.cards else {},
            "finished": over,
            "winners": self.winners() if over else [],
        }

    def to_record(self) -> dict:
        return self.record().to_json()

    @classmethod
    def from_record(cls, data: object, finished: bool = False, as_recorded: bool = False
                    ) -> CardMatch:
        """Rebuild a match from its card record (RecordError on a bad record).
        ``as_recorded``: a stored match, whose rounds are replayed as recorded even where
        the count now refuses them (with a note)."""
        rec = parse_card_record(data)
        match = cls(rec.players, rec.starter, list(rec.turns), zero_rule=rec.zero_rule,
                    as_recorded=as_recorded)
        match.finished = finished
        _ = match.replayed  # the replay checks the rounds (RecordError)
        return match


def _position(name: object) -> None:
    try:
        parse_position(name)
    except PositionError as exc:
        raise CardMatchError(str(exc)) from None


def _validated(placed: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(placed, Mapping):
        raise CardMatchError("placed cards must be a mapping of position to value")
    out = {}
    for pos, value in placed.items():
        _position(pos)
        if not CARD_RULES.is_card(value):
            raise CardMatchError(f"{value!r} on {pos} is not a card value "
                                 f"({CARD_RULES.value_range()})")
        out[pos] = value
    return out


__all__ = ["CardMatch", "CardMatchError", "PendingCardTurn", "card_hints"]
