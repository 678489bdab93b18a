"""The HTML pages: table view, sheets, setup, sign-in, history with replay, rankings,
tournaments, exports. Pages render the first state on the server; ``app.js`` keeps
them live from the event stream."""

from __future__ import annotations

import json

from flask import (
    Blueprint,
    Response,
    abort,
    redirect,
    render_template,
    request,
    url_for,
)

from ..rules.board import LIGHT, NAMES, START, row_col
from ..rules.record import RecordError
from . import card_game as cards
from . import forms
from .api import PER_PAGE, page_arg
from .context import context
from .i18n import current_language
from .records import (
    counts_for_rankings,
    event_sentence,
    export_csv,
    export_season_csv,
    export_sheet_csv,
    match_document,
    match_summary,
    rankings,
    replay_steps,
    stored_result,
    tournament_view,
    turn_dates,
)

bp = Blueprint("pages", __name__)


@bp.errorhandler(RecordError)
def _unreplayable(exc: RecordError):
    # a stored record that no version of the rules can replay: one line, not a 500
    return render_template("error.html", code=422, name="Unprocessable record",
                           message=f"this match's record cannot be replayed: {exc}"), 422


#: the app's ServerContext (context.py)
ctx = context


def board_cells() -> list[dict]:
    """Geometry for the board drawing: every cell with its row, column and kind, and
    ``light`` (an x2 cell: H8, the red start, is one too, rules.md)."""
    out = []
    for index, name in NAMES.items():
        r, c = row_col(index)
        kind = "start" if index == START else ("light" if index in LIGHT else "plain")
        out.append({"name": name, "row": r, "col": c, "kind": kind, "light": index in LIGHT})
    return out


def _json(obj) -> str:
    # Safe inside <script type="application/json">: no "</" sequence survives.
    return json.dumps(obj, ensure_ascii=False).replace("</", "<\\/")


def _cards(row: dict) -> bool:
    return row["record"].get("variant") == "cards"


def _match(match_id: int) -> dict:
    row = ctx().store.get_match(match_id)
    if row is None:
        abort(404, f"no match {match_id}")
    return row


@bp.get("/")
def table():
    if ctx().club:  # zatre serve --club: no table of its own, every table's match
        return redirect(url_for("club.overview"))
    state = ctx().table.state()
    if state.get("variant") == "cards":
        return cards.table_page(state, "table")
    return render_template("table.html", state_json=_json(state), cells_json=_json(board_cells()),
                           state=state, page="table")


@bp.get("/sheet")
def sheet():
    state = ctx().table.state()
    if state.get("variant") == "cards":
        return cards.table_page(state, "sheet")
    return render_template("sheet.html", state_json=_json(state), state=state, page="sheet",
                           cells_json=_json(board_cells()))


@bp.get("/setup")
def setup():
    c = ctx()
    source = c.camera.source if c.camera else c.config.camera.source
    from .actions import running_match

    return render_template("setup.html", page="setup", state=c.table.state(),
                           camera_source=source, players=c.store.players(),
                           running=running_match(c.table))


@bp.get("/login")
def login():
    pins = ctx().pins
    return render_template("login.html", page="login", next=forms.local_path(request.args.get("next")),
                           pin_changeable=pins.is_set and not pins.configured)


