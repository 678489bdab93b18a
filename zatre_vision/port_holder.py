"""Which program holds a TCP port: for ``zatre serve`` when it cannot listen (the
journal then names the program) and for ``zatre doctor``'s port line.

Linux only, from ``/proc`` and no dependency: the listening sockets of
``/proc/net/tcp`` and ``tcp6`` give the socket's inode, and the process whose
``/proc/PID/fd`` holds ``socket:[inode]`` is the holder. Another user's processes can
be named only by root; then the answer says that the port is held, not by whom.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's "st" column


@dataclass(frozen=True)
class Holder:
    """A process holding the port (``pid`` None: held, but the holder cannot be seen)."""

    pid: int | None
    name: str = ""

    def describe(self) -> str:
        if self.pid is None:
            return ("another program (run `sudo ss -ltnp` to name it: only root sees "
                    "other users' processes)")
        return f"{self.name or 'a program'} (pid {self.pid})"


def listening_inodes(port: int, proc: Path = Path("/proc")) -> set[str]:
    """The inodes of the sockets listening on ``port`` (any address, IPv4 and IPv6)."""
    found: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) < 10 or parts[3] != _LISTEN:
                continue
            try:
                local_port = int(parts[1].rsplit(":", 1)[1], 16)
            except (IndexError, ValueError):
                continue
            if local_port == port:
                found.add(parts[9])
    return found


def port_holders(port: int, proc: Path = Path("/proc")) -> list[Holder]:
    """Who listens on ``port``: [] when nobody does; a Holder with pid None when the
    socket exists but no process this user may look into has it."""
    inodes = listening_inodes(port, proc)
    if not inodes:
        return []
    wanted = {f"socket:[{inode}]" for inode in inodes}
    holders: list[Holder] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:  # another user's process, or gone
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target in wanted:
                holders.append(Holder(int(entry.name), _name(entry)))
                break
    return holders or [Holder(None)]


def _name(entry: Path) -> str:
    try:
        cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        words = [w.decode(errors="replace") for w in cmdline if w]
    except OSError:
        words = []
    try:
        comm = (entry / "comm").read_text().strip()
    except OSError:
        comm = ""
    if words:
        shown = " ".join(words[:3])
        return shown if len(shown) <= 80 else shown[:79] + "…"
    return comm


def describe_holders(port: int, proc: Path = Path("/proc")) -> str:
    """'held by nginx: master process (pid 812)', or '' when nobody listens on it."""
    holders = port_holders(port, proc)
    if not holders:
        return ""
    return "held by " + ", ".join(h.describe() for h in holders)
