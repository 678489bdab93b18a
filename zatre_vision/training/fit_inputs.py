"""What both fits (``fit_locator``, ``fit_reader``) check before any work: the model they
write a card entry for, that card, and a number of photos a set within bounds."""

from __future__ import annotations

import sys
from pathlib import Path

#: photos a fitting set: fewer says nothing, more does not fit a session
PHOTOS_BOUNDS = (10, 5000)


def card_of(prog: str, model: Path, photos: int) -> Path | None:
    """``model``'s card, or None after one line on stderr naming what is wrong."""
    card = model.with_suffix(model.suffix + ".json")
    if not model.is_file() or not card.is_file():
        print(f"{prog}: {model} or its card {card.name} not found", file=sys.stderr)
        return None
    low, high = PHOTOS_BOUNDS
    if not low <= photos <= high:
        print(f"{prog}: --photos must be {low} to {high}", file=sys.stderr)
        return None
    return card
