"""The table's PIN: the one-time setup code of a new table, the growing wait after
wrong PINs (an injected clock), its countdown, the sign-in form that says what went
wrong, and the failure counter that forgets old addresses."""

import re
import socket
import subprocess
import sys
import time

import pytest

from zatre_vision.config import load_settings
from zatre_vision.doctor import check_pin
from zatre_vision.server import create_app, security
from zatre_vision.server.context import context
from zatre_vision.server.security import PinGuard, PinLocked, delay_after, say_wait
from zatre_vision.table import Table

from .conftest import PIN


class Clock:
    def __init__(self):
        self.now = 5000.0

    def __call__(self):
        return self.now


@pytest.fixture
def new_table(databases):
    store = databases.open()
    settings = load_settings(None, {"server": {"data_dir": str(databases.tmp_path / "data")}})
    app = create_app(settings, Table(store, "table-1"), store)
    yield app, store
    store.close()


def _token(c, url="/setup"):
    page = c.get(url).data.decode()
    return page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


SETUP = {"new_pin": "975310", "players[]": ["Ann", "Ben"], "camera": "none"}


def test_the_first_pin_needs_the_setup_code(new_table):
    app, store = new_table
    c = app.test_client()
    assert 'name="setup_code"' in c.get("/setup").data.decode()
    token = _token(c)
    guard = context(app).pins
    code = guard.setup_code()
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", code) and guard.setup_code() == code
    for given in (None, "", "AAAA-AAAA"):
        body = {**SETUP, "csrf_token": token} | ({"setup_code": given} if given is not None else {})
        r = c.post("/setup", data=body, headers={"Accept": "application/json"})
        assert r.status_code == 403 and "setup code" in r.get_json()["error"]
        assert not guard.is_set and context(app).table.match is None
    guard.clock = lambda: time.time() + 10 ** 6   # the three wrong codes made it wait
    short = c.post("/setup", data={**SETUP, "new_pin": "97531", "csrf_token": token,
                                   "setup_code": code}, headers={"Accept": "application/json"})
    assert short.status_code == 400 and "6 to 12 digits" in short.get_json()["error"]
    assert not guard.is_set   # a PIN chosen now has at least 6 digits (or is a passphrase)
    r = c.post("/setup", data={**SETUP, "csrf_token": token,
                               "setup_code": " " + code.lower().replace("-", "") + " "})
    assert r.status_code == 302 and guard.is_set
    assert guard.setup_code() is None and store.get_setting("setup_code:table-1") is None
    assert c.post("/table/undo", headers={"X-Table-PIN": "975310"}).status_code == 409


def test_serve_prints_the_setup_code_and_doctor_shows_it(tmp_path):
    data = tmp_path / "data"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "zatre_vision", "serve", "--source", "none",
                             "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        printed = None
        for line in proc.stderr:   # bounded: the server prints its start lines, then serves
            if m := re.search(r"setup code ([A-Z2-9]{4}-[A-Z2-9]{4})", line):
                printed = m.group(1)
                break
            if "serving table" in line:
                break
    finally:
        proc.terminate()
        proc.wait(15)
    assert printed, "zatre serve printed no setup code"
    check = check_pin(data, None, "table-1", None)
    assert printed in check.message and check.level == "OK"
    assert "settings" in check_pin(data, None, "table-1", "1234").message


def test_each_wrong_pin_makes_the_next_wait_longer(store):
    clock = Clock()
    guard = PinGuard(store, "t", PIN, clock=clock)
    waits = []
    for _ in range(8):
        assert guard.check("0000", "10.0.0.9") is False
        waits.append(guard.wait_for("10.0.0.9"))
        if waits[-1]:
            with pytest.raises(PinLocked):
                guard.check(PIN, "10.0.0.9")    # even the right PIN waits its turn
            clock.now += waits[-1] - 0.5
            with pytest.raises(PinLocked):
                guard.check(PIN, "10.0.0.9")
            clock.now += 0.5
    assert waits == [0, 0, 2, 4, 8, 16, 32, 64]
    assert guard.check("0000", "10.0.0.8") is False   # another address has its own count
    assert guard.wait_for("10.0.0.8") == 0
    assert guard.check(PIN, "10.0.0.9") is True        # the right PIN clears the count
    assert guard.wait_for("10.0.0.9") == 0 and guard.check("0000", "10.0.0.9") is False
    assert guard.wait_for("10.0.0.9") == 0


def test_guessing_a_four_digit_pin_from_one_address_takes_months():
    half = sum(delay_after(n) for n in range(1, 5001))     # half of the 10,000 PINs
    assert half > 180 * 24 * 3600
    assert max(delay_after(n) for n in range(1, 100_000)) == security.MAX_DELAY_S


def test_a_lockout_says_how_long_and_counts_down_on_the_form(app, playing):
    clock = Clock()
    context(app).pins.clock = clock
    c = app.test_client()
    token = _token(c, "/login")
    for expected in (401, 401, 401):
        r = c.post("/login", data={"pin": "1111", "csrf_token": token, "next": "/sheet"})
        assert r.status_code == expected
        page = r.data.decode()
        assert 'id="login-form"' in page and 'name="next" value="/sheet"' in page
        assert "Wrong table PIN" in page
    assert "try again in 2 s" in page and 'data-wait="2"' in page
    r = c.post("/login", data={"pin": PIN, "csrf_token": token})
    assert r.status_code == 429 and r.headers["Retry-After"] == "2"
    assert "Too many wrong PINs from this address: try again in 2 s" in r.data.decode()
    assert 'id="login-form"' in r.data.decode()
    r = c.post("/login", data={"pin": PIN, "csrf_token": token},
               headers={"Accept": "application/json"})
    assert r.status_code == 429 and "try again in 2 s" in r.get_json()["error"]
    clock.now += 2
    assert c.post("/login", data={"pin": PIN, "csrf_token": token}).status_code == 302


def test_the_failure_counter_forgets_old_addresses(store, monkeypatch):
    clock = Clock()
    guard = PinGuard(store, "t", PIN, clock=clock)
    for n in range(5):
        guard.check("0000", f"10.0.0.{n}")
    assert guard.addresses_remembered == 5
    clock.now += security.FORGET_S + 1
    guard.check(PIN, "10.0.1.1")
    assert guard.addresses_remembered == 0
    monkeypatch.setattr(security, "MAX_ADDRESSES", 3)
    for n in range(6):
        clock.now += 1
        guard.check("0000", f"10.0.2.{n}")
    assert guard.addresses_remembered <= 4   # the quietest ones went first
    assert guard.wait_for("10.0.2.0") == 0 and guard.wait_for("10.0.2.5") == 0


def test_waits_are_said_as_people_read_them():
    assert [say_wait(s) for s in (0.2, 2, 59.5, 60, 125, 3600, 3725)] == [
        "1 s", "2 s", "1 min", "1 min", "2 min 5 s", "1 h", "1 h 2 min"]
