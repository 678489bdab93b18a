"""The coach switch for casual tables: after each turn, one line such as "Ben: best was
G7=5 H7=5 for 14 (you scored 9)" (``rules.analysis.coach_line``). It is off in Profi
mode and in tournament matches, whatever the switch says. The switch is the table's
setting ``coach:<table>`` in the store; the line is computed for the table's last turn
and kept until the match changes."""

from __future__ import annotations

from flask import Blueprint, abort, jsonify

from ..rules.analysis import analyse_record, coach_line
from ..rules.record import RecordError, parse_record
from . import forms
from .context import context
from .i18n import localize
from .security import require_pin

bp = Blueprint("coach", __name__)


def _key(table) -> str:
    return f"coach:{table.name}"


def coach_state(table, store, cache: dict) -> dict:
    """``{"on", "available", "reason", "line", "turn"}`` for the table's last turn."""
    on = store.get_setting(_key(table)) == "on"
    out = {"on": on, "available": True, "reason": None, "line": None, "turn": None}
    if table.profi:
        return {**out, "available": False, "reason": "Profi mode: no coach at this table"}
    if table.tournament_id is not None:
        return {**out, "available": False, "reason": "a tournament match: no coach"}
    match = table.match
    if not on or match is None or not hasattr(match, "to_record") or not match.turns:
        return out
    if table.variant != "board":
        return {**out, "available": False, "reason": "the card game has no coach"}
    seen = (table.match_id, table.version)
    if cache.get("seen") != seen:
        try:
            record = parse_record(match.to_record())
        except RecordError:
            return out
        number = len(record.turns)
        analysis = analyse_record(record, only={number})
        turn = analysis.turns[0] if analysis.turns else None
        cache.update(seen=seen, line=coach_line(turn) if turn else None, turn=number)
    return {**out, "line": cache["line"], "turn": cache["turn"]}


@bp.get("/api/coach")
def state():
    c = context()
    return jsonify(coach_state(c.table, c.store, context().coach))


@bp.post("/table/coach")
@require_pin
def switch():
    data = forms.payload()
    on = data.get("on")
    if not isinstance(on, bool):
        abort(400, "give \"on\": true or false")
    c = context()
    c.store.set_setting(_key(c.table), "on" if on else "off")
    return jsonify({"ok": True, "message": localize("Coach on." if on else "Coach off."),
                    "coach": coach_state(c.table, c.store, context().coach)})
