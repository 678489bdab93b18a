"""The table's PIN, sign-in sessions and protection against cross-site requests.

Spectators read without signing in. Changing anything needs the PIN: either a signed
session cookie from ``POST /login`` plus the session's CSRF token (form field
``csrf_token`` or header ``X-CSRF-Token``) on every POST, or, for club tools, the
header ``X-Table-PIN`` (a custom header cannot be sent cross-site, so it needs no
token). Each wrong PIN from an address makes it wait longer before the next try
(``delay_after``); a try while it waits is a 429 that says how long. A try is counted
(and stored, so a restart frees no one) before it is checked, and one address has one
check at a time: guesses sent at the same moment are not all checked. The first PIN of
a new table needs the one-time setup code that ``zatre serve`` prints and ``zatre
doctor`` shows (so a spectator cannot claim the table). The session cookies are signed
with a key kept out of the database (``store/session_key.py``).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from flask import abort, current_app, request, session
from werkzeug.exceptions import TooManyRequests
from werkzeug.security import check_password_hash, generate_password_hash

#: wrong PINs from one address that cost no wait; after that each failure doubles it
FREE_FAILURES = 2
MAX_DELAY_S = 3600.0
#: an address whose last failure is this old (and no longer waits) is forgotten
FORGET_S = 24 * 3600.0
#: the most addresses remembered; beyond it the longest quiet ones are forgotten
MAX_ADDRESSES = 10_000
#: the one-time setup code: 8 letters and digits that cannot be mistaken for others
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
#: wrong PINs from every address together (devices that signed in before aside) that
#: cost no wait; after that the first wait, doubled with each further one (up to
#: MAX_DELAY_S): a guest who takes any number of addresses gets some 17 PINs checked
#: in the first hour and one an hour after it
FREE_FAILURES_ALL = 10
FIRST_WAIT_ALL_S = 30.0
#: the key under which the count over every address is kept (no address looks so)
ALL_ADDRESSES = "*"
#: the prefix of a signed-in device's own count (its id is in its signed session)
DEVICE_PREFIX = "device:"


def delay_after(failures: int) -> float:
    """The wait after the ``failures``-th wrong PIN in a row from one address: none for
    the first two, then 2 s, 4 s, 8 s ... up to an hour. Trying the 10,000 PINs of four
    digits from one address takes over a year (half of them, some seven months)."""
    if failures <= FREE_FAILURES:
        return 0.0
    return min(MAX_DELAY_S, 2.0 ** min(failures - FREE_FAILURES, 40))


def delay_after_all(failures: int) -> float:
    """The wait for everyone (but devices that signed in before) after the
    ``failures``-th wrong PIN in a row from all addresses together."""
    if failures <= FREE_FAILURES_ALL:
        return 0.0
    return min(MAX_DELAY_S, FIRST_WAIT_ALL_S * 2.0 ** min(failures - FREE_FAILURES_ALL - 1, 40))


def say_wait(seconds: float) -> str:
    """``3 min 20 s``: a wait as people read it (whole seconds, rounded up)."""
    s = max(1, math.ceil(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s % 60 else f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60} min" if s % 3600 // 60 else f"{s // 3600} h"


class PinLocked(TooManyRequests):
    """Too many wrong PINs from this address: wait ``wait_s`` seconds."""

    def __init__(self, wait_s: float):
        self.wait_s = wait_s
        super().__init__(self.sentence(wait_s), retry_after=max(1, math.ceil(wait_s)))

    @staticmethod
    def sentence(wait_s: float) -> str:
        return f"too many wrong PINs from this address: try again in {say_wait(wait_s)}"


class PinLockedForAll(PinLocked):
    """Too many wrong PINs from every address together: no new sign-in by PIN for
    ``wait_s`` seconds, but from a device that signed in before or with a code from
    the table's console (``zatre pin grant``)."""

    @staticmethod
    def sentence(wait_s: float) -> str:
        return (f"too many wrong PINs from the network: try again in {say_wait(wait_s)}, "
                "or sign in with a code from the table's console (zatre pin grant)")


@dataclass
class _Failures:
    count: int
    last: float
    until: float


