"""The table's PIN, sign-in sessions and protection against cross-site requests.

Spectators read without signing in. Changing anything needs the PIN: either a signed
session cookie from ``POST /login`` plus the session's CSRF token (form field
``csrf_token`` or header ``X-CSRF-Token``) on every POST, or, for club tools, the
header ``X-Table-PIN`` (a custom header cannot be sent cross-site, so it needs no
token). Wrong PINs are rate-limited per client address.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import defaultdict, deque
from functools import wraps

from flask import abort, current_app, request, session
from werkzeug.security import check_password_hash, generate_password_hash

MAX_FAILURES = 5
FAILURE_WINDOW_S = 60.0


class PinGuard:
    """Holds the table's PIN (from the config, or chosen on first setup and stored
    hashed) and counts failed attempts."""

    def __init__(self, store, table_name: str, configured_pin: str | None):
        self.store = store
        self.key = f"pin_hash:{table_name}"
        self.configured = configured_pin
        self._failures: dict[str, deque] = defaultdict(deque)
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

    def fingerprint(self) -> str:
        """Changes whenever the PIN changes: sessions signed in with an old PIN end."""
        basis = self.configured or self._hash() or ""
        return hashlib.sha256(("zatre-pin:" + basis).encode()).hexdigest()[:16]

    def check(self, pin: str | None, client: str) -> bool:
        with self._lock:
            q = self._failures[client]
            now = time.monotonic()
            while q and now - q[0] > FAILURE_WINDOW_S:
                q.popleft()
            if len(q) >= MAX_FAILURES:
                abort(429, "too many wrong PINs: wait a minute")
        ok = False
        if pin and self.configured:
            ok = hmac.compare_digest(pin.encode(), self.configured.encode())
        elif pin and (h := self._hash()):
            ok = check_password_hash(h, pin)
        if not ok:
            with self._lock:
                self._failures[client].append(time.monotonic())
        return ok


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


def require_pin(view):
    """POST routes that change a match: the table's PIN, by session (+ CSRF token) or
    by the X-Table-PIN header."""

    @wraps(view)
    def wrapped(*args, **kwargs):
        header_pin = request.headers.get("X-Table-PIN")
        if header_pin is not None:
            if not _guard().check(header_pin, request.remote_addr or "?"):
                abort(401, "wrong table PIN")
            return view(*args, **kwargs)
        if not signed_in():
            abort(401, "this needs the table's PIN: sign in first")
        check_csrf()
        return view(*args, **kwargs)

    return wrapped
