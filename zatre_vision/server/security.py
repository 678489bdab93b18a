"""The table's PIN, sign-in sessions and protection against cross-site requests.

Spectators read without signing in. Changing anything needs the PIN: either a signed
session cookie from ``POST /login`` plus the session's CSRF token (form field
``csrf_token`` or header ``X-CSRF-Token``) on every POST, or, for club tools, the
header ``X-Table-PIN`` (a custom header cannot be sent cross-site, so it needs no
token). Each wrong PIN from an address makes it wait longer before the next try
(``delay_after``); a try while it waits is a 429 that says how long. The first PIN of
a new table needs the one-time setup code that ``zatre serve`` prints and ``zatre
doctor`` shows (so a spectator cannot claim the table).
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


def new_setup_code() -> str:
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{code[:4]}-{code[4:]}"


class PinGuard:
    """Holds the table's PIN (from the config, or chosen on first setup with the
    one-time setup code, and stored hashed) and slows wrong guesses down per address."""

    def __init__(self, store, table_name: str, configured_pin: str | None,
                 clock: Callable[[], float] = time.monotonic):
        self.store = store
        self.key = f"pin_hash:{table_name}"
        self.code_key = f"setup_code:{table_name}"
        self.configured = configured_pin
        self.clock = clock
        self._failures: dict[str, _Failures] = {}
        self._lock = threading.Lock()

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

    def fingerprint(self) -> str:
        """Changes whenever the PIN changes: sessions signed in with an old PIN end."""
        basis = self.configured or self._hash() or ""
        return hashlib.sha256(("zatre-pin:" + basis).encode()).hexdigest()[:16]

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

    def check(self, pin: str | None, client: str) -> bool:
        """True for the table's PIN. A wrong one makes ``client`` wait longer each time;
        a try while it waits raises :class:`PinLocked` (with the wait)."""

        def right() -> bool:
            if pin and self.configured:
                return hmac.compare_digest(pin.encode(), self.configured.encode())
            if pin and (h := self._hash()):
                return check_password_hash(h, pin)
            return False

        return self._attempt(client, right)

    def _attempt(self, client: str, verify: Callable[[], bool]) -> bool:
        with self._lock:
            now = self.clock()
            self._forget(now)
            f = self._failures.get(client)
            if f is not None and now < f.until:
                raise PinLocked(f.until - now)
        ok = verify()
        with self._lock:
            now = self.clock()
            if ok:
                self._failures.pop(client, None)
                return True
            f = self._failures.get(client) or _Failures(0, now, now)
            f.count += 1
            f.last = now
            f.until = now + delay_after(f.count)
            self._failures[client] = f
        return False

    def _forget(self, now: float) -> None:
        old = [a for a, f in self._failures.items() if now - f.last > FORGET_S and now >= f.until]
        for a in old:
            del self._failures[a]
        if len(self._failures) > MAX_ADDRESSES:
            by_age = sorted(self._failures, key=lambda a: self._failures[a].last)
            for a in by_age[:len(self._failures) - MAX_ADDRESSES]:
                del self._failures[a]

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
