"""The club overview (``zatre serve --club``, and ``/club`` on any server): every
table that shares this database, each with its live match (a board thumbnail,
players, scores, whose turn) and a link to the table's own dashboard.

Each ``zatre serve`` stores where its dashboard answers (setting
``dashboard_url:<table>``) when it starts; the overview reads the matches from the
shared store, so it needs no connection to the tables. ``/api/club`` is what
``club.js`` polls to keep the page live."""

from __future__ import annotations

import ipaddress
import socket

from flask import Blueprint, Flask, abort, jsonify, redirect, render_template, request

from ..match import Match, MatchError
from ..rules.record import RecordError
from ..store import StoreError
from ..store.leases import TableLeases
from .context import context

bp = Blueprint("club", __name__)

#: how often the overview page asks for the tables again (seconds)
POLL_S = 3


#: a table's own pages: the club overview (no table of its own) sends them to /club
TABLE_PAGES = ("/", "/setup", "/sheet", "/calibration")
#: the writes the club overview takes: signing in, tournaments (created and paired
#: here, played at a table: not ``/play`` nor an evening's ``/table``), annulling and
#: analysing a stored match
OVERVIEW_POSTS = ("/login", "/logout", "/tournaments", "/matches/")
CLUB_ONLY_OVERVIEW = ("the club overview plays no match: start it at a table's own dashboard "
                      "(zatre serve at that table)")


def attach_overview_only(app: Flask) -> None:
    """``zatre serve --club``: an overview, not a table. A table's pages (Table, Sheets,
    Setup, Calibration) go to ``/club``; a write that would play a match here (Setup,
    a turn, a pairing played "at this table") is refused with one line."""

    @app.before_request
    def _overview_only():
        if not context().club:
            return None
        path = request.path
        if request.method in ("GET", "HEAD"):
            if path in TABLE_PAGES or path.startswith("/calibration/"):
                return redirect("/club")
            return None
        if path.startswith(OVERVIEW_POSTS) and not path.endswith(("/play", "/table")):
            return None
        abort(409, CLUB_ONLY_OVERVIEW)
        return None


def dashboard_url(host: str, port: int, hostname: str | None = None) -> str:
    """The address other machines reach a table's dashboard at: its host, or, when it
    listens on every interface, this machine's name as phones resolve it over mDNS
    (``zatre`` is ``zatre.local``: a Pi's avahi announces it)."""
    if host in ("", "0.0.0.0", "::"):
        host = hostname if hostname is not None else socket.gethostname()
        if host and "." not in host and host != "localhost":
            host += ".local"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def register_dashboard(store, table: str, host: str, port: int) -> None:
    store.set_setting(f"dashboard_url:{table}", dashboard_url(host, port))


def reached_at(host_header: str, port: int) -> str | None:
    """The dashboard's address as a client on the network reached it (``Host``), when
    that is an IP address on this server's port: every phone can open it, where a
    ``.local`` name may not resolve. None for names, loopback and other ports, so a
    forged header can send the overview nowhere but to an address on this port."""
    raw = (host_header or "").strip()
    if raw.startswith("["):
        addr, _, rest = raw[1:].partition("]")
        got_port = rest[1:] if rest.startswith(":") else ""
    else:
        addr, _, got_port = raw.rpartition(":") if raw.count(":") == 1 else (raw, "", "")
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return None
    if ip.is_loopback or ip.is_unspecified or ip.is_multicast or got_port != str(port):
        return None
    return f"http://{'[' + addr + ']' if ip.version == 6 else addr}:{port}/"


def remember_reached_at(app: Flask, port: int) -> None:
    """A table's server: the first request from the network by an IP address stores
    that address as the table's link in the club overview (again when it changes)."""
    last: dict[str, str | None] = {"url": None}

    @app.before_request
    def _reached_at():
        zatre = context()
        url = reached_at(request.host, port)
        if url is None or url == last["url"] or zatre.club:
            return None
        try:
            zatre.store.set_setting(f"dashboard_url:{zatre.table.name}", url)
            last["url"] = url
        except StoreError:  # the page still answers; the next request tries again
            pass
        return None


def table_entry(store, name: str, match_id: int | None) -> dict:
    """One table of the overview: its match as the table shows it, or none."""
    entry = {"table": name, "url": store.get_setting(f"dashboard_url:{name}"),
             "match_id": None, "players": [], "totals": {}, "turn": None,
             "turn_number": 0, "finished": False, "winners": [], "board": {},
             "variant": None, "source": None, "note": None}
    row = store.get_match(match_id) if match_id is not None else None
    if row is None:
        return entry
    record = row["record"]
    entry.update(match_id=row["id"], players=row["players"], totals=row["totals"],
                 finished=row["finished"], winners=row["winners"] if row["finished"] else [],
                 variant=record.get("variant", "board"), source=row.get("source"),
                 turn_number=len(record.get("turns") or []) + 1)
    if entry["variant"] != "board":
        return entry  # a card game: players and scores only
    try:
        match = Match.from_record(record, finished=row["finished"], as_recorded=True)
    except (RecordError, MatchError, ValueError, KeyError, TypeError) as exc:
        entry["note"] = f"cannot be shown: {exc}"
        return entry
    entry.update(board=match.board.to_dict(), totals=match.totals(),
                 turn=None if match.finished else match.current_player)
    return entry


def overview_data(store) -> list[dict]:
    """Every table that played here, and every table served now (a live lease) that
    has not started a match yet, by name; a served table's link is its lease's address
    when none is stored."""
    played = {t["name"]: t["match_id"] for t in store.tables()}
    served = {r["name"]: r["address"] for r in TableLeases(store).live()}
    entries = []
    for name in sorted(set(played) | set(served)):
        entry = table_entry(store, name, played.get(name))
        entry["url"] = entry["url"] or served.get(name)
        entry["served"] = name in served
        entries.append(entry)
    return entries


@bp.get("/club")
def overview():
    from .pages import _json, board_cells

    store = context().store
    tables = overview_data(store)
    return render_template("club.html", page="club", tables=tables,
                           tables_json=_json(tables), cells_json=_json(board_cells()),
                           poll_s=POLL_S)


@bp.get("/api/club")
def api_overview():
    return jsonify({"tables": overview_data(context().store)})
