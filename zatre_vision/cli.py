"""The ``zatre`` command.

JSON goes to standard output; messages and progress to standard error. Exit status
0 on success, 2 on bad input with a one-line reason, never a traceback.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import click

from .calibrate.cli import calibrate
from .doctor import doctor
from .errors import InputError, check_output_file, run_guarded
from .server.cli import serve
from .synth.cli import synth
from .tracking.cli import replay
from .vision.cli import bench_vision, read, train


class ZatreGroup(click.Group):
    """A click group whose errors are one line each and whose crashes are caught."""

    def main(self, *args, **kwargs):  # noqa: D401 - click API
        kwargs["standalone_mode"] = False
        return run_guarded(lambda: super(ZatreGroup, self).main(*args, **kwargs))


@click.group(cls=ZatreGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="zatre-vision")
def main() -> None:
    """Zatre Vision: reads a Zatre board with a camera and keeps the score."""


def read_json_file(path: str) -> object:
    """Decode a JSON file ('-' for standard input); InputError on any problem."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a file") from None
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


def emit_json(obj: object, indent: int | None) -> None:
    click.echo(json.dumps(obj, indent=indent, ensure_ascii=False))


@main.command()
@click.argument("game", metavar="GAME.json")
@click.option("--indent", type=click.IntRange(0, 8), default=None,
              help="Pretty-print the JSON with this indent.")
def score(game: str, indent: int | None) -> None:
    """Replay a recorded game through the rules engine and print turns and sheets.

    A record with "variant": "cards" is a card game (positions "x,y", cards 0 to 6).
    """
    from .rules.record import RecordError, score_record

    data = read_json_file(game)
    try:
        result = score_record(data)
    except RecordError as exc:
        raise InputError(f"{game}: {exc}") from None
    emit_json(result, indent)


@main.command()
@click.option("--players", default="Ann,Ben", show_default=True,
              help="Comma-separated player names (2 to 6).")
@click.option("--seed", type=int, default=None, help="Seed for a repeatable game.")
@click.option("--strategy", type=click.Choice(["greedy", "random"]), default="greedy",
              show_default=True)
@click.option("--delay", type=click.FloatRange(0, 10), default=0.6, show_default=True,
              help="Seconds between turns.")
def demo(players: str, seed: int | None, strategy: str, delay: float) -> None:
    """Play a simulated game in the terminal, turn by turn."""
    from .terminal_demo import run_demo

    if not math.isfinite(delay):
        raise InputError(f"--delay: {delay} is not a number of seconds from 0 to 10")
    names = [p.strip() for p in players.split(",") if p.strip()]
    if not 2 <= len(names) <= 6 or len(set(names)) != len(names):
        raise InputError("--players needs 2 to 6 different names")
    run_demo(names, seed, strategy, delay)


@main.group()
def bench() -> None:
    """Benchmarks; each writes its results file under benchmarks/results/."""


@bench.command("rules")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/rules.json", show_default=True)
@click.option("--positions", type=click.IntRange(5, 500), default=40, show_default=True)
def bench_rules(out: str, positions: int) -> None:
    """Move generation and turn checking on mid-game boards (one core)."""
    from .bench.rules_bench import run_rules_benchmark

    check_output_file(out)
    result = run_rules_benchmark(positions=positions, progress=True)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    click.echo(json.dumps(result["summary"], indent=2))
    click.echo(f"results written to {out}", err=True)


@bench.command("tracking")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="[default: benchmarks/results/tracking.json, tracking-wide.json with "
              "--ranges wide, tracking-heldout-tiles.json, ...; -hurried added with "
              "--hurried]")
@click.option("--games", type=click.IntRange(1, 500), default=20, show_default=True)
@click.option("--max-turns", type=click.IntRange(4, 200), default=14, show_default=True,
              help="Turns per game (no game keeps tiles back in its first 3 turns).")
@click.option("--model", type=click.Path(dir_okay=False), default=None)
@click.option("--ranges", type=click.Choice(["training", "wide", "heldout-tiles"]),
              default="training", show_default=True,
              help="training: games rendered with the training ranges (the benchmark); "
              "wide: the vision benchmark's held-out ranges, where some cameras are too "
              "blurred to read (no turn should be committed wrong); heldout-tiles: a tile "
              "style outside the training ranges (turns wait rather than go wrong).")
@click.option("--hurried", is_flag=True, help="End turn is pressed late, 0.4 s before the "
              "next player's first tile goes down.")
def bench_tracking(out: str | None, games: int, max_turns: int, model: str | None,
                   ranges: str, hurried: bool) -> None:
    """Recorded synthetic games through the live pipeline: turns right, latency, CPU."""
    import shlex
    import sys

    import cv2

    if out is None:
        name = "tracking" + ("" if ranges == "training" else f"-{ranges}")
        out = f"benchmarks/results/{name}{'-hurried' if hurried else ''}.json"
    check_output_file(out)

    from .bench.tracking_bench import NoHeldTilesError, run_tracking_benchmark
    from .tracking.live_reader import LiveBoardReader
    from .vision.cli import _reader

    cv2.setNumThreads(1)
    command = "zatre " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        result = run_tracking_benchmark(lambda: LiveBoardReader(_reader(model, None, False)),
                                        games, max_turns, ranges=ranges, hurried=hurried,
                                        command=command)
    except NoHeldTilesError as exc:
        raise InputError(str(exc)) from None
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    click.echo(json.dumps(result["summary"], indent=2))
    click.echo(f"results written to {out}", err=True)


main.add_command(synth)
main.add_command(serve)
main.add_command(read)
main.add_command(train)
main.add_command(replay)
main.add_command(calibrate)
main.add_command(doctor)
bench.add_command(bench_vision)


if __name__ == "__main__":
    main()
