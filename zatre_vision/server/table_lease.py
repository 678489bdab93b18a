"""The table's name held in the club database while ``zatre serve`` runs.

``TableLock`` keeps a second server off the same data folder; tables on several
machines sharing one PostgreSQL database reach each other only through it, so the
name is held there as a lease (``store/leases.py``): taken at start, renewed every
``RENEW_S`` by a thread, given back on a clean stop. A second server with a name in
use is refused in one line naming the holder's address. A lease nobody renews lapses
after ``LEASE_S``; a holder on this very boot of this machine whose process is gone
(a systemd restart after a crash) is taken over at once."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from ..store import StoreError
from ..store.leases import Holder, TableLeases

log = logging.getLogger(__name__)

#: how long a lease lasts without being renewed (seconds), and how often it is renewed
LEASE_S = 30.0
RENEW_S = 10.0
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
#: where no boot id can be read: one for this process only (never "gone" to another)
_PROCESS_ONLY = "process-" + os.urandom(8).hex()


def this_boot(path: Path = BOOT_ID) -> str:
    """This boot of this machine: the kernel's boot id (new on every boot, different on
    two cards cloned from one image), else a random one for this process only."""
    try:
        return path.read_text().strip() or _PROCESS_ONLY
    except OSError:
        return _PROCESS_ONLY


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def gone_on_this_boot(boot: str, alive: Callable[[int], bool] = process_alive
                      ) -> Callable[[dict], bool]:
    """Whether a lease's holder is known to be gone: it ran on this boot and its process
    no longer exists."""
    return lambda row: row["boot"] == boot and int(row["pid"]) != os.getpid() \
        and not alive(int(row["pid"]))


class TableLease:
    """Holds ``name``'s lease from ``acquire`` to ``release``; ``on_lost`` is called
    (once, from the renewing thread) if another server took it meanwhile."""

    def __init__(self, leases: TableLeases, name: str, address: str, *,
                 on_lost: Callable[[str], None], ttl_s: float = LEASE_S,
                 renew_s: float = RENEW_S, boot: str | None = None):
        self.leases = leases
        self.name = name
        self.holder = Holder(address, boot or this_boot(), os.getpid())
        self.on_lost = on_lost
        self.ttl_s = ttl_s
        self.renew_s = renew_s
        self.token: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> TableLease:
        """Take the lease (``TableNameTaken`` when another live server holds it)."""
        self.token = self.leases.acquire(self.name, self.holder, self.ttl_s,
                                         gone_on_this_boot(self.holder.boot))
        self._thread = threading.Thread(target=self._renew, name="table-lease", daemon=True)
        self._thread.start()
        return self

    def _renew(self) -> None:
        while not self._stop.wait(self.renew_s):
            try:
                ours = self.leases.renew(self.name, self.token, self.ttl_s)
            except StoreError as exc:  # the database is away: try again; it lapses later
                log.warning("table %r: cannot renew its lease (%s)", self.name, exc)
                continue
            if not ours and not self._stop.is_set():
                row = self.leases.holder(self.name)
                by = row["address"] if row else "nobody"
                self.on_lost(f"table {self.name!r}: its lease was taken by {by} while this "
                             "server could not renew it; stopping")
                return

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self.token is not None:
            try:
                self.leases.release(self.name, self.token)
            except StoreError as exc:  # it lapses by itself
                log.warning("table %r: cannot give back its lease (%s)", self.name, exc)
            self.token = None
