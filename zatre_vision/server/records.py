"""Club records built from stored matches: step-by-step replay, rankings, round-robin
pairings and standings, exports. Pure functions over the store's match rows."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from itertools import combinations

from ..rules.board import CELL_SET, grid_index
from ..rules.record import RecordError, parse_record, run_replay
from ..rules.sheet import ScoreSheet
from ..variants import score_as_recorded
from .event_lines import event_line, render


def match_summary(row: dict) -> dict:
    """One line of ``GET /api/matches``."""
    return {
        "id": row["id"],
        "date": row["created"],
        "updated": row["updated"],
        "table": row["table_name"],
        "season": row.get("season"),
        "players": row["players"],
        "totals": row["totals"],
        "finished": row["finished"],
        "winner": (row["winners"][0] if len(row["winners"]) == 1 else row["winners"])
        if row["finished"] else None,
        "tournament_id": row.get("tournament_id"),
        "variant": (row.get("record") or {}).get("variant", "board"),
        "demo": row.get("source") == "demo",
        "annulled": row.get("annulled"),
    }


def match_document(row: dict) -> dict:
    """``GET /api/matches/<id>``: the record in the ``zatre score`` input format with its
    output under ``result``, replayed as the table scored it, and ``notes``: one line
    per rule the match breaks that was checked only since it was stored."""
    record = dict(row["record"])
    result, notes = stored_result(record)
    doc = {**record, "result": result, "notes": notes}
    doc.update({"id": row["id"], "date": row["created"], "finished": row["finished"],
                "winner": match_summary(row)["winner"], "table": row["table_name"]})
    return doc


def stored_result(record: dict) -> tuple[dict | None, list[str]]:
    """A stored match's ``zatre score`` output as the table scored it, and its notes
    (``variants.score_as_recorded``): a match stored by an earlier version that
    breaks a rule checked since still shows. A record nothing can replay: None and
    the reason."""
    try:
        result = score_as_recorded(record)
    except RecordError as exc:
        return None, [f"this record cannot be replayed: {exc}"]
    return result, result.pop("notes")


def replay_steps(record: dict, finished: bool) -> list[dict]:
    """Board and sheets after each turn (step 0: the empty board), as the live table
    showed them (every committed turn applied, the record read as recorded)."""
    rec = parse_record(record, as_recorded=True)
    state = run_replay(rec, apply_all=True)
    board: dict[str, int] = {}
    sheets = {p: ScoreSheet() for p in rec.players}
    steps = [{"turn": None, "board": {}, "sheets": {p: s.to_json() for p, s in sheets.items()}}]
    for k, t in enumerate(state.turns, start=1):
        if t.applied:
            for name, value in t.turn.placed.items():
                if grid_index(name) in CELL_SET and name not in board:
                    board[name] = value
            sheets[t.turn.player].enter(t.result.points, t.result.crosses)
        if k == len(state.turns) and finished:
            for p, pips in rec.minus.items():
                sheets[p].minus = pips
        steps.append({"turn": {"number": k, **t.to_json(), "gain": t.gain}, "board": dict(board),
                      "sheets": {p: s.to_json() for p, s in sheets.items()}})
    if not state.turns and finished:
        for p, pips in rec.minus.items():
            sheets[p].minus = pips
        steps[0]["sheets"] = {p: s.to_json() for p, s in sheets.items()}
    return steps


def counts_for_rankings(row: dict) -> bool:
    """A finished match the rankings count: not a demo game (simulated players), not
    annulled."""
    return row.get("source") != "demo" and not row.get("annulled")


def rankings(rows: list[dict]) -> list[dict]:
    """Per player over finished matches: games, wins (a shared first place counts for
    each), average and best score, and the score difference (own score minus the
    average of the opponents', summed over games) as the tie-break."""
    acc: dict[str, dict] = defaultdict(lambda: {"games": 0, "wins": 0, "sum": 0,
                                                "best": None, "diff": 0.0})
    for row in rows:
        if not row["finished"] or len(row["players"]) < 2:
            continue
        if (row.get("record") or {}).get("variant", "board") != "board":
            continue  # rankings are for the board game; card games are in the History
        if not counts_for_rankings(row):
            continue  # the simulated demo's games, and annulled matches
        totals = row["totals"]
        for p in row["players"]:
            a = acc[p]
            own = totals.get(p, 0)
            others = [totals.get(q, 0) for q in row["players"] if q != p]
            a["games"] += 1
            a["wins"] += p in row["winners"]
            a["sum"] += own
            a["best"] = own if a["best"] is None else max(a["best"], own)
            a["diff"] += own - sum(others) / len(others)
    out = [{"player": p, "games": a["games"], "wins": a["wins"],
            "average": round(a["sum"] / a["games"], 1), "best": a["best"],
            "diff": round(a["diff"], 1)} for p, a in acc.items()]
    out.sort(key=lambda r: (-r["wins"], -r["diff"], -r["average"], r["player"]))
    for rank, r in enumerate(out, start=1):
        r["rank"] = rank
    return out


def round_robin(players: list[str]) -> list[list[tuple[str, str]]]:
    """Rounds of pairings by the circle method: everyone meets everyone once; with an
    odd number of players one sits out each round."""
    seats: list[str | None] = list(players)
    if len(seats) % 2:
        seats.append(None)
    n = len(seats)
    rounds = []
    for _ in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = seats[i], seats[n - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b))
        rounds.append(pairs)
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return rounds


def pairing_key(a: str, b: str) -> str:
    return "|".join(sorted((a, b)))


