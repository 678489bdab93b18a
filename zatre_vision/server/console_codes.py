"""One-time sign-in codes from the table's console (``zatre pin grant``).

Whoever sits at the table's terminal can always sign a browser in, whatever a flood of
wrong PINs from the network did to the PIN's limits: the command stores a new code's
SHA-256 and when it expires (setting ``console_grant:<table>``, one code at a time) and
prints the code; typed into the sign-in form in place of the PIN, it signs that browser
in once. The code is 16 letters and digits (80 bits) and lives ``CODE_TTL_S``: it is not
guessed, so trying one costs no PIN try and meets no limit. A backup leaves the setting
out (``store/backup.py``)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable

from .security import CODE_ALPHABET

#: how long a printed code signs in
CODE_TTL_S = 600.0
CODE_LENGTH = 16


def grant_key(table: str) -> str:
    return f"console_grant:{table}"


def _normal(text: str) -> str:
    return "".join(str(text or "").split()).upper().replace("-", "")


def _digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def new_console_code(store, table: str, clock: Callable[[], float] = time.time) -> str:
    """A new code for ``table`` (the one before it no longer signs in), as printed:
    four groups of four, ``ABCD-EFGH-JKLM-NPQR``."""
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    store.set_setting(grant_key(table), f"{_digest(code)} {clock() + CODE_TTL_S:.0f}")
    return "-".join(code[i:i + 4] for i in range(0, CODE_LENGTH, 4))


def use_console_code(store, table: str, given, clock: Callable[[], float] = time.time) -> bool:
    """True (once) when ``given`` is the table's unexpired console code; the code is
    then used up."""
    text = _normal(given)
    if len(text) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in text):
        return False
    stored = store.get_setting(grant_key(table))
    if not stored:
        return False
    digest, _, expires = stored.partition(" ")
    try:
        fresh = clock() < float(expires)
    except ValueError:
        fresh = False
    if not fresh or not hmac.compare_digest(digest.encode(), _digest(text).encode()):
        return False
    store.delete_setting(grant_key(table))
    return True
