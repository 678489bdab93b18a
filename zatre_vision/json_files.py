"""Reading a user's JSON file (a game record, a truth file): a regular file or standard
input, bounded in size, and every way it can fail as a one-line InputError."""

from __future__ import annotations

import json
import sys

from .errors import InputError

#: the largest game record read (a long game's record is well under 1 MB)
MAX_RECORD_BYTES = 16 * 1024 * 1024


def read_json_file(path: str) -> object:
    """Decode a JSON file ('-' for standard input); InputError on any problem. Only a
    regular file is read (a FIFO or a device is refused without blocking), and at most
    ``MAX_RECORD_BYTES``."""
    from .bounded_io import FileRefused, read_regular_file, read_stream

    try:
        raw = (read_stream(sys.stdin.buffer, MAX_RECORD_BYTES) if path == "-"
               else read_regular_file(path, MAX_RECORD_BYTES))
        text = raw.decode("utf-8")
    except FileRefused as exc:
        raise InputError(f"{path}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
    return decode_json(text, path)


def decode_json(text: str, where: str) -> object:
    """``json.loads`` with every way it can fail (bad syntax, a number of thousands of
    digits, nesting too deep for the parser) as an InputError naming ``where``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except ValueError as exc:  # a number too long to convert
        raise InputError(f"{where}: not usable JSON ({exc})") from None
    except RecursionError:
        raise InputError(f"{where}: not usable JSON (nested too deeply)") from None
