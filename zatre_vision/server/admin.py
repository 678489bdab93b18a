"""POST actions: sign-in, setup, manual turns, corrections, overrides, the end of a
match, tournaments. Everything that changes a match needs the table's PIN (see
``security``); every input is validated (``forms``); an operation that does not fit
the match's state is a 409 with the reason."""

from __future__ import annotations

import math

from flask import (
    Blueprint,
    abort,
    jsonify,
    make_response,
    render_template,
    request,
    session,
    url_for,
)

from ..rules.seats import TEAM_PLAYERS, TEAM_SIZE
from . import forms, messages
from .actions import chosen_starter, ctx, done, draw_starter_of, may_replace_running, run
from .console_codes import use_console_code
from .i18n import localize, sentence
from .once import once, run_once
from .records import pairing_key, round_robin
from .replies import wants_json
from .security import (
    PinBusy,
    PinLocked,
    check_csrf,
    new_device_id,
    require_pin,
    signed_in,
    wrong_pin_message,
)

bp = Blueprint("admin", __name__)


# -- sign in ------------------------------------------------------------------------
@bp.post("/login")
def login():
    check_csrf()
    data = forms.payload()
    guard = ctx().pins
    if not guard.is_set:
        abort(409, "no PIN is set yet: choose one in Setup")
    client = request.remote_addr or "?"
    given = str(data.get("pin", "")).strip()
    device = session.get("device")
    if use_console_code(ctx().store, ctx().table.name, given, guard.clock):
        return signed_in_now(guard)
    try:
        right = guard.check(given, client, device)
    except (PinLocked, PinBusy) as exc:
        if wants_json():
            raise
        return login_again(exc.description, 429, exc.wait_s)
    if not right:
        message = wrong_pin_message(guard.wait_for(client, device))
        if wants_json():
            abort(401, message)
        return login_again(message, 401, guard.wait_for(client, device))
    return signed_in_now(guard)


def signed_in_now(guard):
    """Sign this browser in: a lasting session, and a device id of its own, so that
    its later PIN tries are not held up by wrong PINs from elsewhere."""
    session.permanent = True
    session.setdefault("device", new_device_id())
    session["auth"] = guard.fingerprint()
    return done("Signed in: corrections and setup are unlocked.")


def login_again(message: str, code: int, wait_s: float):
    """Back to the sign-in form, with what went wrong and how long to wait."""
    resp = make_response(render_template(
        "login.html", page="login", error=sentence(localize(message)), wait_s=math.ceil(wait_s),
        next=forms.local_path(request.form.get("next"))), code)
    if wait_s > 0:
        resp.headers["Retry-After"] = str(math.ceil(wait_s))
    return resp


@bp.post("/pin")
def change_pin():
    """A new PIN for the table, given the current one (a wrong one counts as a wrong
    PIN); every other browser signs in again."""
    check_csrf()
    data = forms.payload()
    guard = ctx().pins
    if guard.configured:
        abort(409, messages.PIN_FROM_SETTINGS)
    if not guard.is_set:
        abort(409, "no PIN is set yet: choose one in Setup")
    new_pin = forms.new_pin(data.get("new_pin"))
    again = data.get("new_pin_again")
    if again is not None and str(again).strip() != new_pin:
        abort(400, messages.PIN_REPEAT_DIFFERS)
    client, device = request.remote_addr or "?", session.get("device")
    if not guard.check(str(data.get("pin", "")).strip(), client, device):
        abort(401, wrong_pin_message(guard.wait_for(client, device)))
    guard.set_pin(new_pin)
    session.permanent = True
    session.setdefault("device", new_device_id())
    session["auth"] = guard.fingerprint()
    return done(messages.PIN_CHANGED)


@bp.post("/logout")
def logout():
    check_csrf()
    session.pop("auth", None)
    return done("Signed out.")


