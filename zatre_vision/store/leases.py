"""Which server holds each table's name (migration 7): a lease in the shared database.

A server takes its table's lease when it starts and renews it while it runs; a second
server with the same name is refused (``TableNameTaken``, one line naming the holder's
address) as long as the lease is current. A lease nobody renews lapses after its time,
so a table that died (power cut, kill -9) frees its name by itself; the caller may also
take over at once a lease whose holder it knows to be gone (``holder_gone``). Times
come from the database's clock, so tables whose clocks disagree still agree on it."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from .base import Store, StoreError


class TableNameTaken(StoreError):
    """Another live server holds this table's name (one-line message)."""


@dataclass(frozen=True)
class Holder:
    """Who asks for a lease: where its dashboard answers, the boot of the machine it
    runs on (``/proc/sys/kernel/random/boot_id``) and its process id."""

    address: str
    boot: str
    pid: int


class TableLeases:
    """Reads and writes the ``table_leases`` table through a :class:`Store`."""

    def __init__(self, store: Store):
        self.store = store

    def holder(self, name: str) -> dict | None:
        """The lease on ``name``: ``token``, ``address``, ``boot``, ``pid`` and
        ``left_s`` (seconds until it lapses; negative once lapsed), or None."""
        return self.store._one("SELECT name, token, address, boot, pid, "
                               "expires_at - {now} AS left_s FROM table_leases WHERE name = ?",
                               (name,))

    def acquire(self, name: str, holder: Holder, ttl_s: float,
                holder_gone: Callable[[dict], bool] = lambda row: False) -> str:
        """Take the lease on ``name`` for ``ttl_s`` seconds; its token. Refused with
        ``TableNameTaken`` while another holder's lease is current and that holder is
        not ``holder_gone``. Two servers asking at once: one gets it."""
        token = uuid.uuid4().hex
        for _ in range(3):
            row = self.holder(name)
            if row is not None and float(row["left_s"]) >= 0 and not holder_gone(row):
                raise TableNameTaken(_taken(name, row))
            with self.store.transaction():
                got = self.store._rows(
                    "INSERT INTO table_leases (name, token, address, boot, pid, started, "
                    "expires_at) VALUES (?, ?, ?, ?, ?, {now}, {now} + ?) "
                    "ON CONFLICT (name) DO UPDATE SET token = excluded.token, "
                    "address = excluded.address, boot = excluded.boot, pid = excluded.pid, "
                    "started = excluded.started, expires_at = excluded.expires_at "
                    "WHERE table_leases.token = ? RETURNING token",
                    (name, token, holder.address, holder.boot, holder.pid, float(ttl_s),
                     row["token"] if row else ""))
            if got:
                return token
        row = self.holder(name)
        raise TableNameTaken(_taken(name, row) if row else f"table {name!r} is being taken "
                             "by another server at this moment")

    def renew(self, name: str, token: str, ttl_s: float) -> bool:
        """Extend the lease by ``ttl_s`` from now; False when it is no longer ours."""
        with self.store.transaction():
            cur = self.store._exec("UPDATE table_leases SET expires_at = {now} + ? "
                                   "WHERE name = ? AND token = ?", (float(ttl_s), name, token))
            return cur.rowcount == 1

    def release(self, name: str, token: str) -> None:
        with self.store.transaction():
            self.store._exec("DELETE FROM table_leases WHERE name = ? AND token = ?",
                             (name, token))

    def live(self) -> list[dict]:
        """The tables served now: ``name`` and ``address``, by name."""
        return self.store._rows("SELECT name, address FROM table_leases "
                                "WHERE expires_at >= {now} ORDER BY name")


def _taken(name: str, row: dict) -> str:
    left = max(1, round(float(row["left_s"])))
    return (f"table {name!r} is already served by {row['address']} (its lease runs "
            f"{left} s more unless that server renews it): stop that server, or give "
            "this one another --table")
