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


def delay_after(failures: int) -> float:
    """The wait after the ``failures``-th wrong PIN in a row from one address: none for
    the first two, then 2 s, 4 s, 8 s ... up to an hour. Trying the 10,000 PINs of four
    digits from one address takes over a year (half of them, some seven months)."""
    if failures <= FREE_FAILURES:
        return 0.0
    return min(MAX_DELAY_S, 2.0 ** min(failures - FREE_FAILURES, 40))


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
        super().__init__(f"too many wrong PINs from this address: try again in "
                         f"{say_wait(wait_s)}", retry_after=max(1, math.ceil(wait_s)))


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
        return self._attempt(client, lambda: bool(code) and hmac.compare_digest(
            text.encode(), code.replace("-", "").encode()))

    # -- wrong guesses -------------------------------------------------------------------
    def wait_for(self, client: str) -> float:
        """Seconds ``client`` must still wait before its next try (0: none)."""
        with self._lock:
            f = self._failures.get(client)
            return 0.0 if f is None else max(0.0, f.until - self.clock())

    def _digest(self, pin: str) -> bytes:
        return hmac.new(self._pepper, pin.encode(), hashlib.sha256).digest()

    def check(self, pin: str | None, client: str) -> bool:
        """True for the table's PIN. A wrong one makes ``client`` wait longer each time;
        a try while it waits raises :class:`PinLocked` (with the wait), one while its
        last try is still being checked :class:`PinBusy`."""
        if not pin:
            return self._attempt(client, lambda: False)
        if self.configured:
            return self._attempt(client, lambda: hmac.compare_digest(
                pin.encode(), self.configured.encode()))
        stored = self._hash()
        if not stored:
            return self._attempt(client, lambda: False)
        known = self._known
        if known is not None and known[0] == stored:  # checked before: no scrypt
            return self._attempt(client, lambda: hmac.compare_digest(
                self._digest(pin), known[1]))

        def slow() -> bool:
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
            try:
                with self._lock:
                    self.checks_made += 1
                ok = check_password_hash(stored, pin)
            finally:
                self._checks.release()
            if ok:
                with self._lock:
                    self._known = (stored, self._digest(pin))
            return ok

        return self._attempt(client, slow, slow=True)

    def _attempt(self, client: str, verify: Callable[[], bool], slow: bool = False) -> bool:
        """One try from ``client``. A quick ``verify`` (a comparison) runs under the
        guard's lock, so nothing can slip between the check and its count; a ``slow``
        one (scrypt) is counted and stored first, with no other check of the same
        address running, and the count is taken back only when it was right."""
        with self._lock:
            now = self.clock()
            self._forget(now)
            f = self._failures.get(client)
            if f is not None and now < f.until:
                raise PinLocked(f.until - now)
            if client in self._checking:
                raise PinBusy()
            if not slow:
                ok = verify()
                if ok:
                    known = self._failures.pop(client, None) is not None
                else:  # stored in order, under the lock
                    self._store(client, self._count(client, now))
            else:
                self._store(client, self._count(client, now))
                self._checking.add(client)
        if not slow:
            if ok and known:
                self.store.forget_pin_failures(self.table_name, [client])
            return ok
        try:
            ok = verify()
        finally:
            with self._lock:
                self._checking.discard(client)
        if ok:  # the right PIN clears the address's count
            with self._lock:
                self._failures.pop(client, None)
            self.store.forget_pin_failures(self.table_name, [client])
        return ok

    def _count(self, client: str, now: float) -> _Failures:
        f = self._failures.get(client) or _Failures(0, now, now)
        f.count += 1
        f.last = now
        f.until = now + delay_after(f.count)
        self._failures[client] = f
        return _Failures(f.count, f.last, f.until)

    def _store(self, client: str, f: _Failures) -> None:
        self.store.save_pin_failure(self.table_name, client, f.count, f.last, f.until)

    def _forget(self, now: float) -> None:
        old = [a for a, f in self._failures.items() if now - f.last > FORGET_S and now >= f.until]
        if len(self._failures) - len(old) > MAX_ADDRESSES:
            keep = sorted((a for a in self._failures if a not in old),
                          key=lambda a: self._failures[a].last)
            old += keep[:len(keep) - MAX_ADDRESSES]
        for a in old:
            del self._failures[a]
        if old:
            self.store.forget_pin_failures(self.table_name, old)

    @property
    def addresses_remembered(self) -> int:
        with self._lock:
            return len(self._failures)


def _guard() -> PinGuard:
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
            client = request.remote_addr or "?"
            if not _guard().check(header_pin, client):
                abort(401, wrong_pin_message(_guard().wait_for(client)))
            return view(*args, **kwargs)
        if not signed_in():
            abort(401, "this needs the table's PIN: sign in first")
        check_csrf()
        return view(*args, **kwargs)

    return wrapped