# -- setup -----------------------------------------------------------------------------
@bp.post("/setup")
def setup():
    data = forms.payload()
    guard = ctx().pins
    if not guard.is_set:  # first setup: choose the table's PIN, with the setup code
        check_csrf()
        if not guard.check_setup_code(data.get("setup_code"), request.remote_addr or "?"):
            abort(403, messages.WRONG_SETUP_CODE)
        new_pin = forms.new_pin(data.get("new_pin"))
        # the PIN is kept only once the rest of the form is good and the match started
        response = run_once(data, lambda: _start_match(data), strict=False)
        guard.set_pin(new_pin)
        session.permanent = True
        session.setdefault("device", new_device_id())
        session["auth"] = guard.fingerprint()
        return response
    return _setup_with_pin(data)


@require_pin
def _setup_with_pin(data):
    return run_once(data, lambda: _start_match(data), strict=False)


def _start_match(data: dict):
    from . import card_game as cards

    if cards.game_choice(data) == "cards":
        return cards.start_card_match(data)
    players = forms.player_names(data.get("players[]") or data.get("players"))
    source = forms.camera_source(data.get("camera"))
    teams = _teams(data, players)
    starter, draw = chosen_starter(data, players)
    camera = ctx().camera
    tournament_id, pairing = _tournament_fields(data, players)
    may_replace_running(data)
    if source == "demo":
        if camera is None:
            abort(409, "this server has no demo source")
        camera.start("demo", players, fresh=True)
        return done("A simulated game starts in a moment (its players draw for who "
                    "begins).", url_for("pages.table"))
    match_id = run(lambda: ctx().table.new_match(players, starter, teams, source="manual"
                                                 if source == "none" else "camera",
                                                 tournament_id=tournament_id, pairing=pairing))
    if camera is not None:
        camera.start(source)
    msg = f"Match {match_id} started: {starter} begins."
    if draw:
        msg += " Draw: " + "; ".join(", ".join(f"{p} {v}" for p, v in r.items())
                                    for r in draw["rounds"]) + "."
    return done(msg, url_for("pages.table"), match_id=match_id, draw=draw)


def _teams(data: dict, players: list[str]) -> dict[str, int]:
    """The team game (rules.md): every seat a team of two partners, 4 or 6 players in
    all. From the form's "team game" box, or ``teams`` (seat: 2) in a JSON body."""
    teams: dict[str, int] = {}
    raw_teams = data.get("teams")
    if isinstance(raw_teams, dict):
        for name, members in raw_teams.items():
            if name not in players:
                abort(400, f"team {str(name)[:30]!r} is not one of the players")
            teams[name] = forms.whole_number(members, TEAM_SIZE, TEAM_SIZE, TEAM_RULE)
    elif forms.boolean(data.get("team_game", "")):
        teams = dict.fromkeys(players, TEAM_SIZE)
    if teams and (len(teams) != len(players) or TEAM_SIZE * len(players) not in TEAM_PLAYERS):
        abort(400, TEAM_RULE)
    return teams


#: what the setup form says when the teams do not fit the rules
TEAM_RULE = ("a team game has two partners per team and 4 or 6 players in all: "
             "enter 2 or 3 teams")


def _tournament_fields(data: dict, players: list[str]):
    raw = data.get("tournament_id")
    if raw in (None, ""):
        return None, None
    t = ctx().store.get_tournament(forms.record_id(raw, "tournament_id"))
    if t is None:
        abort(404, f"no tournament {raw}")
    if len(players) != 2 or not set(players) <= set(t["players"]):
        abort(400, "a tournament game is one pairing of two of its players")
    return t["id"], pairing_key(*players)


@bp.post("/table/draw")
@require_pin
def draw():
    players = forms.player_names(forms.payload().get("players"))
    result = draw_starter_of(players)
    return jsonify(result)


