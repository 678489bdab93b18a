"""A copy of the database is not the key to the table: the session signing key lives in
a file only the service reads (mode 0600), not in the database or its backups; it
changes when the PIN changes and on ``zatre restore``."""

import hashlib
import hmac
import sqlite3
import stat

from flask import Flask
from flask.sessions import SecureCookieSessionInterface

from zatre_vision.config import load_settings
from zatre_vision.server import create_app
from zatre_vision.server.context import context
from zatre_vision.store import open_store
from zatre_vision.store.backup import backup, restore
from zatre_vision.store.session_key import key_path
from zatre_vision.table import Table

NEW_PIN = "97531"
TURN = {"placed": {"H8": 6, "H7": 5, "G7": 5}}


def _cookie(secret, data: dict) -> str:
    """A session cookie as Flask signs it with ``secret``."""
    signer = Flask("forger")
    signer.secret_key = secret
    return SecureCookieSessionInterface().get_signing_serializer(signer).dumps(data)


def _served(data_dir, pin=None):
    store = open_store(data_dir)
    settings = load_settings(None, {"server": {"data_dir": str(data_dir), "pin": pin}})
    table = Table(store, "table-1")
    return create_app(settings, table, store), store, table


def _signed_in(app, pin=NEW_PIN):
    c = app.test_client()
    with c.session_transaction() as sess:
        sess["csrf"] = "t"
    r = c.post("/login", json={"pin": pin}, headers={"X-CSRF-Token": "t",
                                                     "Accept": "application/json"})
    assert r.status_code == 200, r.get_json()
    return c


def _turn(c):
    return c.post("/table/turn", json=TURN, headers={"X-CSRF-Token": "t"}).status_code


def test_a_cookie_forged_from_a_copied_database_is_refused(tmp_path):
    data = tmp_path / "data"
    app, store, table = _served(data)
    context(app).pins.set_pin(NEW_PIN)
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    operator = _signed_in(app)
    copy = tmp_path / "leaked.db"
    backup(data / "zatre.db", copy)

    key = key_path(data, "table-1")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    real = app.secret_key
    assert real.hex().encode() not in copy.read_bytes() and real not in copy.read_bytes()

    # everything the copy holds is a candidate key; the fingerprint as it was made
    # before (sha256 of the PIN hash) and keyed with the candidate
    conn = sqlite3.connect(copy)
    values = [v for (v,) in conn.execute("SELECT value FROM settings")]
    conn.close()
    assert not any(v.startswith(("scrypt:", "pbkdf2:")) for v in values)  # no PIN hash
    pin_hash = store.get_setting("pin_hash:table-1")   # even one who had it from elsewhere
    candidates = [*values, "", "zatre-pin"]
    forged_statuses = set()
    for secret in candidates:
        for auth in (hashlib.sha256(("zatre-pin:" + pin_hash).encode()).hexdigest()[:16],
                     hmac.new(secret.encode(), ("zatre-pin:" + pin_hash).encode(),
                              hashlib.sha256).hexdigest()[:16]):
            c = app.test_client()
            c.set_cookie("session", _cookie(secret or "x", {"auth": auth, "csrf": "t"}))
            forged_statuses.add(_turn(c))
    assert forged_statuses == {401}
    assert table.state()["turns_played"] == 0

    # the control: the same forgery with the key from the file is taken
    c = app.test_client()
    c.set_cookie("session", _cookie(real, {"auth": context(app).pins.fingerprint(),
                                           "csrf": "t"}))
    assert _turn(c) == 200 and table.state()["turns_played"] == 1
    assert _turn(operator) in (200, 409)     # the real operator still signed in
    store.close()


def test_a_pin_change_rotates_the_key_and_ends_every_session(tmp_path):
    data = tmp_path / "data"
    app, store, table = _served(data)
    pins = context(app).pins
    pins.set_pin(NEW_PIN)
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    before = app.secret_key
    operator = _signed_in(app)
    pins.set_pin("86420")
    assert app.secret_key != before and key_path(data, "table-1").read_text().find(
        before.hex()) == -1
    assert _turn(operator) == 401
    assert _turn(_signed_in(app, "86420")) == 200
    store.close()


def test_the_key_outlives_a_restart_but_not_a_new_configured_pin(tmp_path):
    data = tmp_path / "data"
    app, store, _ = _served(data, pin="2468")
    first = app.secret_key
    store.close()
    app, store, _ = _served(data, pin="2468")
    assert app.secret_key == first           # the sessions go on after a restart
    store.close()
    app, store, _ = _served(data, pin="13579")
    assert app.secret_key != first           # a new PIN in the settings: new sessions
    store.close()


def test_a_restore_rotates_the_key(tmp_path):
    data = tmp_path / "data"
    app, store, table = _served(data)
    context(app).pins.set_pin(NEW_PIN)
    before = app.secret_key
    store.close()
    saved = tmp_path / "saved.db"
    backup(data / "zatre.db", saved)
    restore(saved, data / "zatre.db")
    assert not key_path(data, "table-1").exists()
    app, store, table = _served(data)
    pins = context(app).pins
    assert app.secret_key != before and not pins.is_set   # a backup holds no PIN
    assert pins.setup_code() is not None                  # the console chooses a new one
    store.close()


def test_a_longer_passphrase_is_a_pin_too(tmp_path):
    app, store, table = _served(tmp_path / "data")
    c = app.test_client()
    page = c.get("/setup").data.decode()
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    code = context(app).pins.setup_code()
    phrase = "correct horse battery staple"
    r = c.post("/setup", data={"new_pin": phrase, "players[]": ["Ann", "Ben"],
                               "camera": "none", "csrf_token": token, "setup_code": code})
    assert r.status_code == 302 and context(app).pins.is_set
    assert _turn(_signed_in(app, phrase)) == 200
    r = app.test_client().post("/table/turn", json={"placed": {}},
                               headers={"X-Table-PIN": phrase})
    assert r.status_code == 200
    store.close()
