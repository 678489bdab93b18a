"""One ``zatre serve`` per table: a second server on the same data folder and table
would keep its own copy of the match in memory and overwrite the first one's turns in
the database. The lock is an advisory ``flock`` on a small file in the data folder,
held for the server's life and let go by the system if the process dies (kill -9
included), so a crash never leaves a stale lock behind. It does not reach other
machines sharing one PostgreSQL database: there the table's name is a lease in the
database (``table_lease.py``)."""

from __future__ import annotations

import fcntl
import os
import re
from pathlib import Path


class TableBusy(Exception):
    """Another process serves this table from this data folder (one-line reason)."""


class TableLock:
    def __init__(self, data_dir: Path | str, table: str):
        safe = re.sub(r"[^\w.-]", "_", table)[:80] or "table"
        self.path = Path(data_dir) / f".serve-{safe}.lock"
        self.table = table
        self._fd: int | None = None

    def acquire(self) -> TableLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise TableBusy(f"table {self.table!r} is already served from {self.path.parent} "
                            f"(process {holder}): stop that server first, or give this one "
                            "another --table or --data-dir") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