# -- the live match --------------------------------------------------------------------
@bp.post("/table/turn")
@require_pin
@once
def turn():
    data = forms.payload()
    if "placed" not in data:
        abort(400, "give the placed tiles, like {\"H8\": 6} ({} for a pass)")
    placed = forms.placement(data.get("placed"))
    hand = data.get("hand")
    hand = forms.tiles(hand) if hand not in (None, "", []) else None
    player = forms.optional_name(data.get("player"))
    verdict = run(lambda: ctx().table.commit_turn(placed, hand, source="manual", player=player))
    if not verdict["legal"]:
        msg = messages.flagged_message(verdict)
    elif not placed:
        msg = f"Passed: {verdict['player']} places nothing this turn."
    else:
        last = ctx().table.state().get("last_turn") or {}
        msg = (f"Turn scored: {verdict['player']} "
               f"{messages.points_phrase(sum(verdict['points'].values()), last.get('gain', 0))}.")
    return done(msg, turn=verdict)


@bp.post("/table/accept")
@require_pin
@once
def accept():
    taken = occupied_cells(ctx().table.state())
    if taken:
        abort(409, f"{', '.join(taken)} already {'hold tiles' if len(taken) > 1 else 'holds a tile'}"
                   ": a turn on taken cells cannot be accepted; reject it")
    run(lambda: ctx().table.accept_pending())
    return done("Flagged turn accepted (override).")


def occupied_cells(state: dict) -> list[str]:
    """The cells of the flagged turn that already held a tile (nothing to accept)."""
    return sorted({c for a in state.get("alerts") or [] if a.get("kind") == "illegal-turn"
                   for v in a.get("violations") or [] if v.get("code") == "cell-occupied"
                   for c in v.get("cells") or []})


@bp.post("/table/reject")
@require_pin
@once
def reject():
    run(lambda: ctx().table.reject_pending())
    return done("Flagged turn rejected: take the tiles back.")


@bp.post("/table/undo")
@require_pin
@once
def undo():
    table = ctx().table
    if table.match is not None and table.match_source == "demo" and not table.match.finished:
        # the simulated players cannot take their tiles back: the next one would place
        # beside them and the camera credit both turns to one player
        abort(409, "Undo is off in the demo game: its simulated players cannot take "
                   "tiles back (at a real table, and in manual entry, it works)")
    message = ("Match reopened: its minus points are cleared, its turns stay."
               if table.match is not None and table.match.finished else "Last turn undone.")
    camera = ctx().camera
    if camera is not None and camera.event("undo"):
        # the camera's tracker takes the turn back, so it does not commit it again
        return done(message)
    run(lambda: table.undo())
    return done(message)


@bp.post("/table/end-turn")
@require_pin
@once
def end_turn():
    camera = ctx().camera
    if camera is None or not camera.event("end_turn"):
        abort(409, "no camera is watching this table: enter the turn instead")
    if ctx().table.camera.get("state") in ("unreadable", "no-board"):
        # the tracker waits for a picture it can read rather than commit a pass
        return done("End of turn sent: the camera cannot read the board now, so the turn "
                    "is committed once it can.")
    return done("End of turn sent: the tiles on the board are committed.")


@bp.post("/table/cell")
@require_pin
@once
def set_cell():
    data = forms.payload()
    name = forms.cell(data.get("cell"))
    value = forms.tile(data.get("value"), allow_empty=True)
    run(lambda: ctx().table.set_cell(name, value))
    from .tile_learning import keep_correction

    keep_correction(name, value)  # the camera's frame with the right value, to learn from
    return done(f"{name} {'cleared' if value is None else f'set to {value}'}; sheets recomputed.")


@bp.post("/table/waiting-cell")
@require_pin
def waiting_cell():
    """The value of the cell a camera turn waits for: one tap on the
    dashboard. ``value`` empty: no tile of that turn lies there."""
    data = forms.payload()
    name = forms.cell(data.get("cell"))
    value = forms.tile(data.get("value"), allow_empty=True)
    waiting = ctx().table.waiting_turn
    if not waiting or name not in waiting.get("cells", ()):
        abort(409, f"no turn waits for {name} (it may have been read meanwhile)")
    camera = ctx().camera
    if camera is None or not camera.enter_cell(name, value):
        abort(409, "no camera is watching this table: correct the cell instead")
    what = f"{name}: no tile of this turn" if value is None else f"{name} = {value}"
    return done(f"{what} sent: turn {waiting['turn']} is committed with it.")


