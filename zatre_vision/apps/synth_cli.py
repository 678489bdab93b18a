"""The ``zatre synth`` command group: ``photos`` and ``game``.

Registered by the main CLI with ``main.add_command(synth)``. Bad input gives a one-line
message on standard error and exit status 2; progress bars go to standard error.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from ..synth.config import SynthConfig

_SIZE_RE = re.compile(r"^(\d{2,5})x(\d{2,5})$")


def _fail(message: str, status: int = 2) -> None:
    click.echo(f"zatre synth: {message}", err=True)
    sys.exit(status)


def _int(value: str, name: str, low: int, high: int) -> int:
    try:
        n = int(value)
    except ValueError:
        _fail(f"{name} must be a whole number, got {value!r}")
    if not low <= n <= high:
        _fail(f"{name} must be between {low} and {high}, got {n}")
    return n


def _size(value: str) -> tuple[int, int]:
    m = _SIZE_RE.match(value.strip().lower())
    if not m:
        _fail(f"--size must look like 1280x960, got {value!r}")
    w, h = int(m.group(1)), int(m.group(2))
    if not (160 <= w <= 4056 and 120 <= h <= 3040):
        _fail(f"--size must be between 160x120 and 4056x3040, got {value!r}")
    return w, h


def _config(name: str) -> SynthConfig:
    return SynthConfig.wide() if name == "wide" else SynthConfig()


def _out_dir(path: str) -> Path:
    """OUT, created if need be. It must be new or empty: rendering over an earlier set
    would leave its extra frames or photos mixed in with the new ones."""
    if not path.strip():
        _fail("OUT is empty: name a folder")
    out = Path(path)
    if out.exists() and not out.is_dir():
        _fail(f"OUT {path!r} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        _fail(f"OUT {path!r} is not empty: choose a new or empty folder, so that "
              "nothing already there is overwritten or mixed in")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".zatre-synth-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        _fail(f"cannot write to {path!r}: {exc.strerror or exc}")
    return out


def _run(job) -> None:
    try:
        job()
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except OSError as exc:
        _fail(f"cannot write output: {exc.strerror or exc}", 1)
    except Exception as exc:  # noqa: BLE001 - never a traceback for the user
        _fail(f"internal error: {type(exc).__name__}: {exc}", 1)


@click.group(name="synth")
def synth() -> None:
    """Synthetic board photos and recorded games with ground truth."""


@synth.command("photos")
@click.argument("out")
@click.option("--n", "n", default="100", show_default=True, help="Number of photos.")
@click.option("--seed", default="0", show_default=True, help="Random seed.")
@click.option("--size", default="1280x960", show_default=True, help="Image size WxH.")
@click.option("--quality", default=None, help="JPEG quality 1-100 (default: random per photo).")
@click.option("--config", "config", type=click.Choice(["default", "wide"]), default="default",
              show_default=True, help="Randomisation ranges (wide: held-out benchmark set).")
@click.option("--progress/--no-progress", default=True, help="Show a progress bar.")
def photos_cmd(out: str, n: str, seed: str, size: str, quality: str | None, config: str,
               progress: bool) -> None:
    """Render N single photos into OUT: 000001.jpg + 000001.json (ground truth) each."""
    from ..synth.photos import generate_photos

    count = _int(n, "--n", 1, 10_000_000)
    s = _int(seed, "--seed", 0, 2**63 - 1)
    w, h = _size(size)
    q = None if quality is None else _int(quality, "--quality", 1, 100)
    folder = _out_dir(out)
    _run(lambda: generate_photos(folder, count, s, w, h, q, _config(config), progress))


@synth.command("game")
@click.argument("out")
@click.option("--seed", default="0", show_default=True, help="Random seed.")
@click.option("--size", default="1280x960", show_default=True, help="Image size WxH.")
@click.option("--quality", default="85", show_default=True, help="JPEG quality 1-100.")
@click.option("--max-turns", default=None, help="Stop after this many turns (default: whole game).")
@click.option("--players", default="Ann,Ben", show_default=True, help="Comma-separated names (2-4).")
@click.option("--config", "config", type=click.Choice(["default", "wide"]), default="default",
              show_default=True, help="Randomisation ranges.")
@click.option("--progress/--no-progress", default=True, help="Show a progress bar.")
def game_cmd(out: str, seed: str, size: str, quality: str, max_turns: str | None, players: str,
             config: str, progress: bool) -> None:
    """Render a whole simulated game into OUT in the `zatre replay` folder format."""
    from ..synth.game_frames import generate_game

    s = _int(seed, "--seed", 0, 2**63 - 1)
    w, h = _size(size)
    q = _int(quality, "--quality", 1, 100)
    mt = None if max_turns is None else _int(max_turns, "--max-turns", 1, 10_000)
    names = tuple(p.strip() for p in players.split(","))
    if not 2 <= len(names) <= 4 or any(not p for p in names) or len(set(names)) != len(names):
        _fail(f"--players needs 2 to 4 distinct names, got {players!r}")
    folder = _out_dir(out)
    _run(lambda: generate_game(folder, s, w, h, q, mt, _config(config), names, progress))
