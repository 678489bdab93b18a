"""A backup tried for operator access: ``zatre bench backup-access``.

A table whose PIN was set at its console (``zatre pin set``) plays a few turns under
``zatre serve``, with a sign-in code from the console outstanding; ``zatre backup``
copies its database while it runs. Whoever holds the copy then tries every secret in
it: every value of every table and every printable run of bytes in the file (free
pages too) is a candidate, and each is tried

- offline: is it the PIN, a PIN hash (scrypt or pbkdf2, which would be guessed
  offline), the console's code or the session signing key;
- as the key that signs session cookies: a forged session (``auth`` made with that key,
  and the candidate itself as ``auth``) sent with a write to the live server;
- as the console's one-time code, on the live server's sign-in form.

A way in is any of these that works. The files the backup left beside it are listed
(no ``-wal`` or ``-shm``). The attacker's tools are sqlite3, Flask's cookie signer and
plain sockets: nothing of the server's code. Result:
``benchmarks/results/backup_access.json``."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import sqlite3
import tempfile
from pathlib import Path

from .served import Browser, Served, console_code, data_folder_with_pin, http_request, zatre

PIN = "531864"
ATTACKER = "127.0.5.1"
OPERATOR = "127.0.5.2"
TURNS = ({"H8": 6, "H7": 5, "G7": 5}, {"I8": 4}, {})
CODE_ALPHABET = set("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
HASH_RE = re.compile(r"^(scrypt|pbkdf2)[:$]")


def candidates(path: Path) -> set[str]:
    """Every value in every table of the backup, its words, and every printable run of
    6 or more bytes in the file."""
    found: set[str] = set()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):  # noqa: S608 - its own names
                for value in row:
                    if isinstance(value, bytes):
                        value = value.decode("latin-1")
                    if value is None:
                        continue
                    text = str(value)
                    found.add(text)
                    found.update(w for w in re.split(r"[\s,;\"'{}\[\]:]+", text) if len(w) >= 4)
    finally:
        conn.close()
    raw = path.read_bytes()
    found.update(m.group().decode() for m in re.finditer(rb"[\x20-\x7e]{6,}", raw))
    return {c for c in found if 4 <= len(c) <= 4096}


def _flask_cookie(key: str, session: dict) -> str:
    """A session cookie as Flask signs it, with ``key`` (the attacker's forger)."""
    from flask import Flask
    from flask.sessions import SecureCookieSessionInterface

    app = Flask("forger")
    app.secret_key = key
    return SecureCookieSessionInterface().get_signing_serializer(app).dumps(session)


def _forged_write(port: int, key: str) -> list[int]:
    """A write with a session forged with ``key``: the statuses (401: not let in)."""
    statuses = []
    guesses = (hmac.new(key.encode(), b"zatre-pin:", hashlib.sha256).hexdigest()[:16], key[:64])
    for auth in guesses:
        cookie = _flask_cookie(key, {"auth": auth, "csrf": "t", "device": "forged"})
        status, _, _ = http_request(port, "POST", "/table/undo", source=ATTACKER, body=b"{}",
                                    headers={"Cookie": f"session={cookie}", "X-CSRF-Token": "t",
                                             "Content-Type": "application/json",
                                             "Accept": "application/json"})
        statuses.append(status)
    return statuses


def run_backup_access_benchmark() -> dict:
    data = data_folder_with_pin(PIN)
    served = Served(data, "--source", "none")
    out = Path(tempfile.mkdtemp(prefix="zatre-backup-")) / "table.db"
    try:
        phone = Browser(served.port, OPERATOR)
        phone.sign_in(PIN)
        status, reply = phone.post("/setup", {"players": ["Ann", "Ben"], "camera": "none",
                                              "replace": True})
        if status != 200:
            raise RuntimeError(f"setup failed: {status} {reply}")
        for placed in TURNS:
            phone.post("/table/turn", {"placed": placed})
        code = console_code(data)
        made = zatre("backup", str(out), "--data-dir", data)
        if made.returncode != 0:
            raise RuntimeError(f"zatre backup failed: {made.stderr.strip()}")
        beside = sorted(p.name for p in out.parent.iterdir())
        found = candidates(out)
        keys = [json.loads(p.read_text())["key"] for p in Path(data).glob(".session-*.key")]
        raw = out.read_bytes()
        offline = {
            "the_pin": sum(1 for c in found if c.strip() == PIN),
            "pin_hashes": sum(1 for c in found if HASH_RE.match(c)),
            "console_code": sum(1 for c in found
                                if c.upper().replace("-", "") == code.replace("-", "")),
            "session_key": sum(1 for k in keys if k.encode() in raw
                               or bytes.fromhex(k) in raw or k in found),
        }
        forged = {"tried": 0, "let_in": 0, "statuses": {}}
        for key in sorted(found):
            for status in _forged_write(served.port, key):
                forged["tried"] += 1
                forged["statuses"][str(status)] = forged["statuses"].get(str(status), 0) + 1
                if status not in (400, 401, 403, 429):
                    forged["let_in"] += 1
        as_code = {"tried": 0, "let_in": 0}
        for c in sorted(found):
            text = c.upper().replace("-", "").replace(" ", "")
            if len(text) == 16 and set(text) <= CODE_ALPHABET:
                as_code["tried"] += 1
                guest = Browser(served.port, ATTACKER)
                status, _ = guest.sign_in(c)
                as_code["let_in"] += status == 200
        still = phone.post("/table/turn", {"placed": {}})[0]
    finally:
        served.close()
    ways_in = sum(offline.values()) + forged["let_in"] + as_code["let_in"]
    left = [n for n in beside if n != out.name]
    ok = ways_in == 0 and not left and still == 200
    return {
        "ok": ok,
        "summary": {"ok": ok, "ways_in": ways_in, "candidates": len(found),
                    "forged_sessions_tried": forged["tried"],
                    "files_beside_the_backup": left},
        "setup": {"table": "PIN set at the console (6 digits), 3 turns played, a console "
                           "sign-in code outstanding; zatre backup while zatre serve runs",
                  "candidates": "every value of every table and its words, every printable "
                                "run of 6+ bytes in the file"},
        "offline": offline,
        "forged_sessions": forged,
        "as_console_code": as_code,
        "operator_still_signed_in": still == 200,
        "files_beside_the_backup": left,
        "targets": {"ways_in": 0, "files_beside_the_backup": []},
    }
