"""A card-game match held by a :class:`~zatre_vision.table.Table` (manual entry).

:class:`TableCardMatch` is :class:`~zatre_vision.cards.match.CardMatch` plus the two
things a table needs between turns that the card record cannot say:

- a **pass** (no card in the stack fits): the record holds it as a turn with nothing
  placed, like a shown hand, but the turn then goes to the next seat; the table keeps
  "the turn passed to X" until the next change of the turn list;
- an **early end of round** (``end_round``) before the next round's first turn.

Both are stored with the match row's ``pending`` JSON (next to a flagged turn) so that
a restarted server resumes the card match exactly. The record stays a plain
``zatre score`` card record (``"variant": "cards"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .match import CardMatch, CardMatchError
from .record import VARIANT

CARDS = VARIANT

__all__ = ["TableCardMatch", "CardMatchError", "is_card_record", "card_match_from_row",
           "card_pending_json", "VARIANT", "CARDS"]


@dataclass
class TableCardMatch(CardMatch):
    # (player, the pass turn itself): valid while that turn is still the last one
    _passed_to: tuple[str, Any] | None = field(default=None, repr=False)

    def _pass_target(self) -> str | None:
        if self._passed_to is None or not self.turns or self.turns[-1] is not self._passed_to[1]:
            return None
        return self._passed_to[0]

    @property
    def current_player(self) -> str:
        target = None if self._round_begins() else self._pass_target()
        return target or CardMatch.current_player.fget(self)

    @property
    def board(self):
        """The layout the next turn is laid on (the board game's ``Match.board``)."""
        return self.layout

    def set_cell(self, cell: str, value: int | None) -> None:
        """Correct a card of the current round (the board game's ``Match.set_cell``)."""
        self.set_card(cell, value)

    def declare_held(self, *_args) -> None:
        raise CardMatchError("the card game has no held-back tiles")

    def pass_turn(self, player: str | None = None):
        """The player cannot lay a card and no card of the stack would fit: a turn with
        nothing placed, then the next seat plays."""
        player = player or self.current_player
        result = self.show_hand(None, player)
        if result.legal and self.turns and self.turns[-1].player == player:
            self._passed_to = (self._seat(1, player), self.turns[-1])
        return result

    def extras_json(self) -> dict:
        out: dict = {}
        if self._next_round is not None:
            out["next_round"] = self._next_round
        target = self._pass_target()
        if target is not None:
            out["passed_to"] = {"player": target, "after_turn": len(self.turns)}
        return out

    def restore_extras(self, data: Mapping[str, Any]) -> None:
        nr = data.get("next_round")
        if isinstance(nr, int) and not isinstance(nr, bool):
            self._next_round = nr
        passed = data.get("passed_to")
        if (isinstance(passed, Mapping) and passed.get("player") in self.players
                and passed.get("after_turn") == len(self.turns) and self.turns):
            self._passed_to = (passed["player"], self.turns[-1])

    @classmethod
    def from_record(cls, data: object, finished: bool = False, as_recorded: bool = False
                    ) -> TableCardMatch:
        m = CardMatch.from_record(data, finished, as_recorded)
        out = cls(list(m.players), m.starter, list(m.turns), zero_rule=m.zero_rule,
                  as_recorded=as_recorded)
        out.finished = m.finished
        return out


def is_card_record(record: object) -> bool:
    """A stored row's record is a card game's (any mapping, as the store returns it)."""
    return isinstance(record, Mapping) and record.get("variant") == VARIANT


def card_pending_json(m: TableCardMatch) -> dict | None:
    """What goes into the match row's ``pending`` column for a card match."""
    out = m.extras_json()
    if m.pending is not None:
        out.update({"player": m.pending.player, "placed": dict(m.pending.placed),
                    "hand": list(m.pending.hand) if m.pending.hand is not None else None})
    return out or None


def card_match_from_row(row: Mapping[str, Any]) -> TableCardMatch:
    """Rebuild a stored card match exactly: record, finished flag, the early end of a
    round, a pass, and the flagged turn."""
    match = TableCardMatch.from_record(row["record"], finished=bool(row["finished"]),
                                       as_recorded=True)
    pending = row.get("pending") or {}
    match.restore_extras(pending)
    if pending.get("placed") is not None and not match.over:
        hand = pending.get("hand")
        try:
            match.propose(pending["placed"], tuple(hand) if hand is not None else None,
                          pending.get("player"))
        except (CardMatchError, TypeError) as exc:  # the cards are still on the table
            match.notes.append(f"the flagged turn could not be restored: {exc}")
    return match