def standings(players: list[str], matches: list[dict]) -> list[dict]:
    """Round-robin table: 2 points a win, 1 a draw; then score difference, then score."""
    table = {p: {"player": p, "played": 0, "won": 0, "drawn": 0, "lost": 0, "points": 0,
                 "for": 0, "against": 0} for p in players}
    for m in matches:
        if not m["finished"] or len(m["players"]) != 2:
            continue
        a, b = m["players"]
        if a not in table or b not in table:
            continue
        ta, tb = m["totals"].get(a, 0), m["totals"].get(b, 0)
        for p, own, other in ((a, ta, tb), (b, tb, ta)):
            r = table[p]
            r["played"] += 1
            r["for"] += own
            r["against"] += other
            if own > other:
                r["won"] += 1
                r["points"] += 2
            elif own == other:
                r["drawn"] += 1
                r["points"] += 1
            else:
                r["lost"] += 1
    out = list(table.values())
    for r in out:
        r["diff"] = r["for"] - r["against"]
    out.sort(key=lambda r: (-r["points"], -r["diff"], -r["for"], r["player"]))
    for rank, r in enumerate(out, start=1):
        r["rank"] = rank
    return out


def pairing_status(match: dict | None, active: set[int]) -> str:
    """Where a pairing stands, from the latest match played for it: ``open`` (none yet),
    ``playing`` (a table plays it now), ``finished``, ``unfinished`` (a new match
    replaced it at its table) or ``annulled``. Unfinished and annulled pairings are
    played again."""
    if match is None:
        return "open"
    if match.get("annulled"):
        return "annulled"
    if match["finished"]:
        return "finished"
    return "playing" if match["id"] in active else "unfinished"


def tournament_view(tournament: dict, matches: list[dict], active: set[int] | None = None
                    ) -> dict:
    """Pairings by round, each with its match (the latest one played for it) and its
    ``status`` (``pairing_status``); standings from finished matches not annulled.
    ``active``: the match each table plays now."""
    active = active or set()
    by_key: dict[str, dict] = {}
    for m in matches:
        if m.get("pairing"):
            by_key[m["pairing"]] = m
    rounds = []
    for pairs in round_robin(tournament["players"]):
        rows = []
        for a, b in pairs:
            m = by_key.get(pairing_key(a, b))
            rows.append({"a": a, "b": b, "key": pairing_key(a, b), "match": m,
                         "status": pairing_status(m, active)})
        rounds.append(rows)
    counted = [m for m in matches if not m.get("annulled")]
    return {"rounds": rounds, "standings": standings(tournament["players"], counted)}


def turn_dates(events: list[dict]) -> dict[int, str]:
    """When each turn (1 first) was entered, from the match's events (the latest
    event that names the turn: an accepted flagged turn is dated by its acceptance)."""
    return {e["turn_number"]: e["created"] for e in events
            if e.get("turn_number") and e["kind"] in ("turn", "accept")}


def export_csv(row: dict, dates: dict[int, str] | None = None) -> str:
    """The turns of a match, one line each (points per sum, crosses, legality, date):
    one table, the sheets are ``export_sheet_csv``."""
    result = score_as_recorded(row["record"])
    dates = dates or {}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["match", "turn", "player", "placed", "legal", "override", "points_10",
                "points_11", "points_12", "crosses", "violations", "date"])
    for k, t in enumerate(result["turns"], start=1):
        w.writerow([row["id"], k, t["player"],
                    " ".join(f"{c}={v}" for c, v in t["placed"].items()) or "pass",
                    int(t["legal"]), int(bool(t.get("override"))), t["points"]["10"],
                    t["points"]["11"], t["points"]["12"], t["crosses"],
                    "; ".join(v["message"] for v in t["violations"]), dates.get(k, "")])
    return buf.getvalue()


def export_sheet_csv(row: dict) -> str:
    """The sheets of a match, one line per player: one table, dated."""
    result = score_as_recorded(row["record"])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["match", "date", "ended", "player", "rows_total", "minus", "grand_total",
                "winner"])
    for p, s in result["sheets"].items():
        w.writerow([row["id"], row["created"], row["updated"] if row["finished"] else "", p,
                    s["total"] + s["minus"], s["minus"], s["total"],
                    int(p in row["winners"] and row["finished"])])
    return buf.getvalue()


def match_status(row: dict, active: set[int]) -> str:
    """finished, playing, unfinished or annulled."""
    if row.get("annulled"):
        return "annulled"
    if row["finished"]:
        return "finished"
    return "playing" if row["id"] in active else "unfinished"


def export_season_csv(rows: list[dict], active: set[int]) -> str:
    """Every match of a season, one line per player: one table (the club's records)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["match", "date", "ended", "season", "table", "game", "source", "status",
                "annulled_reason", "tournament", "player", "grand_total", "winner"])
    for row in rows:
        status = match_status(row, active)
        for p in row["players"]:
            w.writerow([row["id"], row["created"], row["updated"] if row["finished"] else "",
                        row.get("season") or "", row["table_name"],
                        (row.get("record") or {}).get("variant", "board"),
                        row.get("source") or "", status, row.get("annulled") or "",
                        row.get("tournament_id") or "", p, row["totals"].get(p, 0),
                        int(row["finished"] and p in row["winners"])])
    return buf.getvalue()


def all_pairs(players: list[str]) -> list[tuple[str, str]]:
    return list(combinations(players, 2))


def event_sentence(event: dict, steps: list[dict], lang: str = "en") -> str:
    """One event of a match's log as a sentence in ``lang`` (see ``event_lines``)."""
    return render(event_line(event, steps), lang)
