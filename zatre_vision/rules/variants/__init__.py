"""Variants of Zatre beside the board game.

- :mod:`.cards`: the card game (BrettspielWelt "Zatre-Kartenspiel"): layout, turn
  checker, sheet and moves; its numbers come from ``cards_data.json``.
- :mod:`.cards_game`: :class:`CardGame`, the flow of a whole card game (deck, rounds,
  hands, showing the hand) for simulations.
- :mod:`.cards_record`: card-game records for ``zatre score`` (``"variant": "cards"``).
"""

from .cards import (
    CARD_RULES,
    CardLayout,
    CardRules,
    CardSheet,
    CardTurnResult,
    PositionError,
    check_card_turn,
    legal_card_moves,
    load_card_rules,
    parse_position,
    position_name,
)

__all__ = [
    "CARD_RULES", "CardLayout", "CardRules", "CardSheet", "CardTurnResult", "PositionError",
    "check_card_turn", "legal_card_moves", "load_card_rules", "parse_position", "position_name",
]