class PinBusy(TooManyRequests):
    """A PIN check from this address is running (or too many from everywhere): this
    try was counted and not checked; try again in a moment."""

    def __init__(self, wait_s: float = 1.0):
        self.wait_s = wait_s
        super().__init__("a PIN check is already running: try again in a moment",
                         retry_after=max(1, math.ceil(wait_s)))


def new_device_id() -> str:
    """The id a browser keeps in its signed session once it signed in: its later PIN
    tries are counted as its own, apart from the flood of other addresses."""
    return secrets.token_urlsafe(12)


def new_setup_code() -> str:
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{code[:4]}-{code[4:]}"


#: scrypt checks of a stored PIN hash at once, from every address together (each
#: takes some 32 MB of memory and a core for a tenth of a second)
MAX_CHECKS = 2
#: how long a check waits for one of those before its try is refused (429), and how
#: many may wait at once (each holds a request thread; more are refused at once, so
#: a burst of guesses from many addresses leaves the operator his threads)
CHECK_WAIT_S = 5.0
MAX_WAITING = 4


class PinGuard:
    """Holds the table's PIN (from the config, or chosen on first setup with the
    one-time setup code, and stored hashed) and slows wrong guesses down per address.

    A try is counted (and stored) *before* it is checked, and one address has at most
    one check running: guesses sent at the same moment are each counted, and those
    that arrive while a check runs are refused, not checked. At most ``max_checks``
    slow (scrypt) checks run at once, whatever the address, so a burst of guesses
    costs bounded memory. Once the stored PIN was checked right, later tries are
    compared with it in memory (no scrypt). The counts live in the store
    (``pin_failures``), so a restart frees no one; ``clock`` is wall time."""

    def __init__(self, store, table_name: str, configured_pin: str | None,
                 clock: Callable[[], float] = time.time, *, max_checks: int = MAX_CHECKS,
                 check_wait_s: float = CHECK_WAIT_S, max_waiting: int = MAX_WAITING):
        self.store = store
        self.table_name = table_name
        self.key = f"pin_hash:{table_name}"
        self.code_key = f"setup_code:{table_name}"
        self.configured = configured_pin
        self.clock = clock
        self.check_wait_s = check_wait_s
        self.max_waiting = max_waiting
        self._waiting = 0
        self._failures: dict[str, _Failures] = {}
        #: the count over every address together (devices that signed in aside)
        self._all: _Failures | None = None
        self._checking: set[str] = set()
        self._checks = threading.BoundedSemaphore(max_checks)
        self._lock = threading.Lock()
        #: (hash, keyed digest of the PIN) once the stored hash was checked right
        self._known: tuple[str, bytes] | None = None
        self._pepper = secrets.token_bytes(32)
        #: slow checks made (for the tests and ``zatre bench load``)
        self.checks_made = 0
        #: the session signing key (store/session_key.py), which keys the fingerprint
        self.session_key = b""
        #: called after the PIN changed (the app rotates its session key there)
        self.on_pin_changed: Callable[[], None] = lambda: None
        self._load()

    def _load(self) -> None:
        """The stored counts; those quiet for a day (and no longer waiting) are deleted."""
        now = self.clock()
        stale = []
        for row in self.store.pin_failures(self.table_name):
            f = _Failures(int(row["failures"]), float(row["last_at"]), float(row["until_at"]))
            if now - f.last > FORGET_S and now >= f.until:
                stale.append(str(row["address"]))
            elif row["address"] == ALL_ADDRESSES:
                self._all = f
            else:
                self._failures[str(row["address"])] = f
        if stale:
            self.store.forget_pin_failures(self.table_name, stale)

    def _hash(self) -> str | None:
        return None if self.configured else self.store.get_setting(self.key)

    @property
    def is_set(self) -> bool:
        return bool(self.configured) or self._hash() is not None

    def set_pin(self, pin: str) -> None:
        if self.configured:
            raise ValueError("the PIN comes from the settings file")
        self.store.set_setting(self.key, generate_password_hash(pin))
        self.store.delete_setting(self.code_key)
        with self._lock:
            self._known = None
        self.on_pin_changed()

    def pin_basis(self) -> str:
        """What changes with the PIN: the configured PIN or the stored hash."""
        return self.configured or self._hash() or ""

    def fingerprint(self) -> str:
        """Changes whenever the PIN changes: sessions signed in with an old PIN end.
        Keyed with the session key, so that a cookie (readable, only signed) tells
        nothing about the PIN."""
        return hmac.new(self.session_key or b"zatre-pin",
                        ("zatre-pin:" + self.pin_basis()).encode(),
                        hashlib.sha256).hexdigest()[:16]

    # -- the first PIN -------------------------------------------------------------------
    def setup_code(self) -> str | None:
        """The one-time code the first PIN needs (made and stored when first asked
        for; None once a PIN is set). The server prints it at start; ``zatre doctor``
        shows it."""
        if self.is_set:
            return None
        code = self.store.get_setting(self.code_key)
        if code is None:
            code = new_setup_code()
            self.store.set_setting(self.code_key, code)
        return code

    def check_setup_code(self, given, client: str) -> bool:
        code = self.setup_code()
        text = "".join(str(given or "").split()).upper().replace("-", "")
        return self._attempt(client, True, lambda: bool(code) and hmac.compare_digest(
            text.encode(), code.replace("-", "").encode()))

    # -- wrong guesses -------------------------------------------------------------------
    def wait_for(self, client: str, device: str | None = None) -> float:
        """Seconds ``client`` (or the signed-in ``device``) must still wait before its
        next try (0: none): its own wait, or the one for every address."""
        with self._lock:
            now = self.clock()
            f = self._failures.get(self._key(client, device))
            own = 0.0 if f is None else max(0.0, f.until - now)
            every = 0.0 if device or self._all is None else max(0.0, self._all.until - now)
            return max(own, every)

    @staticmethod
    def _key(client: str, device: str | None) -> str:
        """Whose count a try goes to: a device that signed in before has its own (so a
        flood from other addresses cannot lock it out), anyone else their address's."""
        return DEVICE_PREFIX + device if device else client

    def _digest(self, pin: str) -> bytes:
        return hmac.new(self._pepper, pin.encode(), hashlib.sha256).digest()

    def check(self, pin: str | None, client: str, device: str | None = None) -> bool:
        """True for the table's PIN. A wrong one makes ``client`` wait longer each time
        (and every address, after ``FREE_FAILURES_ALL`` from all of them); a try while
        it waits raises :class:`PinLocked` (with the wait), one while its last try is
        still being checked, or while every check slot is taken, :class:`PinBusy`,
        which counts as no try. ``device``: the id a signed-in browser got at its
        sign-in (``new_device_id``); its tries have their own count and no share in
        the one for every address."""
        key = self._key(client, device)
        shared = device is None
        if not pin:
            return self._attempt(key, shared, lambda: False)
        if self.configured:
            return self._attempt(key, shared, lambda: hmac.compare_digest(
                pin.encode(), self.configured.encode()))
        stored = self._hash()
        if not stored:
            return self._attempt(key, shared, lambda: False)
        known = self._known
        if known is not None and known[0] == stored:  # checked before: no scrypt
            return self._attempt(key, shared, lambda: hmac.compare_digest(
                self._digest(pin), known[1]))

        def slow() -> bool:
            ok = check_password_hash(stored, pin)
            if ok:
                with self._lock:
                    self._known = (stored, self._digest(pin))
            return ok

        return self._attempt(key, shared, slow, slow=True)

    def _refuse_if_waiting(self, key: str, shared: bool, now: float) -> None:
        f = self._failures.get(key)
        if f is not None and now < f.until:
            raise PinLocked(f.until - now)
        if shared and self._all is not None and now < self._all.until:
            raise PinLockedForAll(self._all.until - now)

    def _attempt(self, key: str, shared: bool, verify: Callable[[], bool],
                 slow: bool = False) -> bool:
        """One try counted under ``key`` (and, when ``shared``, in the count for every
        address). A quick ``verify`` (a comparison) runs under the guard's lock, so
        nothing can slip between the check and its count; a ``slow`` one (scrypt) first
        takes a check slot (none free in time: :class:`PinBusy`, not counted), then is
        counted and stored, with no other check under the same key running, and the
        count is taken back only when it was right."""
        with self._lock:
            now = self.clock()
            self._forget(now)
            self._refuse_if_waiting(key, shared, now)
            if key in self._checking:
                raise PinBusy()
            if not slow:
                ok = verify()
                if ok:
                    known = self._failures.pop(key, None) is not None
                else:  # stored in order, under the lock
                    self._count(key, shared, now)
                    known = False
            else:
                self._checking.add(key)
        if not slow:
            if ok and known:
                self.store.forget_pin_failures(self.table_name, [key])
            return ok
        try:
            self._take_slot()
            try:
                with self._lock:  # the wait may have begun while this one queued
                    now = self.clock()
                    self._refuse_if_waiting(key, shared, now)
                    self._count(key, shared, now)
                    self.checks_made += 1
                ok = verify()
            finally:
                self._checks.release()
        finally:
            with self._lock:
                self._checking.discard(key)
        if ok:  # the right PIN clears the count of its address or device
            with self._lock:
                self._failures.pop(key, None)
            self.store.forget_pin_failures(self.table_name, [key])
        return ok

    def _take_slot(self) -> None:
        """One of the ``max_checks`` slow-check slots, waiting at most
        ``check_wait_s`` with at most ``max_waiting`` waiting; else :class:`PinBusy`."""
        with self._lock:
            if self._waiting >= self.max_waiting:
                raise PinBusy()
            self._waiting += 1
        try:
            got = self._checks.acquire(timeout=self.check_wait_s)
        finally:
            with self._lock:
                self._waiting -= 1
        if not got:
            raise PinBusy()

    def _count(self, key: str, shared: bool, now: float) -> None:
        """One more wrong try under ``key`` (and for every address when ``shared``),
        stored; called under the lock, before a slow check or after a quick one."""
        f = self._failures.get(key) or _Failures(0, now, now)
        f.count += 1
        f.last = now
        f.until = now + delay_after(f.count)
        self._failures[key] = f
        self.store.save_pin_failure(self.table_name, key, f.count, f.last, f.until)
        if shared:
            a = self._all or _Failures(0, now, now)
            a.count += 1
            a.last = now
            a.until = now + delay_after_all(a.count)
            self._all = a
            self.store.save_pin_failure(self.table_name, ALL_ADDRESSES, a.count, a.last,
                                        a.until)

    def _forget(self, now: float) -> None:
        old = [a for a, f in self._failures.items() if now - f.last > FORGET_S and now >= f.until]
        if len(self._failures) - len(old) > MAX_ADDRESSES:
            keep = sorted((a for a in self._failures if a not in old),
                          key=lambda a: self._failures[a].last)
            old += keep[:len(keep) - MAX_ADDRESSES]
        for a in old:
            del self._failures[a]
        if self._all is not None and now - self._all.last > FORGET_S and now >= self._all.until:
            self._all = None
            old.append(ALL_ADDRESSES)
        if old:
            self.store.forget_pin_failures(self.table_name, old)

    @property
    def addresses_remembered(self) -> int:
        with self._lock:
            return len(self._failures)

    @property
    def failures_from_everyone(self) -> int:
        """Wrong PINs counted from every address together (devices aside)."""
        with self._lock:
            return 0 if self._all is None else self._all.count


