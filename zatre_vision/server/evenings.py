"""Evenings at tables of 4 (issue 62): a tournament whose rounds seat players at tables
of 4 (3 or 2 where 4 does not divide), paired by ``pairings.py``, either all at once
(``tables``: a round robin spreading the meetings) or round by round (``swiss``: by the
standings so far). Each round's tables are stored when paired; a table's match is keyed
``<round>:<names sorted>``; standings give 2 points for each opponent at the table
outscored and 1 for each tied (the pairs' 2 a win, 1 a draw, table by table)."""

from __future__ import annotations

from flask import Blueprint, abort, url_for

from .. import pairings
from . import forms
from .actions import ctx, done, draw_starter_of, may_replace_running, run
from .once import once
from .records import pairing_status
from .security import require_pin

bp = Blueprint("evenings", __name__)

FORMATS = ("tables", "swiss")
MAX_PLAYERS = 32
MAX_ROUNDS = 15


def group_key(number: int, players: list[str]) -> str:
    return f"{number}:" + "|".join(sorted(players))


def group_standings(players: list[str], matches: list[dict]) -> list[dict]:
    """Standings over finished matches that count: ``points`` (2 for each opponent
    outscored at the table, 1 for each tied), ``played``, ``won`` (matches won),
    ``for`` (own score), ``diff`` (own score minus the opponents' average, summed);
    ordered by points, then difference, then score."""
    table = {p: {"player": p, "played": 0, "won": 0, "points": 0, "for": 0, "diff": 0.0}
             for p in players}
    for m in matches:
        if not m["finished"] or m.get("annulled") or len(m["players"]) < 2:
            continue
        totals = m["totals"]
        for p in m["players"]:
            if p not in table:
                continue
            own = totals.get(p, 0)
            others = [totals.get(q, 0) for q in m["players"] if q != p]
            r = table[p]
            r["played"] += 1
            r["won"] += p in m["winners"]
            r["points"] += sum(2 if own > o else 1 if own == o else 0 for o in others)
            r["for"] += own
            r["diff"] += own - sum(others) / len(others)
    out = list(table.values())
    for r in out:
        r["diff"] = round(r["diff"], 1)
    out.sort(key=lambda r: (-r["points"], -r["diff"], -r["for"], r["player"]))
    for rank, r in enumerate(out, start=1):
        r["rank"] = rank
    return out


def evening_view(tournament: dict, rounds: list[list[list[str]]], matches: list[dict],
                 active: set[int]) -> dict:
    """Each round's tables with their match and status (``pairing_status``), the
    standings, and whether the next Swiss round can be paired now."""
    by_key = {m["pairing"]: m for m in matches if m.get("pairing")}
    shown = []
    for number, groups in enumerate(rounds, start=1):
        rows = []
        for players in groups:
            key = group_key(number, players)
            match = by_key.get(key)
            rows.append({"players": players, "key": key, "match": match,
                         "status": pairing_status(match, active)})
        shown.append(rows)
    last_done = bool(shown) and all(r["status"] == "finished" for r in shown[-1])
    return {"evening_rounds": shown,
            "standings": group_standings(tournament["players"], matches),
            "next_round": (tournament.get("format") == "swiss" and last_done
                           and len(rounds) < (tournament.get("rounds") or 0))}


def first_rounds(format: str, players: list[str], rounds: int) -> list[list[list[str]]]:
    """What is paired when the evening is made: every round (``tables``), or the first,
    with the players as entered as the seeding (``swiss``)."""
    if format == "tables":
        return pairings.spread_rounds(players, rounds)
    return [pairings.swiss_round(players, [])]


def _evening(tid: int) -> dict:
    t = ctx().store.get_tournament(tid)
    if t is None:
        abort(404, f"no tournament {tid}")
    if t.get("format") not in FORMATS:
        abort(409, "this tournament pairs two players at a time: play its pairings")
    return t


@bp.post("/tournaments/<int:tid>/table")
@require_pin
@once(strict=False)
def play_table(tid: int):
    """Start one table of a round at this table: its players, the starter drawn."""
    t = _evening(tid)
    key = str(forms.payload().get("table", ""))
    rounds = ctx().store.tournament_rounds(tid)
    found = [g for n, groups in enumerate(rounds, start=1) for g in groups
             if group_key(n, g) == key]
    if not found:
        abort(400, "choose one of the evening's tables")
    may_replace_running(forms.payload())
    players = found[0]
    d = draw_starter_of(players)
    match_id = run(lambda: ctx().table.new_match(players, d["starter"], source="manual",
                                                 tournament_id=t["id"], pairing=key))
    return done(f"Match {match_id} started: {d['starter']} begins.", url_for("pages.table"),
                match_id=match_id)


@bp.post("/tournaments/<int:tid>/next-round")
@require_pin
@once(strict=False)
def next_round(tid: int):
    """Pair the next round of a Swiss evening from the standings so far."""
    t = _evening(tid)
    store = ctx().store
    rounds = store.tournament_rounds(tid)
    if t["format"] != "swiss":
        abort(409, "a round robin is paired all at once")
    if len(rounds) >= (t.get("rounds") or 0):
        abort(409, f"all {len(rounds)} rounds are paired")
    view = evening_view(t, rounds, store.tournament_matches(tid), store.active_match_ids())
    if not view["next_round"]:
        waiting = sum(r["status"] != "finished" for r in view["evening_rounds"][-1])
        abort(409, f"round {len(rounds)} is not over: {waiting} of its tables have no "
                   "finished match yet")
    order = [r["player"] for r in view["standings"]]
    number = len(rounds) + 1
    if not store.add_tournament_round(tid, number, pairings.swiss_round(order, rounds)):
        abort(409, f"round {number} is paired already")
    return done(f"Round {number} paired.", url_for("pages.tournament", tid=tid))
