"""Reading a user's file with bounds: a regular file only (a FIFO, a device such as a
link to /dev/zero, a socket or a folder is refused without blocking: the file is opened
non-blocking and checked with fstat), and at most ``limit`` bytes."""

from __future__ import annotations

import os
import stat


class FileRefused(ValueError):
    """A file that is not read (one-line reason, without the path)."""


def _why(exc: OSError) -> str:
    return f"cannot be read ({exc.strerror or exc.__class__.__name__})"


def read_regular_file(path: str | os.PathLike, limit: int, error=FileRefused) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``error`` otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise error("no such file") from None
    except IsADirectoryError:
        raise error("is a folder, not a file") from None
    except OSError as exc:
        raise error(_why(exc)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise error("is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise error("is not a regular file (a pipe, device or socket)")
        if info.st_size > limit:
            raise error(f"is {info.st_size} bytes, over the {limit} byte limit")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:  # it grew while being read
            raise error(f"is over the {limit} byte limit")
        return b"".join(chunks)
    except OSError as exc:
        raise error(_why(exc)) from None
    finally:
        os.close(fd)


def read_stream(stream, limit: int, error=FileRefused) -> bytes:
    """At most ``limit`` bytes of a binary stream (standard input)."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise error(f"is over the {limit} byte limit")
    return data
