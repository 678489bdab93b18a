"""One-line errors for the command line: bad input exits 2, never a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

#: Exit status for bad input (contracts.md).
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 1


#: the longest error line printed (as the HTTP API's): an echoed input is cut
MAX_ERROR_CHARS = 300


class InputError(Exception):
    """Bad input from the user: a one-line reason, exit status 2."""


def _one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= MAX_ERROR_CHARS else line[:MAX_ERROR_CHARS - 1] + "…"


def fail(message: str, status: int) -> None:
    click.echo(f"zatre: error: {_one_line(message)}", err=True)
    sys.exit(status)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # a folder on the way that cannot be searched
        return False


def check_output_file(path: str, option: str = "--out") -> Path:
    """Fail before any work when ``path`` cannot become a file: it is a folder, a part
    of the way to it is a file, or the nearest existing folder is not writable.
    Missing folders are fine (they are made when the file is written)."""
    target = Path(path)
    if _exists(target):
        if target.is_dir():
            raise InputError(f"{option} {path}: is a folder, not a file")
        if not os.access(target, os.W_OK):
            raise InputError(f"{option} {path}: cannot be written (permission denied)")
    folder = target.parent
    while not _exists(folder) and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"{option} {path}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{option} {path}: cannot write in {folder} (permission denied)")
    return target


def check_folder(path: str) -> None:
    """``path`` can be written as it is: its folder exists and it is not a folder itself
    (for writers that make no folders; ``check_output_file`` allows missing ones)."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{path}: is a folder, not a file")
    if not p.parent.is_dir():
        raise InputError(f"{path}: no folder {p.parent}")


def run_guarded(call: Callable[[], object]) -> None:
    """Run a click entry point in non-standalone mode and turn every failure into
    one line on standard error with the right exit status.

    Set ``ZATRE_DEBUG=1`` to see the traceback of an internal error.
    """
    try:
        status = call()
    except click.exceptions.NoArgsIsHelpError as exc:
        # a group run without a command: its help, as --help prints it
        click.echo(exc.ctx.get_help(), color=exc.ctx.color)
        status = 0
    except InputError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    except click.exceptions.Abort:
        fail("aborted", 130)
    except click.ClickException as exc:
        fail(exc.format_message(), exc.exit_code)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        if os.environ.get("ZATRE_DEBUG"):
            raise
        fail(f"internal error: {exc.__class__.__name__}: {exc} (set ZATRE_DEBUG=1 for details)",
             EXIT_INTERNAL)
    sys.exit(status if isinstance(status, int) else 0)
