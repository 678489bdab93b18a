"""Validation of every input the dashboard accepts. Each function returns clean
values or aborts with a 400 and a sentence saying what is wrong."""

from __future__ import annotations

import re

from flask import abort, request

from ..config import NEW_PIN_PATTERN, NEW_PIN_RULE, PIN_PATTERN, PIN_RULE
from ..rules.board import CELL_SET, is_grid_name
from ..rules.board import grid_index as _grid_index
from ..rules.tiles import is_tile_value

NAME_RE = re.compile(r"^[\w][\w .'\-&]{0,23}$", re.UNICODE)
SEASON_RE = re.compile(r"^[\w][\w .'/\-&]{0,39}$", re.UNICODE)
#: a path on this server to go back to after a form: no scheme, no host, nothing a
#: browser would read as another site (``//host``, ``/\\host``, control characters)
LOCAL_PATH_RE = re.compile(r"/(?![/\\])[\x21-\x7e]{0,200}")
#: the largest id SQLite (and PostgreSQL's bigint) can hold
MAX_ID = 2 ** 63 - 1
CAMERA_RE = re.compile(r"^(demo|none|picamera2|\d{1,2}|(rtsp|http|https)://[^\s]{1,200}|"
                       r"[\w./\-]{1,200})$")


def payload() -> dict:
    """The request's fields: a JSON object body or form fields."""
    if request.is_json:
        try:
            data = request.get_json(silent=True)
        except RecursionError:
            abort(400, "the request body is nested too deeply")
        if not isinstance(data, dict):
            abort(400, "the request body must be a JSON object")
        return data
    return request.form.to_dict(flat=True) | {
        k: request.form.getlist(k) for k in request.form if k.endswith("[]")}


def whole_number(raw, lo: int, hi: int, message: str) -> int:
    """An int from a JSON number or a form field's digits. A bool, a fraction, an
    infinity, a sign, digits of another script or a value outside ``lo..hi`` is a 400
    with ``message``."""
    if isinstance(raw, bool):
        abort(400, message)
    if isinstance(raw, float):
        if not raw.is_integer():
            abort(400, message)
        raw = int(raw)
    elif isinstance(raw, str):
        text = raw.strip()
        if not re.fullmatch(r"[0-9]{1,19}", text):
            abort(400, message)
        raw = int(text)
    elif not isinstance(raw, int):
        abort(400, message)
    if not lo <= raw <= hi:
        abort(400, message)
    return raw


def local_path(raw, default: str = "/") -> str:
    """``raw`` when it is a path on this server (see ``LOCAL_PATH_RE``), else
    ``default``: where a form may send the browser next."""
    return raw if isinstance(raw, str) and LOCAL_PATH_RE.fullmatch(raw) else default


def name_list(raw, lo: int, hi: int, what: str) -> list[str]:
    """Player names from a list of strings or a comma or line separated text: ``lo`` to
    ``hi`` of them, each a usable name, no two alike."""
    if isinstance(raw, str):
        raw = raw.replace("\n", ",").split(",")
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        abort(400, "players must be a list of names")
    names = [n.strip() for n in raw if n.strip()]
    if not lo <= len(names) <= hi:
        abort(400, f"{what} needs {lo} to {hi} players")
    for n in names:
        if not NAME_RE.match(n):
            abort(400, f"{n[:30]!r} is not a usable name (letters, digits, spaces, up to 24)")
    if len({n.casefold() for n in names}) != len(names):
        abort(400, "player names must be different")
    return names


def player_names(raw) -> list[str]:
    """The players (or teams) of a match: 2 to 6."""
    return name_list(raw, 2, 6, "a match")


def optional_name(raw, what: str = "player") -> str | None:
    """A name given with an action (whose turn it is meant to be), or None."""
    if raw in (None, ""):
        return None
    if not isinstance(raw, str) or not NAME_RE.match(raw.strip()):
        abort(400, f"{what}: a player's name (letters, digits, spaces, up to 24)")
    return raw.strip()


#: a tournament's name: letters of any script, digits, spaces and the punctuation club
#: names use ("Herbst-Cup 2026 (Süd)", "Open 3/4, Runde 2")
TOURNAMENT_NAME_MAX = 40
_TOURNAMENT_CHARS = re.compile(r"[\w .,'\-&()/+:#]", re.UNICODE)


def tournament_name(raw) -> str:
    """A tournament's name, or a 400 that says what is wrong with it."""
    from .messages import TOURNAMENT_NAME_CHAR, TOURNAMENT_NAME_EMPTY, TOURNAMENT_NAME_LONG

    name = " ".join(raw.split()) if isinstance(raw, str) else ""
    if not name:
        abort(400, TOURNAMENT_NAME_EMPTY)
    if len(name) > TOURNAMENT_NAME_MAX:
        abort(400, TOURNAMENT_NAME_LONG.format(most=TOURNAMENT_NAME_MAX, n=len(name)))
    bad = sorted({c for c in name if not _TOURNAMENT_CHARS.fullmatch(c)})
    if bad:
        abort(400, TOURNAMENT_NAME_CHAR.format(chars=" ".join(repr(c) for c in bad[:5])))
    return name


