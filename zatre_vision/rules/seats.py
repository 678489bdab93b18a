"""Checks on the seats of a match (players or teams), shared by both games."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def checked_starter(players: Sequence[object], starter: object, most: int,
                    error: type[Exception], what: str = "players") -> str:
    """Validate seat names (1 to ``most``, different, non-empty strings) and return the
    starting player (the first seat when ``starter`` is None). Raises ``error`` with a
    one-line reason."""
    if not 1 <= len(players) <= most:
        raise error(f"a match needs 1 to {most} {what}")
    if any(not isinstance(p, str) or not p.strip() for p in players):
        raise error("player names must not be empty")
    if len(set(players)) != len(players):
        raise error("player names must be different")
    if starter is None:
        return players[0]
    if starter not in players:
        raise error(f"unknown starting player {starter!r}")
    return starter


def leaders(totals: Mapping[str, int]) -> list[str]:
    """The seats with the best total (several on a tie), in seating order."""
    best = max(totals.values())
    return [p for p, t in totals.items() if t == best]
