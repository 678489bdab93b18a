"""Where the board game and the card game meet: one small interface per variant.

A record names its game with ``"variant"`` (``"board"`` when absent, or ``"cards"``).
Each :class:`Variant` gives the same four things, so that the CLI, the store's
readers and the dashboard need not know which game a record holds:

- ``parse(data)``: the decoded record, checked (RecordError with a one-line reason);
- ``replay(record, apply_all=False)``: the checked record through its engine, a state
  whose ``to_json()`` is the ``zatre score`` output (board or layout, sheets, turns);
- ``score(data)``: ``parse`` then ``replay``, as JSON (``zatre score``);
- ``score_as_recorded(data)``: a stored match as the table scored it, with ``notes``.

The board game lives in :mod:`.rules`, the card game in :mod:`.cards`; neither
imports the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .cards import record as cards_record
from .rules import record as board_record


@dataclass(frozen=True)
class Variant:
    name: str
    parse: Callable[[object], Any]
    replay: Callable[..., Any]
    score: Callable[[object], dict]
    score_as_recorded: Callable[[object], dict]


BOARD = Variant("board", board_record.parse_record, board_record.run_replay,
                board_record.score_record, board_record.score_as_recorded)
CARDS = Variant(cards_record.VARIANT, cards_record.parse_card_record,
                cards_record.run_card_replay, cards_record.score_card_record,
                cards_record.score_card_as_recorded)
VARIANTS: dict[str, Variant] = {v.name: v for v in (BOARD, CARDS)}


def variant_of(data: object) -> Variant:
    """The variant a decoded record names. Anything else is the board game's to judge
    (its parser refuses an unknown ``variant`` in one line)."""
    name = data.get("variant") if isinstance(data, dict) else None
    return VARIANTS.get(name, BOARD) if isinstance(name, str) else BOARD


def score_record(data: object) -> dict:
    """Validate and replay a decoded record of either game (RecordError on bad input)."""
    return variant_of(data).score(data)


def score_as_recorded(data: object) -> dict:
    """A stored match of either game replayed as the table scored it, with ``notes``."""
    return variant_of(data).score_as_recorded(data)


__all__ = ["BOARD", "CARDS", "VARIANTS", "Variant", "score_as_recorded", "score_record",
           "variant_of"]