REASON_MAX = 200


def reason(raw) -> str:
    """A one-line reason (annulling a match), or a 400."""
    from .messages import REASON_EMPTY, REASON_LONG

    text = " ".join(raw.split()) if isinstance(raw, str) else ""
    text = "".join(c for c in text if c.isprintable())
    if not text:
        abort(400, REASON_EMPTY)
    if len(text) > REASON_MAX:
        abort(400, REASON_LONG.format(most=REASON_MAX, n=len(text)))
    return text


def record_id(raw, what: str) -> int:
    """A stored record's id (a tournament's, a match's)."""
    return whole_number(raw, 1, MAX_ID, f"{what} must be a whole number from 1")


def season(raw) -> str | None:
    if raw in (None, ""):
        return None
    if not isinstance(raw, str) or not SEASON_RE.match(raw.strip()):
        abort(400, "a season is a short name like 2026 or Spring 2026 (up to 40 letters)")
    return raw.strip()


def cell(raw) -> str:
    if not isinstance(raw, str) or not is_grid_name(raw.strip().upper()):
        abort(400, "a cell is named like H8 (columns A to O, rows 1 to 15)")
    name = raw.strip().upper()
    if _grid_index(name) not in CELL_SET:
        abort(400, f"{name} is not a cell of the board")
    return name


def tile(raw, allow_empty: bool = False) -> int | None:
    if raw is None or raw == "":
        if allow_empty:
            return None
        abort(400, "give a tile value from 1 to 6")
    if isinstance(raw, str):  # a form field's digits
        return whole_number(raw, 1, 6, "a tile value is a number from 1 to 6")
    if not is_tile_value(raw):  # JSON: the test `zatre score` applies (6.0 and true are not)
        abort(400, "a tile value is a whole number from 1 to 6")
    return raw


def tiles(raw) -> list[int]:
    if isinstance(raw, str):
        raw = [t for t in re.split(r"[\s,]+", raw.strip()) if t]
    if not isinstance(raw, list) or len(raw) > 20:
        abort(400, "tiles are a list of values from 1 to 6")
    return [tile(t) for t in raw]


def placement(raw) -> dict[str, int]:
    if isinstance(raw, str):  # "H8=6 H7=5"
        items = {}
        for part in re.split(r"[\s,;]+", raw.strip()):
            if not part:
                continue
            if "=" not in part:
                abort(400, "write placed tiles like H8=6 H7=5")
            c, v = part.split("=", 1)
            items[c] = v
        raw = items
    if not isinstance(raw, dict) or len(raw) > 12:
        abort(400, "placed tiles are a mapping of cell to value, like {\"H8\": 6}")
    out: dict[str, int] = {}
    for c, v in raw.items():
        out[cell(c)] = tile(v)
    return out


def minus_points(data: dict, players: list[str]) -> dict[str, int]:
    if "minus" not in data and not any(f"minus_{i}" in data for i in range(len(players))):
        abort(400, "give each player's minus points (the pips of the tiles left, 0 for "
                   "none)")
    raw = data.get("minus")
    if raw is None:
        raw = {p: data.get(f"minus_{i}", "") for i, p in enumerate(players)}
    if not isinstance(raw, dict):
        abort(400, "minus points are given per player")
    out = {}
    for p, v in raw.items():
        if p not in players:
            abort(400, f"unknown player {str(p)[:30]!r}")
        if v in (None, ""):
            v = 0
        if isinstance(v, list):  # the tiles left: their pips count
            v = sum(tiles(v))
        out[p] = whole_number(v, 0, 726, f"minus points for {p} are a whole number "
                                         "from 0 to 726")
    return out


def pin(raw, field: str = "PIN") -> str:
    if not isinstance(raw, str) or not PIN_PATTERN.fullmatch(raw.strip()):
        abort(400, f"the {field} is {PIN_RULE}")
    return raw.strip()


def new_pin(raw, field: str = "new PIN") -> str:
    """A PIN being chosen now: at least 6 digits, or a passphrase."""
    if not isinstance(raw, str) or not NEW_PIN_PATTERN.fullmatch(raw.strip()):
        abort(400, f"the {field} is {NEW_PIN_RULE}")
    return raw.strip()


def camera_source(raw) -> str:
    raw = "none" if raw in (None, "") else str(raw).strip()
    if not CAMERA_RE.match(raw) or ".." in raw:
        abort(400, "camera source: demo, none, picamera2, a device number, a URL or a folder")
    return raw


def boolean(raw) -> bool:
    if isinstance(raw, bool):
        return raw
    if str(raw).lower() in ("1", "true", "on", "yes"):
        return True
    if str(raw).lower() in ("0", "false", "off", "no", ""):
        return False
    abort(400, "expected on or off")
