"""The card game (BrettspielWelt "Zatre-Kartenspiel"), all in one package.

- :mod:`.rules`: layout on ``"x,y"`` positions, turn checker, sheet and moves; its
  numbers come from ``cards_data.json``.
- :mod:`.record`: card-game records for ``zatre score`` (``"variant": "cards"``).
- :mod:`.game`: :class:`CardGame`, the flow of a whole card game (deck, rounds, hands,
  showing the hand) for simulations; :mod:`.simulate`: simple players.
- :mod:`.match`: a card match entered by hand; :mod:`.table`: that match as a table
  holds it (passes, an early end of round, the stored row).
- :mod:`.blueprint`: the dashboard's card routes and pages (imported by the server only).

It builds on the shared core in :mod:`zatre_vision.rules` (lines, sheets, violations)
and meets the board game only through :mod:`zatre_vision.variants`.
"""

from .rules import (
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
