"""PIN guesses that cannot race: a try is counted before it is checked, one address
has one check at a time, slow (scrypt) checks are bounded in all, and the count
survives a restart."""

import threading

import pytest

from zatre_vision.server import security
from zatre_vision.server.context import context
from zatre_vision.server.security import PinBusy, PinGuard, PinLocked

from .conftest import PIN

GUESSES = 64
#: what one address may have checked before its first wait: the free failures and one
ALLOWED = security.FREE_FAILURES + 1


class Clock:
    def __init__(self):
        self.now = 1.8e9

    def __call__(self):
        return self.now


class Peak:
    """Wraps the scrypt check: how many ran at once, at most, and in all."""

    def __init__(self, real):
        self.real, self.now, self.peak, self.calls = real, 0, 0, 0
        self.lock = threading.Lock()

    def __call__(self, stored, pin):
        with self.lock:
            self.now += 1
            self.calls += 1
            self.peak = max(self.peak, self.now)
        try:
            return self.real(stored, pin)
        finally:
            with self.lock:
                self.now -= 1


def _burst(fn, n=GUESSES):
    """``fn(i)`` from ``n`` threads released at the same moment; each outcome."""
    gate = threading.Barrier(n)
    out = [None] * n

    def one(i):
        gate.wait()
        try:
            out[i] = fn(i)
        except (PinLocked, PinBusy) as exc:
            out[i] = type(exc).__name__
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out


@pytest.fixture
def hashed(store, monkeypatch):
    """A guard over a stored (scrypt) PIN hash, its checks counted."""
    peak = Peak(security.check_password_hash)
    monkeypatch.setattr(security, "check_password_hash", peak)
    guard = PinGuard(store, "table-1", None, clock=Clock())
    guard.set_pin("97531")
    return guard, peak


def test_64_parallel_guesses_from_one_address_check_only_the_allowed_number(hashed):
    guard, peak = hashed
    out = _burst(lambda i: guard.check(f"{i:04d}", "10.0.0.66"))
    checked = [o for o in out if o is False]
    assert 1 <= len(checked) <= ALLOWED and peak.calls == len(checked) == guard.checks_made
    assert all(o in ("PinLocked", "PinBusy") for o in out if o is not False)
    assert peak.peak == 1                  # one check per address at a time
    assert guard.wait_for("10.0.0.66") >= 0   # and it is counted


def test_64_parallel_guesses_from_64_addresses_run_bounded_scrypt_checks(hashed):
    guard, peak = hashed
    out = _burst(lambda i: guard.check(f"{i:04d}", f"10.0.1.{i}"))
    # every address gets its check, but never more than MAX_CHECKS at once: the memory
    # of a burst is that of MAX_CHECKS scrypt runs (some 32 MB each), not 64
    assert out.count(False) + out.count("PinBusy") == GUESSES
    assert peak.peak <= security.MAX_CHECKS and peak.calls == out.count(False) >= 1


def test_the_right_pin_once_checked_costs_no_more_scrypt(hashed):
    guard, peak = hashed
    assert guard.check("97531", "10.0.0.1") is True and peak.calls == 1
    out = _burst(lambda i: guard.check("97531", "10.0.0.2"), n=8)  # a club tool's burst
    assert out == [True] * 8 and peak.calls == 1
    assert guard.check("1234", "10.0.0.3") is False and peak.calls == 1
    guard.set_pin("86420")                # a new PIN is checked the slow way again
    assert guard.check("97531", "10.0.0.1") is False and peak.calls == 2


def test_parallel_guesses_over_http_are_counted_before_they_are_checked(app, playing):
    """Through the routes: X-Table-PIN and POST /login, 64 at once each."""
    def header_guess(i):
        r = app.test_client().post("/table/turn", json={"placed": {}},
                                   headers={"X-Table-PIN": f"{i:04d}"})
        return r.status_code

    codes = _burst(header_guess)
    assert codes.count(401) <= ALLOWED and codes.count(429) == GUESSES - codes.count(401)

    context(app).pins._failures.clear()
    context(app).store.forget_pin_failures("table-1", ["127.0.0.1"])

    def login_guess(i):
        c = app.test_client()
        with c.session_transaction() as sess:
            sess["csrf"] = "t"
        r = c.post("/login", json={"pin": f"{i:04d}"},
                   headers={"X-CSRF-Token": "t", "Accept": "application/json"})
        return r.status_code

    codes = _burst(login_guess)
    assert codes.count(401) <= ALLOWED and codes.count(429) == GUESSES - codes.count(401)
    assert playing.state()["turns_played"] == 1     # no guess changed the match


def test_the_lockout_survives_a_restart(databases):
    clock = Clock()
    store = databases.open()
    guard = PinGuard(store, "table-1", PIN, clock=clock)
    for _ in range(6):
        assert guard.check("0000", "10.0.0.9") is False
        clock.now += guard.wait_for("10.0.0.9")
    assert guard.check("0000", "10.0.0.9") is False
    wait = guard.wait_for("10.0.0.9")
    assert wait >= 32
    store.close()

    store = databases.open()                    # the server started again
    try:
        again = PinGuard(store, "table-1", PIN, clock=clock)
        assert again.wait_for("10.0.0.9") == wait
        with pytest.raises(PinLocked):
            again.check(PIN, "10.0.0.9")        # even the right PIN waits
        assert PinGuard(store, "table-2", PIN, clock=clock).wait_for("10.0.0.9") == 0
        clock.now += wait
        assert again.check("0000", "10.0.0.9") is False
        assert again.wait_for("10.0.0.9") == 2 * wait     # the count went on
        clock.now += 2 * wait
        assert again.check("0000", "10.0.0.8") is False
        assert again.check(PIN, "10.0.0.9") is True       # the right PIN clears it
        assert PinGuard(store, "table-1", PIN, clock=clock).wait_for("10.0.0.9") == 0
        clock.now += security.FORGET_S + 1                # a day later: forgotten, stored too
        PinGuard(store, "table-1", PIN, clock=clock)
        assert store.pin_failures("table-1") == []
    finally:
        store.close()