def _guard() -> PinGuard:
    # the app's ServerContext (context.py, whose accessor this module cannot import:
    # the context imports PinGuard from here)
    return current_app.extensions["zatre"].pins


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def signed_in() -> bool:
    return session.get("auth") == _guard().fingerprint() and _guard().is_set


def check_csrf() -> None:
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    token = session.get("csrf") or ""
    if not token or not sent or not hmac.compare_digest(sent.encode(), token.encode()):
        abort(400, "the form's security token is missing or out of date: reload the page")


def wrong_pin_message(wait_s: float) -> str:
    return "wrong table PIN" + (f": try again in {say_wait(wait_s)}" if wait_s > 0 else "")


def require_pin(view):
    """POST routes that change a match: the table's PIN, by session (+ CSRF token) or
    by the X-Table-PIN header."""

    @wraps(view)
    def wrapped(*args, **kwargs):
        header_pin = request.headers.get("X-Table-PIN")
        if header_pin is not None:
            client, device = request.remote_addr or "?", session.get("device")
            if not _guard().check(header_pin, client, device):
                abort(401, wrong_pin_message(_guard().wait_for(client, device)))
            return view(*args, **kwargs)
        if not signed_in():
            abort(401, "this needs the table's PIN: sign in first")
        check_csrf()
        return view(*args, **kwargs)

    return wrapped
