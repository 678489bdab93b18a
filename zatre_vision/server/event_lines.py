"""A match's event log in the reader's language.

An event is stored as data: its kind and payload (the cells, values, player, turn and
score it names). :func:`event_line` turns one into a *line*: an English template of
``messages`` (its ``{name}`` placeholders) and its values; :func:`render` writes the
line in a language: the template from the ``messages`` catalogue, numbers in the
locale's format, a nested line rendered the same way, and a message the rules engine
made (:class:`Said`) translated by its template. Old stored events (no score in their
payload) stay readable: they are rendered from what they hold."""

from __future__ import annotations

from . import messages as say


class Said(str):
    """An English message made elsewhere (a rule's reason): localized when rendered."""


#: a line: (template, values); a value is a str (shown as it is), an int (a number in
#: the locale's format), a Said, or a line itself
Line = tuple[str, dict]


def _tiles(placed: dict) -> str:
    return " ".join(f"{c}={v}" for c, v in placed.items())


def points_line(points: int, gain: int | None = None) -> Line:
    """"3 points", or "3 points (6 with the x2)" when the sheet rose by more."""
    gain = points if gain is None else gain
    if gain != points:
        return (say.POINTS_ONE_X2 if points == 1 else say.POINTS_MANY_X2,
                {"points": points, "gain": gain})
    return (say.POINTS_ONE if points == 1 else say.POINTS_MANY, {"points": points})


def _scored(p: dict) -> Line | None:
    if isinstance(p.get("points"), int):
        return points_line(p["points"], p.get("gain"))
    return None


def event_line(event: dict, steps: list[dict]) -> Line:
    """One event of a match's log: who placed what and scored how much as placed (the
    x2 included), passed, corrected (with the turn's score after it), kept back,
    finished, annulled. ``steps``: the match's ``replay_steps``, for old events that
    stored no score."""
    kind, p = event["kind"], event.get("payload") or {}
    number = event.get("turn_number")
    step = steps[number]["turn"] if isinstance(number, int) and 0 < number < len(steps) else None
    player = p.get("player") or (step or {}).get("player") or "?"
    if kind == "start":
        players = p.get("players") or []
        starter = (p.get("record") or {}).get("starter") or (players[0] if players else "?")
        return say.EVENT_START, {"players": ", ".join(players), "starter": starter}
    if kind == "turn":
        placed = p.get("placed") or {}
        if p.get("show_hand"):  # the card game: no card fits, the hand is shown
            return say.EVENT_SHOW_HAND, {"player": player}
        if not placed:
            return say.EVENT_PASS, {"player": player}
        if not p.get("legal", True):
            reasons = "; ".join(v.get("message", "") for v in p.get("violations") or [])
            return say.EVENT_FLAGGED, {"player": player, "tiles": _tiles(placed),
                                       "reasons": Said(reasons)}
        points = _scored(p)
        if points is None and step is not None and step.get("placed") == placed:
            # stored before the score was kept with the event: the replay's, where the
            # turn still holds these tiles
            points = points_line(sum(step.get("points", {}).values()),
                                 step.get("gain"))
        if points is None:
            return say.EVENT_TURN_UNSCORED, {"player": player, "tiles": _tiles(placed)}
        return say.EVENT_TURN, {"player": player, "tiles": _tiles(placed), "points": points}
    if kind == "correction":
        cell = str(p.get("cell"))
        if p.get("turn"):
            return say.EVENT_LATE, {"cell": cell, "value": p.get("value"), "turn": p["turn"]}
        points = _scored(p)
        if points is not None and p.get("in_turn"):
            where = {"cell": cell, "turn": p["in_turn"], "player": player, "points": points}
            if p.get("value") is None:
                return say.EVENT_CLEAR_SCORED, where
            return say.EVENT_SET_SCORED, {**where, "value": p.get("value")}
        if p.get("value") is None:
            return say.EVENT_CLEAR, {"cell": cell}
        return say.EVENT_SET, {"cell": cell, "value": p.get("value")}
    if kind == "accept":
        points = _scored(p)
        if points is not None:
            return say.EVENT_ACCEPT_SCORED, {"player": player, "points": points}
        return say.EVENT_ACCEPT, {}
    if kind == "held":
        tiles = " ".join(map(str, p.get("tiles") or []))
        if p.get("player") and p.get("turn"):
            return say.EVENT_HELD, {"player": p["player"], "tiles": tiles, "turn": p["turn"]}
        return say.EVENT_HELD_UNNAMED, {"tiles": tiles}
    if kind == "finish":
        minus = p.get("minus") or {}
        if not minus:
            return say.EVENT_FINISH, {"minus": (say.EVENT_NO_MINUS, {})}
        return say.EVENT_FINISH, {"minus": ", ".join(f"{q} {n}" for q, n in minus.items())}
    if kind == "annul":
        return say.EVENT_ANNUL, {"reason": str(p.get("reason", ""))}
    simple = {"reject": say.EVENT_REJECT, "undo": say.EVENT_UNDO,
              "end-round": say.EVENT_END_ROUND}
    if kind in simple:
        return simple[kind], {}
    return say.EVENT_OTHER, {"kind": kind.replace("-", " ").capitalize()}


def render(line: Line, lang: str = "en") -> str:
    """The line as a sentence in ``lang`` ("en" or "de")."""
    from .i18n import format_number, localize, translate

    template, values = line
    filled: dict[str, str] = {}
    for name, value in values.items():
        if isinstance(value, tuple):
            filled[name] = render(value, lang)
        elif isinstance(value, Said):
            filled[name] = "; ".join(localize(part, lang) for part in value.split("; "))
        elif isinstance(value, int) and not isinstance(value, bool):
            filled[name] = format_number(value, lang=lang)
        else:
            filled[name] = "" if value is None else str(value)
    text = translate(template, lang)
    return text.format_map(_Keep(filled))


class _Keep(dict):
    def __missing__(self, key: str) -> str:  # a placeholder without a value stays
        return "{" + key + "}"
