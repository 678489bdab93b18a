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


#: Partners per team, and the players a team game has in all (rules.md, Variants).
TEAM_SIZE = 2
TEAM_PLAYERS = (4, 6)


def checked_teams(seats: Sequence[str], teams: Mapping[str, object], error: type[Exception]
                  ) -> dict[str, int]:
    """Validate the team variant: every seat is a team of two partners, four or six
    players in all. ``{}`` is a game without teams. Raises ``error`` with one line."""
    if not teams:
        return {}
    for seat, members in teams.items():
        if seat not in seats:
            raise error(f"'teams': unknown seat {seat!r}")
        if members != TEAM_SIZE or isinstance(members, bool):
            raise error(f"'teams': {seat} has {members!r} members, but a team has "
                        f"{TEAM_SIZE} partners")
    solo = [s for s in seats if s not in teams]
    if solo:
        raise error(f"'teams': {', '.join(solo)} in no team; in the team game every "
                    f"seat is a team of {TEAM_SIZE}")
    players = TEAM_SIZE * len(seats)
    if players not in TEAM_PLAYERS:
        raise error(f"'teams': {len(seats)} teams make {players} players, but the team "
                    f"game is for 4 or 6")
    return {s: TEAM_SIZE for s in seats}


def leaders(totals: Mapping[str, int]) -> list[str]:
    """The seats with the best total (several on a tie), in seating order."""
    best = max(totals.values())
    return [p for p, t in totals.items() if t == best]