@bp.get("/matches")
def history():
    page = page_arg()
    rows, total = ctx().store.list_matches(page, PER_PAGE)
    pages = max(1, -(-total // PER_PAGE))
    return render_template("history.html", page="history", matches=[match_summary(r) for r in rows],
                           current=page, pages=pages, total=total,
                           active=ctx().store.active_match_ids())


@bp.get("/matches/<int:match_id>")
def match(match_id: int):
    row = _match(match_id)
    if _cards(row):
        return cards.match_page(row, match_summary(row))
    steps = replay_steps(row["record"], row["finished"])
    events = ctx().store.events(match_id)
    lang = current_language()
    for e in events:
        e["sentence"] = event_sentence(e, steps, lang)
    return render_template("match.html", page="history", match=match_summary(row),
                           steps_json=_json(steps), cells_json=_json(board_cells()),
                           events=events, players=row["players"], steps=len(steps) - 1,
                           notes=stored_result(row["record"])[1])


@bp.get("/matches/<int:match_id>/print")
def print_sheet(match_id: int):
    row = _match(match_id)
    if _cards(row):
        return cards.print_page(row, match_summary(row))
    steps = replay_steps(row["record"], row["finished"])
    return render_template("print.html", match=match_summary(row), sheets=steps[-1]["sheets"],
                           winners=row["winners"] if row["finished"] else [])


@bp.get("/matches/<int:match_id>/export.json")
def export_json(match_id: int):
    doc = match_document(_match(match_id))
    return Response(json.dumps(doc, indent=2, ensure_ascii=False), mimetype="application/json",
                    headers={"Content-Disposition":
                             f'attachment; filename="zatre-match-{match_id}.json"'})


def _csv(text: str, filename: str) -> Response:
    return Response(text, mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@bp.get("/matches/<int:match_id>/export.csv")
def export_csv_view(match_id: int):
    """The match's turns, one table (the sheets are ``sheets.csv``)."""
    row = _match(match_id)
    dates = turn_dates(ctx().store.events(match_id))
    text = (cards.export_card_csv(row, "turns", dates) if _cards(row)
            else export_csv(row, dates))
    return _csv(text, f"zatre-match-{match_id}-turns.csv")


@bp.get("/matches/<int:match_id>/sheets.csv")
def export_sheets_view(match_id: int):
    row = _match(match_id)
    text = cards.export_card_csv(row, "sheets") if _cards(row) else export_sheet_csv(row)
    return _csv(text, f"zatre-match-{match_id}-sheets.csv")


@bp.get("/seasons/<season>/matches.csv")
def export_season_view(season: str):
    """Every match of a season (finished, unfinished, annulled), one line per player."""
    store = ctx().store
    if season not in store.seasons():
        abort(404, f"no season {season[:40]!r}")
    return _csv(export_season_csv(store.season_matches(season), store.active_match_ids()),
                f"zatre-season-{season}.csv")


@bp.get("/matches/<int:match_id>/turns/<int:number>/snapshot.jpg")
def snapshot(match_id: int, number: int):
    data = ctx().store.snapshot(match_id, number)
    if data is None:
        abort(404, f"no snapshot for turn {number} of match {match_id}")
    return Response(data, mimetype="image/jpeg",
                    headers={"Cache-Control": "public, max-age=86400"})


@bp.get("/rankings")
def rankings_page():
    store = ctx().store
    season = request.args.get("season") or None
    seasons = store.seasons()
    if season is not None and season not in seasons:
        abort(404, f"no season {season[:40]!r}")
    finished = [r for r in store.finished_matches(season) if counts_for_rankings(r)]
    from .analysis_jobs import MISSED_PER_TURN_DEFINITION, missed_per_turn

    return render_template("rankings.html", page="rankings", rows=rankings(finished),
                           seasons=seasons, season=season,
                           missed=missed_per_turn(ctx().analysis, finished),
                           missed_definition=MISSED_PER_TURN_DEFINITION)


@bp.get("/tournaments")
def tournaments():
    return render_template("tournaments.html", page="tournaments",
                           tournaments=ctx().store.tournaments())


@bp.get("/tournaments/<int:tid>")
def tournament(tid: int):
    store = ctx().store
    t = store.get_tournament(tid)
    if t is None:
        abort(404, f"no tournament {tid}")
    if t.get("format"):  # an evening at tables of 4 (evenings.py)
        from .evenings import evening_view

        view = evening_view(t, store.tournament_rounds(tid), store.tournament_matches(tid),
                            store.active_match_ids())
        return render_template("evening.html", page="tournaments", t=t, **view)
    view = tournament_view(t, store.tournament_matches(tid), store.active_match_ids())
    return render_template("tournament.html", page="tournaments", t=t, **view)
