"""The card game (Zatre-Kartenspiel) at the table: manual entry, the layout view, the
card score sheet, and the card match's records.

Routes (POST ones need the table's PIN and the CSRF token, like ``admin``):

- ``POST /cards/turn``: ``{"placed": {"0,0": 6, "1,0": 4}, "hand": [..], "player": ..}``;
  one card a turn, two touching cards on a round's first turn (the engine judges:
  an illegal turn waits as the flagged turn with the reasons).
- ``POST /cards/show-hand``: the player cannot lay a card, shows the hand and takes
  three new cards (``{"hand": [..]}`` optional); the same player goes on.
- ``POST /cards/pass``: no card of the stack fits; the next seat plays.
- ``POST /cards/end-round``: end a blocked round early.
- ``POST /cards/card``: ``{"position": "1,0", "value": 3 | null}`` corrects a card of
  the current round.
- ``POST /cards/finish``: end the match (a match also ends by itself after its rounds).
- ``/table/accept``, ``/table/reject`` and ``/table/undo`` serve both games.

The pages ``/``, ``/sheet``, ``/matches/<id>`` and the exports call the helpers here
when the table's (or the stored) match is a card game.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

from flask import Blueprint, abort, render_template

from ..cards.record import (
    is_card_record,
    parse_card_record,
    run_card_replay,
    score_card_as_recorded,
)
from ..cards.rules import (
    CARD_RULES,
    ZERO_RULE_SETTINGS,
    is_position_name,
    parse_position,
)
from ..cards.table import CARDS
from . import forms
from .actions import chosen_starter, ctx, done, may_replace_running, run
from .event_lines import event_line, render
from .i18n import current_language
from .messages import flagged_message
from .once import once
from .records import stored_result
from .security import require_pin

bp = Blueprint("cards", __name__)

MAX_PLAYERS = 4
MAX_COORD = 60  # a round lays 25 cards: no layout reaches further from its first card
GAMES = ("board", CARDS)


def _json(obj) -> str:
    return json.dumps(obj, ensure_ascii=False).replace("</", "<\\/")


# -- input ------------------------------------------------------------------------------------
def game_choice(data: dict) -> str:
    raw = data.get("game") or "board"
    if raw not in GAMES:
        abort(400, "game: board or cards")
    return raw


def position(raw) -> str:
    if not is_position_name(raw):
        abort(400, "a card position is written x,y in whole numbers, like 0,0 or -1,2")
    x, y = parse_position(raw)
    if abs(x) > MAX_COORD or abs(y) > MAX_COORD:
        abort(400, f"a card position lies within {MAX_COORD} places of the first card")
    return raw


def card_value(raw, allow_empty: bool = False) -> int | None:
    lo, hi = min(CARD_RULES.values), max(CARD_RULES.values)
    if raw is None or raw == "":
        if allow_empty:
            return None
        abort(400, f"give a card value from {lo} to {hi}")
    if isinstance(raw, bool) or isinstance(raw, float) and not raw.is_integer():
        abort(400, f"a card value is a number from {lo} to {hi}")
    try:
        value = int(raw)
    except (TypeError, ValueError):
        abort(400, f"a card value is a number from {lo} to {hi}")
    if not CARD_RULES.is_card(value):
        abort(400, f"a card value is a number from {lo} to {hi}")
    return value


def card_placement(raw) -> dict[str, int]:
    if not isinstance(raw, dict) or len(raw) > 4:
        abort(400, "placed cards are a mapping of position to value, like {\"0,0\": 6}")
    return {position(p): card_value(v) for p, v in raw.items()}


def card_hand(raw) -> list[int] | None:
    if raw in (None, "", []):
        return None
    if isinstance(raw, str):
        raw = [t for t in raw.replace(",", " ").split() if t]
    if not isinstance(raw, list) or len(raw) > 12:
        abort(400, "a hand is a list of card values, like 6 4 0")
    return [card_value(v) for v in raw]


def player_arg(data: dict) -> str | None:
    raw = data.get("player") or None
    if raw is None:
        return None
    m = ctx().table.match
    if not isinstance(raw, str) or m is None or raw not in m.players:
        abort(400, "player: one of the match's players")
    return raw


def _require_cards_match():
    table = ctx().table
    if table.match is None:
        abort(409, "no match at this table: start one in Setup")
    if table.variant != CARDS:
        abort(409, "this table plays the board game: use the board's turn entry")
    return table


# -- setup (called by server.admin's setup when the form chooses the card game) ------------------------------
def start_card_match(data: dict):
    players = forms.player_names(data.get("players[]") or data.get("players"))
    if len(players) > MAX_PLAYERS:
        abort(400, "the card game is for 2 to 4 players")
    source = forms.camera_source(data.get("camera"))
    if source != "none":
        abort(400, "the card game is scored by manual entry only: choose 'No camera'")
    if data.get("teams") or forms.boolean(data.get("team_game", "")):
        abort(400, "the card game has no teams")
    zero_rule = data.get("zero_rule", "on")
    if zero_rule not in ZERO_RULE_SETTINGS:
        abort(400, "the zero rule is on or off")
    if data.get("tournament_id") not in (None, ""):
        abort(400, "tournament games are board games")
    starter, draw = chosen_starter(data, players)
    may_replace_running(data)
    camera = ctx().camera
    match_id = run(lambda: ctx().table.new_match(players, starter, source="manual",
                                                 variant=CARDS, zero_rule=zero_rule))
    if camera is not None:
        camera.start("none")
    msg = f"Card game {match_id} started: {starter} lays the first two cards."
    if draw:
        msg += " Draw: " + "; ".join(", ".join(f"{p} {v}" for p, v in r.items())
                                    for r in draw["rounds"]) + "."
    return done(msg, "/", match_id=match_id, draw=draw)


# -- the live card match -------------------------------------------------------------------------------
@bp.post("/cards/turn")
@require_pin
@once
def turn():
    data = forms.payload()
    placed = card_placement(data.get("placed"))
    if not placed:
        abort(400, "place a card, or use 'Shows hand' or 'Pass'")
    hand = card_hand(data.get("hand"))
    table = _require_cards_match()
    player = player_arg(data)
    verdict = run(lambda: table.commit_turn(placed, hand, source="manual", player=player))
    msg = "Turn scored." if verdict["legal"] else flagged_message(verdict)
    return done(msg, "/", turn=verdict)


@bp.post("/cards/show-hand")
@require_pin
@once
def show_hand():
    data = forms.payload()
    hand = card_hand(data.get("hand"))
    table = _require_cards_match()
    player = player_arg(data)
    verdict = run(lambda: table.show_hand(hand, player))
    if not verdict["legal"]:
        return done(flagged_message(verdict, "Shown hand"), "/", turn=verdict)
    return done(f"{verdict['player']} shows the hand and takes three new cards.", "/",
                turn=verdict)


@bp.post("/cards/pass")
@require_pin
@once
def pass_turn():
    data = forms.payload()
    table = _require_cards_match()
    player = player_arg(data)
    run(lambda: table.pass_turn(player))
    return done("Passed: no card of the stack fits.", "/")


@bp.post("/cards/end-round")
@require_pin
@once
def end_round():
    table = _require_cards_match()
    run(lambda: table.end_round())
    st = table.state()
    return done(f"Round ended: round {st['round']} starts with {st['turn']}.", "/")


@bp.post("/cards/card")
@require_pin
@once
def set_card():
    data = forms.payload()
    pos = position(data.get("position"))
    value = card_value(data.get("value"), allow_empty=True)
    table = _require_cards_match()
    run(lambda: table.set_cell(pos, value))
    return done(f"{pos} {'removed' if value is None else f'set to {value}'}; sheets recomputed.",
                "/")


@bp.post("/cards/finish")
@require_pin
@once
def finish():
    table = _require_cards_match()
    run(lambda: table.finish({}))
    return done("Card game finished.", "/")


# -- pages ----------------------------------------------------------------------------------------------
def rules_json() -> str:
    return _json({"printed_bonus": list(CARD_RULES.printed_bonus),
                  "line_points": {str(k): v for k, v in CARD_RULES.line_points.items()},
                  "values": list(CARD_RULES.values), "super_bonus": CARD_RULES.super_bonus})


def table_page(state: dict, page: str):
    """``/`` and ``/sheet`` while the table plays the card game."""
    template = "cards_table.html" if page == "table" else "cards_sheet.html"
    return render_template(template, state_json=_json(state), state=state, page=page,
                           rules_json=rules_json())


def card_steps(record: dict) -> list[dict]:
    """Layout and sheets after each turn (step 0: nothing laid), as the table showed them."""
    rec = replace(parse_card_record(record), as_recorded=True)  # a stored match, as recorded
    steps = []
    full = run_card_replay(rec, apply_all=True)
    for k in range(len(rec.turns) + 1):
        state = full if k == len(rec.turns) else run_card_replay(
            replace(rec, turns=rec.turns[:k]), apply_all=True)
        turn = None
        if k:
            turn = {"number": k, **state.turns[-1].to_json()}
        steps.append({"turn": turn, "round": state.round,
                      "board": state.layout.to_dict() if k else {},
                      "sheets": {p: s.to_json() for p, s in state.sheets.items()}})
    return steps


def match_page(row: dict, summary: dict):
    steps = card_steps(row["record"])
    events = ctx().store.events(row["id"])
    lang = current_language()
    for e in events:  # the log in the reader's language (no board steps: no points here)
        e["sentence"] = render(event_line(e, []), lang)
    return render_template("cards_match.html", page="history", match=summary,
                           steps_json=_json(steps), events=events, players=row["players"],
                           steps=len(steps) - 1, rules_json=rules_json(),
                           notes=stored_result(row["record"])[1])


def print_page(row: dict, summary: dict):
    result = score_card_as_recorded(row["record"])
    return render_template("cards_print.html", match=summary, sheets=result["sheets"],
                           printed_bonus=CARD_RULES.printed_bonus, points=CARD_RULES.line_points,
                           zero_rule=result["zero_rule"],
                           winners=row["winners"] if row["finished"] else [])


def export_card_csv(row: dict, part: str = "turns", turn_dates: dict | None = None) -> str:
    """One table per file: ``part="turns"``, one line per turn (round, points per sum,
    super bonus, legality, date); ``"sheets"``, the totals per player."""
    result = score_card_as_recorded(row["record"])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if part == "turns":
        dates = turn_dates or {}
        w.writerow(["match", "turn", "round", "player", "placed", "legal", "override",
                    "points_10", "points_11", "points_12", "super_bonus", "violations", "date"])
        for k, t in enumerate(result["turns"], start=1):
            w.writerow([row["id"], k, t["round"], t["player"],
                        " ".join(f"{c}={v}" for c, v in t["placed"].items()) or "shows hand/pass",
                        int(t["legal"]), int(bool(t.get("override"))), t["points"]["10"],
                        t["points"]["11"], t["points"]["12"], t["super_bonus"],
                        "; ".join(v["message"] for v in t["violations"]), dates.get(k, "")])
        return buf.getvalue()
    w.writerow(["match", "date", "player", "rows_total", "super_bonus", "grand_total",
                "winner"])
    for p, s in result["sheets"].items():
        w.writerow([row["id"], row["created"], p,
                    s["total"] - sum(b["points"] for b in s["super_bonus"]),
                    sum(b["points"] for b in s["super_bonus"]), s["total"],
                    int(p in row["winners"])])
    return buf.getvalue()


__all__ = ["bp", "is_card_record", "game_choice", "start_card_match", "table_page",
           "match_page", "print_page", "export_card_csv", "card_steps"]