@bp.post("/table/held")
@require_pin
@once
def held():
    data = forms.payload()
    tiles = forms.tiles(data.get("tiles", ""))
    if not tiles:
        abort(400, "give the held-back tiles, like 5 6")
    player = forms.optional_name(data.get("player"))
    raw_turn = data.get("turn")
    turn = None if raw_turn in (None, "") else forms.whole_number(raw_turn, 1, 10_000, "turn is the number of a turn played, like 3")
    number = run(lambda: ctx().table.declare_held(tiles, player, turn=turn))
    who = ctx().table.match.turns[number - 1].player
    return done(f"Tiles {' '.join(map(str, tiles))} recorded as kept back by {who} "
                f"in turn {number}.")


@bp.post("/table/finish")
@require_pin
@once
def finish():
    table = ctx().table
    if table.match is None:
        abort(409, "no match at this table")
    minus = forms.minus_points(forms.payload(), list(table.match.players))
    run(lambda: table.finish(minus))
    return done("Match finished: minus points entered.")


@bp.post("/table/profi")
@require_pin
def profi():
    on = forms.boolean(forms.payload().get("profi", ""))
    ctx().table.set_profi(on)
    return done("Profi mode on: no hints." if on else "Profi mode off: hints available.")


@bp.post("/matches/<int:match_id>/annul")
@require_pin
@once(strict=False)
def annul(match_id: int):
    """Annul a match (played by mistake, an empty one started in error): it stays in
    the history with the reason, out of rankings and standings."""
    reason = forms.reason(forms.payload().get("reason"))
    run(lambda: ctx().table.annul(match_id, reason))
    return done(messages.ANNULLED.format(match=match_id, reason=reason),
                url_for("pages.match", match_id=match_id))


# -- tournaments -------------------------------------------------------------------------
@bp.post("/tournaments")
@require_pin
@once(strict=False)
def create_tournament():
    from .evenings import FORMATS, MAX_PLAYERS, MAX_ROUNDS, first_rounds

    data = forms.payload()
    name = forms.tournament_name(data.get("name"))
    fmt = str(data.get("format") or "pairs")
    if fmt not in ("pairs", *FORMATS):
        abort(400, "choose how to pair: pairs, tables or swiss")
    season = forms.season(data.get("season")) or ctx().table.season
    if fmt == "pairs":
        names = forms.name_list(data.get("players") or [], 3, 16, "a round-robin")
        tid = ctx().store.create_tournament(name, names, season)
        rounds = len(round_robin(names))
    else:  # an evening at tables of 4 (server/evenings.py)
        names = forms.name_list(data.get("players") or [], 4, MAX_PLAYERS,
                                "an evening at tables of 4")
        rounds = forms.whole_number(data.get("rounds", 3), 1, MAX_ROUNDS,
                                    "give the rounds tonight: 1 to 15")
        tid = ctx().store.create_tournament(name, names, season, format=fmt, rounds=rounds,
                                            tables=first_rounds(fmt, names, rounds))
    return done(f"Tournament {name} created with {rounds} rounds.",
                url_for("pages.tournament", tid=tid), tournament_id=tid)


@bp.post("/tournaments/<int:tid>/play")
@require_pin
@once(strict=False)
def play_pairing(tid: int):
    t = ctx().store.get_tournament(tid)
    if t is None:
        abort(404, f"no tournament {tid}")
    data = forms.payload()
    a, b = str(data.get("a", "")), str(data.get("b", ""))
    if a == b or a not in t["players"] or b not in t["players"]:
        abort(400, "choose a pairing of two tournament players")
    may_replace_running(data)
    d = draw_starter_of([a, b])
    match_id = run(lambda: ctx().table.new_match([a, b], d["starter"], source="manual",
                                                 tournament_id=tid, pairing=pairing_key(a, b)))
    return done(f"Match {match_id}: {a} against {b}; {d['starter']} begins.",
                url_for("pages.table"), match_id=match_id)


def is_signed_in() -> bool:
    return signed_in()
