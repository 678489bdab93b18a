"""The analysis page of a finished match and its JSON (see ``analysis_jobs``).

The app's :class:`AnalysisRunner` is a service of its ``ServerContext`` (``context.py``,
made by the app factory); this blueprint starts the table's analysis after any request
that finished (or corrected) its match.
"""

from __future__ import annotations

import json

from flask import Blueprint, abort, current_app, jsonify, redirect, render_template, url_for

from ..store import StoreError
from .analysis_jobs import AnalysisRunner
from .context import context
from .records import match_summary, replay_steps
from .security import require_pin

bp = Blueprint("analysis", __name__)


def runner() -> AnalysisRunner:
    return context().analysis


@bp.after_app_request
def _notice(response):
    # a finished match (or one corrected after) starts its analysis in the background
    if response.status_code < 400:
        try:
            context().analysis.notice_table()
        except StoreError as exc:  # the request itself went well: its answer stands
            current_app.logger.warning("analysis not queued: %s", exc)
    return response


def _status(match_id: int) -> dict:
    r = runner()
    status = r.status(match_id)
    if status is None:
        abort(404, f"no match {match_id}")
    if status["status"] == "cards":
        abort(404, "the card game has no analysis")
    if status["status"] == "none" or status["stale"]:
        r.ensure(match_id)
        status = r.status(match_id)
    return status


def _json(obj) -> str:
    return json.dumps(obj, ensure_ascii=False).replace("</", "<\\/")


def page_turns(record: dict, finished: bool, result: dict) -> list[dict]:
    """Each analysed turn with the board before it (for the stepper)."""
    steps = replay_steps(record, finished)
    return [{**t, "board": steps[t["number"] - 1]["board"]} for t in result["turns"]
            if t["number"] < len(steps)]


@bp.get("/matches/<int:match_id>/analysis")
def page(match_id: int):
    from .pages import board_cells

    status = _status(match_id)
    row = context().store.get_match(match_id)
    result = status["result"] if status["status"] == "done" else None
    turns = page_turns(row["record"], row["finished"], result) if result else []
    return render_template("analysis.html", page="history", match=match_summary(row),
                           status=status, result=result,
                           turns_json=_json(turns), cells_json=_json(board_cells()),
                           players=row["players"])


@bp.get("/api/matches/<int:match_id>/analysis")
def api(match_id: int):
    return jsonify(_status(match_id))


@bp.post("/matches/<int:match_id>/analysis")
@require_pin
def rerun(match_id: int):
    status = runner().status(match_id)
    if status is None:
        abort(404, f"no match {match_id}")
    if status["status"] in ("cards", "not-finished"):
        abort(409, "only a finished board-game match is analysed")
    runner().request(match_id)
    from .replies import wants_json

    if wants_json():
        return jsonify({"ok": True, "message": f"analysing match {match_id} again",
                        "analysis": runner().status(match_id)})
    return redirect(url_for("analysis.page", match_id=match_id))
