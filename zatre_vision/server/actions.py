"""What every POST action shares, whichever game the table plays: the reply to a
change (``done``), a match error as a 409 (``run``), and the setup form's checks that
both games use (the running match, the starting player)."""

from __future__ import annotations

import random

from flask import abort, flash, g, jsonify, redirect, request, url_for

from ..match import MatchError
from . import forms, messages
from .context import context
from .i18n import localize
from .messages import ChoiceConflict
from .replies import wants_json

#: the app's ServerContext (context.py), as the action modules call it
ctx = context


def done(message: str, target: str | None = None, **extra):
    g.write_message = message  # what a repeat of this write is told (once)
    message = localize(message)  # in the request's language (i18n)
    location = forms.local_path(request.form.get("next"), "") or target or None
    if wants_json():
        # ``location``: where a page sent in the background goes next (none: stay)
        return jsonify({"ok": True, "message": message, **extra, "location": location,
                        "state": ctx().table.state()})
    flash(message)
    return redirect(location or url_for("pages.table"))


def run(call):
    try:
        return call()
    except MatchError as exc:
        abort(409, str(exc))


def running_match(table) -> dict | None:
    """The table's match while it is under way (a turn played, not finished; a
    simulated demo game does not count), as state."""
    state = table.state()
    if (state.get("match_id") and not state.get("finished") and state.get("turns_played")
            and state.get("source") != "demo"):
        return state
    return None


def may_replace_running(data: dict) -> None:
    """A new match leaves the running one unfinished for good: only when asked to. The
    refusal offers that choice (a button on the page that sent it)."""
    running = running_match(ctx().table)
    if running is not None and not forms.boolean(data.get("replace", "")):
        raise ChoiceConflict(
            messages.RUNNING_MATCH.format(match=running["match_id"],
                                          turn=running["turn_number"]),
            {"field": "replace", "value": "on",
             "label": messages.END_UNFINISHED.format(match=running["match_id"])})


def chosen_starter(data: dict, players: list[str]) -> tuple[str, dict | None]:
    """The setup form's starting player, or the rules' start draw when it asks for one
    (then the draw comes back too, for the message)."""
    starter = data.get("starter") or "draw"
    if starter == "draw":
        draw = draw_starter_of(players)
        return draw["starter"], draw
    if starter not in players:
        abort(400, "the starting player must be one of the players")
    return starter, None


def draw_starter_of(players):
    from ..table import draw_starter

    return draw_starter(players, random.SystemRandom())


__all__ = ["ctx", "done", "run", "running_match", "may_replace_running", "chosen_starter",
           "draw_starter_of"]
