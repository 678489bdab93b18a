"""Wrong PINs from any number of addresses: one limit over all of them, a refusal for a
busy check that is no wrong PIN, a signed-in device that keeps its session and its own
count, and the console's one-time code that always signs in."""

import itertools
import threading

import pytest

from zatre_vision.server import security
from zatre_vision.server.console_codes import CODE_TTL_S, new_console_code, use_console_code
from zatre_vision.server.context import context
from zatre_vision.server.security import (
    PinBusy,
    PinGuard,
    PinLocked,
    PinLockedForAll,
    delay_after_all,
)

from .conftest import PIN


class Clock:
    def __init__(self):
        self.now = 1.8e9

    def __call__(self):
        return self.now


def _flood(guard, clock, seconds, every_s=1.0, first=0):
    """One wrong PIN a second, each from a new address: how many were checked."""
    checked = 0
    for i in range(int(seconds / every_s)):
        n = first + i
        try:
            assert guard.check(f"{n % 10**6:06d}", f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}") \
                is False
            checked += 1
        except PinLocked:
            pass
        clock.now += every_s
    return checked


def test_an_hour_of_guesses_from_new_addresses_checks_only_a_few_dozen(store):
    clock = Clock()
    guard = PinGuard(store, "t", PIN, clock=clock)
    # the free ones, the one that starts the first wait, one after it (30 s)
    assert _flood(guard, clock, 60) == security.FREE_FAILURES_ALL + 2
    first_hour = security.FREE_FAILURES_ALL + 2 + _flood(guard, clock, 3540, first=60)
    assert first_hour <= 24
    assert _flood(guard, clock, 3600, first=4000) <= 2     # then about one an hour
    with pytest.raises(PinLockedForAll) as refused:
        guard.check(PIN, "10.9.9.9")                        # a new address waits too
    assert "console" in refused.value.description and refused.value.wait_s > 0
    waits = [delay_after_all(n) for n in range(security.FREE_FAILURES_ALL + 1, 20)]
    assert all(b == min(2 * a, security.MAX_DELAY_S) for a, b in itertools.pairwise(waits))


def test_the_count_over_every_address_survives_a_restart_and_is_forgotten_after_a_day(databases):
    clock = Clock()
    store = databases.open()
    try:
        _flood(PinGuard(store, "t", PIN, clock=clock), clock, 30)
        again = PinGuard(store, "t", PIN, clock=clock)
        assert again.failures_from_everyone == security.FREE_FAILURES_ALL + 1
        with pytest.raises(PinLockedForAll):
            again.check(PIN, "10.200.0.1")
        clock.now += security.FORGET_S + security.MAX_DELAY_S
        assert PinGuard(store, "t", PIN, clock=clock).failures_from_everyone == 0
        assert store.pin_failures("t") == []
    finally:
        store.close()


def test_a_device_that_signed_in_has_its_own_count_through_a_flood(store):
    clock = Clock()
    guard = PinGuard(store, "t", PIN, clock=clock)
    _flood(guard, clock, 60)
    with pytest.raises(PinLockedForAll):
        guard.check(PIN, "10.0.0.1")
    assert guard.check(PIN, "10.0.0.1", device="phone-1") is True
    assert guard.check("000000", "10.0.0.1", device="phone-1") is False
    before = guard.failures_from_everyone
    assert guard.check("000000", "10.0.0.1", device="phone-1") is False
    assert guard.failures_from_everyone == before          # not the network's count
    assert guard.check(PIN, "10.0.0.1", device="phone-1") is True


def test_a_refusal_because_a_check_is_running_is_no_wrong_pin(store, monkeypatch):
    entered, release = threading.Event(), threading.Event()

    def slow_check(stored, pin):
        entered.set()
        release.wait(10)
        return False

    monkeypatch.setattr(security, "check_password_hash", slow_check)
    clock = Clock()
    guard = PinGuard(store, "t", None, clock=clock, max_checks=1, check_wait_s=0.05)
    guard.set_pin("975310")
    first = threading.Thread(target=lambda: guard.check("111111", "10.0.0.1"))
    first.start()
    assert entered.wait(10)
    try:
        for address in ("10.0.0.2", "10.0.0.2", "10.0.0.3"):   # every slot is taken
            with pytest.raises(PinBusy):
                guard.check("975310", address)
        with pytest.raises(PinBusy):
            guard.check("222222", "10.0.0.1")                 # its own check is running
    finally:
        release.set()
        first.join(10)
    stored = {row["address"]: row["failures"] for row in store.pin_failures("t")}
    assert stored == {"10.0.0.1": 1, security.ALL_ADDRESSES: 1}
    assert guard.wait_for("10.0.0.2") == 0 and guard.checks_made == 1


def test_the_console_code_signs_in_once_and_expires(store):
    clock = Clock()
    code = new_console_code(store, "t", clock)
    assert len(code) == 19 and code.count("-") == 3
    assert store.get_setting("console_grant:t").split()[0] != code.replace("-", "")
    assert not use_console_code(store, "t", "AAAA-AAAA-AAAA-AAAA", clock)
    assert use_console_code(store, "t", " " + code.lower() + " ", clock)
    assert not use_console_code(store, "t", code, clock)            # used up
    late = new_console_code(store, "t", clock)
    clock.now += CODE_TTL_S + 1
    assert not use_console_code(store, "t", late, clock)
    assert not use_console_code(store, "t", "", clock)


def _login(c, pin, address):
    return c.post("/login", data={"pin": pin, "csrf_token": _csrf(c)},
                  environ_base={"REMOTE_ADDR": address}, headers={"Accept": "application/json"})


def _csrf(c):
    with c.session_transaction() as sess:
        sess.setdefault("csrf", "token")
        return sess["csrf"]


def test_through_a_flood_the_operator_is_never_locked_out(app, playing):
    """The dashboard's routes: a phone that signed in before the flood keeps its session
    and signs in again; a new phone signs in with the console's code."""
    guard = context(app).pins
    guard.clock = clock = Clock()
    phone = app.test_client()
    assert _login(phone, PIN, "192.168.4.20").status_code == 200
    flood = app.test_client()
    codes = [flood.post("/table/undo", headers={"X-Table-PIN": f"{n:06d}"},
                        environ_base={"REMOTE_ADDR": f"127.0.0.{n}"}).status_code
             for n in range(1, 256)]
    assert codes.count(401) == security.FREE_FAILURES_ALL + 1 and codes.count(429) == 244
    assert playing.state()["turns_played"] == 1
    r = phone.post("/table/undo", headers={"X-CSRF-Token": _csrf(phone), "Accept": "application/json"},
                   environ_base={"REMOTE_ADDR": "192.168.4.20"})
    assert r.status_code == 200 and playing.state()["turns_played"] == 0   # still signed in
    phone.post("/logout", headers={"X-CSRF-Token": _csrf(phone)})
    assert _login(phone, PIN, "192.168.4.20").status_code == 200           # its own count
    new_phone = app.test_client()
    refused = _login(new_phone, PIN, "192.168.4.21")
    assert refused.status_code == 429 and "zatre pin grant" in refused.get_json()["error"]
    code = new_console_code(context(app).store, "table-1", clock)
    assert _login(new_phone, code, "192.168.4.21").status_code == 200
    r = new_phone.post("/table/undo", headers={"X-CSRF-Token": _csrf(new_phone), "Accept": "application/json"},
                       environ_base={"REMOTE_ADDR": "192.168.4.21"})
    assert r.status_code == 409                 # signed in: nothing left to undo
