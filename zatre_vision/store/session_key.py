"""The key that signs the dashboard's session cookies, kept out of the database.

Whoever holds this key can sign an operator's cookie, so it is not in ``zatre.db`` (nor
in a backup of it): it lives in ``<data_dir>/.session-<table>.key``, a file only the
service's user may read (mode 0600), made on first start. It changes (and every
signed-in browser signs in again) when:

- the table's PIN changes (:meth:`SessionKey.rotate`; at start, when the PIN is not the
  one the key was made for, as after a new ``server.pin``), and
- ``zatre restore`` puts a backup in place (:func:`forget_keys` deletes the files; the
  next start makes new ones).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import secrets
from pathlib import Path

log = logging.getLogger("zatre.session")

PREFIX = ".session-"
SUFFIX = ".key"


def key_path(data_dir: Path | str, table: str) -> Path:
    safe = re.sub(r"[^\w.-]", "_", table)[:80] or "table"
    return Path(data_dir) / f"{PREFIX}{safe}{SUFFIX}"


def _tag(key: bytes, pin_basis: str) -> str:
    """Which PIN the key was made for, without saying anything about the PIN."""
    return hmac.new(key, b"pin:" + pin_basis.encode(), hashlib.sha256).hexdigest()


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask, and if the file was there already
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(part, path)


class SessionKey:
    """The signing key of one table's sessions, in its file."""

    def __init__(self, path: Path, key: bytes):
        self.path = path
        self.key = key

    @classmethod
    def load(cls, data_dir: Path | str, table: str, pin_basis: str) -> SessionKey:
        """The table's key from its file; a new one when there is none, it cannot be
        read, or it was made for another PIN (``pin_basis``: the configured PIN or the
        stored hash, "" before the first)."""
        path = key_path(data_dir, table)
        try:
            data = json.loads(path.read_text())
            key = bytes.fromhex(data["key"])
            if len(key) < 32:
                raise ValueError("too short")
            if not hmac.compare_digest(str(data.get("pin", "")), _tag(key, pin_basis)):
                log.info("the PIN changed: new session key (everyone signs in again)")
                raise ValueError("another PIN")
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
            return cls(path, key)
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        made = cls(path, b"")
        made.rotate(pin_basis)
        return made

    def rotate(self, pin_basis: str) -> bytes:
        """A new key, written before it is used: every cookie signed so far is void."""
        key = secrets.token_bytes(32)
        _write_private(self.path, json.dumps({"key": key.hex(), "pin": _tag(key, pin_basis)}))
        self.key = key
        return key


def forget_keys(data_dir: Path | str) -> list[Path]:
    """Delete every table's session key in ``data_dir`` (after a restore); the next
    start makes new ones. The deleted files."""
    gone = []
    for path in Path(data_dir).glob(f"{PREFIX}*{SUFFIX}"):
        try:
            path.unlink()
            gone.append(path)
        except FileNotFoundError:
            pass
    return gone
