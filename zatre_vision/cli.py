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

from .bench.results import write_bench_result, write_result_file
from .doctor import doctor
from .errors import InputError, check_output_file, run_guarded
from .json_files import read_json_file

#: Commands loaded only when they run (or their own --help is asked for), so that
#: `zatre --help` and `zatre score` load no OpenCV, onnxruntime or Flask:
#: name -> ("module:attribute", the first line of its help, shown by `zatre --help`).
#: tests/cli/test_lazy_imports.py checks each line against the command itself.
LAZY_COMMANDS = {
    "synth": ("zatre_vision.apps.synth_cli:synth",
              "Synthetic board photos and recorded games with ground truth."),
    "serve": ("zatre_vision.server.cli:serve",
              "Serve the table dashboard (board, score sheets, corrections, records, API)."),
    "read": ("zatre_vision.apps.vision_cli:read",
             "Read photos of the board: which cells hold a tile and how many pips it shows."),
    "train": ("zatre_vision.apps.vision_cli:train",
              "Train the pip classifier and the board finder on synthetic photos and export "
              "them to ONNX (CPU)."),
    "replay": ("zatre_vision.apps.tracking_cli:replay",
               "Run DIR's frames (and meta.json, events.jsonl) through tracking, turn "
               "detection, rules and sheets, as the camera service would, and print the "
               "result: the `zatre score` output plus the frame at which each turn was "
               "committed."),
    "calibrate": ("zatre_vision.apps.calibrate_cli:calibrate",
                  "Set up a fixed camera: lens target and lens, board registration, "
                  "exposure lock; and learn the table's own tiles."),
    "backup": ("zatre_vision.apps.backup_cli:backup",
               "Copy the SQLite database to a file while the table may be running."),
    "restore": ("zatre_vision.apps.backup_cli:restore",
                "Put a backup made by `zatre backup` back as the table's database."),
    "pin": ("zatre_vision.server.pin_cli:pin",
            "The table's PIN from its console: a one-time sign-in code, a new PIN."),
}
LAZY_BENCH_COMMANDS = {
    "vision": ("zatre_vision.apps.vision_cli:bench_vision",
               "The reader on a held-out synthetic set (new seed, wider ranges), one core."),
    "gate": ("zatre_vision.apps.vision_cli:bench_gate",
             "A candidate model against the committed one on every bench set; exits 1 "
             "unless it is no worse (pooled, and on each set by one-sided exact tests)."),
    "pin-flood": ("zatre_vision.bench.guest_cli:pin_flood",
                  "Wrong PINs from 256 addresses while the operator plays on (exit 1 on a "
                  "lock-out)."),
    "slow-clients": ("zatre_vision.bench.guest_cli:slow_clients",
                     "Slow sockets from 32 addresses while the operator asks from another "
                     "(exit 1 if missed)."),
    "backup-access": ("zatre_vision.bench.guest_cli:backup_access",
                      "A backup tried for operator access with every secret in it (exit 1 on "
                      "a way in)."),
    "camera-hang": ("zatre_vision.bench.guest_cli:camera_hang",
                    "Hand entry through a camera that hangs (exit 1 if a turn or a request "
                    "is lost)."),
}


def _load(target: str) -> click.Command:
    import importlib

    module, attr = target.split(":")
    return getattr(importlib.import_module(module), attr)


class LazyGroup(click.Group):
    """A group whose ``lazy`` commands are imported only when one of them is used; its
    command list is written from their stored help lines."""

    lazy: dict[str, tuple[str, str]] = {}

    def list_commands(self, ctx) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx, cmd_name):
        if cmd_name in self.lazy and cmd_name not in self.commands:
            self.add_command(_load(self.lazy[cmd_name][0]), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx, formatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in self.commands:
                cmd = self.commands[name]
                if not cmd.hidden:
                    rows.append((name, cmd))
            else:
                rows.append((name, click.Command(name, help=self.lazy[name][1])))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(n, c.get_short_help_str(limit)) for n, c in rows])


class BenchGroup(LazyGroup):
    lazy = LAZY_BENCH_COMMANDS


class ZatreGroup(LazyGroup):
    """A click group whose errors are one line each and whose crashes are caught."""

    lazy = LAZY_COMMANDS

    def main(self, *args, **kwargs):  # noqa: D401 - click API
        kwargs["standalone_mode"] = False
        return run_guarded(lambda: super(ZatreGroup, self).main(*args, **kwargs))


@click.group(cls=ZatreGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="zatre-vision")
def main() -> None:
    """Zatre Vision: reads a Zatre board with a camera and keeps the score."""


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
    from .rules.record import RecordError
    from .variants import score_record

    data = read_json_file(game)
    try:
        result = score_record(data)
    except RecordError as exc:
        raise InputError(f"{game}: {exc}") from None
    emit_json(result, indent)


@main.command()
@click.argument("game", metavar="GAME.json")
@click.option("--indent", type=click.IntRange(0, 8), default=None,
              help="Pretty-print the JSON with this indent.")
@click.option("--limit", type=click.IntRange(1, 20_000), default=None,
              help="The bound of each turn's search: this many moves' worth, 100 search "
                   "steps each; a turn that reaches it is marked capped [default: 2000].")
def analyse(game: str, indent: int | None, limit: int | None) -> None:
    """Analyse a recorded game (zatre score format): for every turn the best move of
    the hand, the points missed and the top alternatives; per player a summary."""
    from .rules.analysis import ANALYSIS_LIMIT, analyse_record
    from .rules.record import RecordError, parse_record

    data = read_json_file(game)
    if isinstance(data, dict) and data.get("variant") == "cards":
        raise InputError(f"{game}: a card-game record: the analysis is for the board game only")
    try:
        record = parse_record(data)
    except RecordError as exc:
        raise InputError(f"{game}: {exc}") from None
    emit_json(analyse_record(record, limit or ANALYSIS_LIMIT).to_json(), indent)


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


@main.group(cls=BenchGroup)
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
    write_bench_result(out, result)


@bench.command("analyse")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/analyse.json", show_default=True)
@click.option("--hard", type=click.IntRange(1, 40), default=8, show_default=True,
              help="Hard turns (carried-over hands of 6 to 9 tiles on late boards).")
@click.option("--team-games", type=click.IntRange(1, 10), default=2, show_default=True,
              help="Games of three teams of two, each turn checked by exhaustive search.")
@click.option("--team-turns", type=click.IntRange(1, 200), default=None,
              help="Cut each team game to this many turns (default: whole games).")
@click.option("--repeat", type=click.IntRange(1, 10), default=3, show_default=True,
              help="Timings are the best of this many runs.")
def bench_analyse(out: str, hard: int, team_games: int, team_turns: int | None,
                  repeat: int) -> None:
    """zatre analyse: a 60-turn match, team games against exhaustive search, runaway
    records, hard turns (one core)."""
    from .bench.analysis_bench import run_analysis_benchmark

    check_output_file(out)
    command = f"zatre bench analyse --hard {hard} --team-games {team_games}" + (
        f" --team-turns {team_turns}" if team_turns else "") + (
        f" --repeat {repeat}" if repeat != 3 else "") + (
        f" --out {out}" if out != "benchmarks/results/analyse.json" else "")
    result = run_analysis_benchmark(hard=hard, repeat=repeat, team_games=team_games,
                                    team_turns=team_turns, progress=True, command=command)
    write_bench_result(out, result)
@bench.command("load")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/serve_load.json", show_default=True)
@click.option("--streams", type=click.IntRange(0, 2000), default=200, show_default=True)
@click.option("--idle", type=click.IntRange(0, 2000), default=200, show_default=True)
@click.option("--rate", type=click.FloatRange(1, 200), default=20.0, show_default=True,
              help="GET /api/state per second.")
@click.option("--seconds", type=click.FloatRange(5, 300), default=20.0, show_default=True,
              help="Length of each phase (baseline, load, slow clients).")
@click.option("--growth-turns", type=click.IntRange(0, 5000), default=500, show_default=True,
              help="Turns the match grows to under the full room (a turn every 0.1 s).")
@click.option("--slow", type=click.IntRange(0, 5000), default=1000, show_default=True,
              help="Slow clients (a head byte every 5 s) from 127.0.0.2 and 127.0.0.3.")
@click.option("--guesses", type=click.IntRange(0, 256), default=64, show_default=True,
              help="Wrong PINs sent at one moment (one address, then as many addresses).")
def bench_load(out: str, streams: int, idle: int, rate: float, seconds: float,
               growth_turns: int, slow: int, guesses: int) -> None:
    """zatre serve under open live views and idle sockets while the operator plays and
    the match grows, under slow clients, and under a burst of PIN guesses (loopback
    only; exit 1 if a target is missed)."""

    from .bench.load_bench import run_load_benchmark

    check_output_file(out)
    command = "zatre bench load " + " ".join(sys.argv[3:])
    result = run_load_benchmark(streams=streams, idle=idle, rate=rate, seconds=seconds,
                                growth_turns=growth_turns, slow=slow, guesses=guesses,
                                command=command)
    slow_op = (result["slow_clients"] or {}).get("operator", {}).get("all", {})
    pins = result["pin_guesses"] or {}
    write_bench_result(out, result, {k: result[k] for k in ("ok", "p99_ratio_load_to_baseline",
                                                             "errors")}
                       | {"load_p99_ms": result["load"]["all"]["p99_ms"],
                          "growing_match_p99_ms": result["growing_match"]["all"]["p99_ms"],
                          "slow_clients_operator_p99_ms": slow_op.get("p99_ms"),
                          "pin_checks_one_address": pins.get("one_address", {}).get("checked"),
                          "pin_peak_rss_mb": pins.get("peak_rss_mb", {}).get(
                              "after_many_addresses"),
                          "missed_versions": result["streams"]["missed_versions"]},
                       command=command)
    if not result["ok"]:
        raise SystemExit(1)


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
@click.option("--skip-games", type=click.IntRange(0, 500), default=0, show_default=True,
              help="Leave out the first N games of the list (run a slice of it).")
def bench_tracking(out: str | None, games: int, max_turns: int, model: str | None,
                   ranges: str, hurried: bool, skip_games: int) -> None:
    """Recorded synthetic games through the live pipeline: turns right, latency, CPU."""
    import shlex

    import cv2

    if out is None:
        name = "tracking" + ("" if ranges == "training" else f"-{ranges}")
        out = f"benchmarks/results/{name}{'-hurried' if hurried else ''}.json"
    check_output_file(out)

    from .apps.vision_cli import _reader
    from .bench.tracking_bench import NoHeldTilesError, run_tracking_benchmark
    from .tracking.live_reader import LiveBoardReader

    cv2.setNumThreads(1)
    command = "zatre " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        result = run_tracking_benchmark(
            lambda: LiveBoardReader(_reader(model, None, False)), games, max_turns,
            ranges=ranges, hurried=hurried, command=command,
            # the figures so far after each game: a run cut short still leaves them
            on_game=lambda partial: write_result_file(out, partial, command), skip=skip_games)
    except NoHeldTilesError as exc:
        raise InputError(str(exc)) from None
    write_bench_result(out, result)


@bench.command("camera")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/camera_pacing.json", show_default=True)
@click.option("--fps", type=click.FloatRange(0.5, 30), default=5.0, show_default=True)
@click.option("--seconds", type=click.FloatRange(2, 600), default=20.0, show_default=True,
              help="Measured time of each run (paced, then the unpaced baseline).")
def bench_camera(out: str, fps: float, seconds: float) -> None:
    """A 30 fps camera configured at --fps through the camera service: rate, CPU, RSS."""
    from .bench.camera_pacing import run_camera_benchmark

    check_output_file(out)
    write_bench_result(out, run_camera_benchmark(fps, seconds),
                       command=f"zatre bench camera --fps {fps:g} --seconds {seconds:g}")


@bench.command("adapt")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/adapt.json", show_default=True)
@click.option("--test-photos", type=click.IntRange(1, 500), default=24, show_default=True,
              help="Test photos per tile style.")
@click.option("--styles", default=None,
              help="Comma-separated held-out tile styles (default: the benchmark's).")
@click.option("--cache", type=click.Path(file_okay=False), default=None,
              help="Keep the rendered photos in this folder (and reuse them).")
def bench_adapt(out: str, test_photos: int, styles: str | None, cache: str | None) -> None:
    """The reader on held-out tile sets, before and after `zatre calibrate tiles`."""
    import cv2

    from .apps.vision_cli import _reader
    from .bench.adapt_bench import STYLES, run_adapt_benchmark
    from .synth.tiles import HELD_OUT_STYLES

    check_output_file(out)
    names = tuple(s.strip() for s in styles.split(",")) if styles else STYLES
    unknown = [s for s in names if s not in HELD_OUT_STYLES]
    if unknown or not names:
        raise InputError(f"--styles: unknown tile style {unknown[0] if unknown else ''!r} "
                         f"(known: {', '.join(HELD_OUT_STYLES)})")
    cv2.setNumThreads(1)
    result = run_adapt_benchmark(_reader(None, None, False), names, test=test_photos,
                                 cache=cache)
    write_bench_result(out, result)


@bench.command("startup")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/startup.json", show_default=True)
@click.option("--runs", type=click.IntRange(3, 100), default=10, show_default=True)
def bench_startup(out: str, runs: int) -> None:
    """Start-up time of `zatre --help` and `zatre score`, against eager imports."""
    from .bench.startup import run_startup_benchmark

    check_output_file(out)
    write_bench_result(out, run_startup_benchmark(runs),
                       command=f"zatre bench startup --runs {runs}")


@bench.command("bad-input")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/bad_input.json", show_default=True)
@click.option("--images", type=click.IntRange(20, 5000), default=1000, show_default=True)
@click.option("--records", type=click.IntRange(10, 5000), default=500, show_default=True)
@click.option("--cap-mb", type=click.IntRange(256, 4096), default=512, show_default=True,
              help="Address-space cap of the process that reads them.")
def bench_bad_input(out: str, images: int, records: int, cap_mb: int) -> None:
    """Corrupt images, image bombs, special files and mutated records under a memory cap."""
    from .bench.bad_input import run_capped

    check_output_file(out)
    result = run_capped(images, records, cap_mb)
    write_bench_result(out, result, {k: result.get(k) for k in ("crashes", "hangs",
                                                                 "peak_rss_mb", "seconds")},
                       command=f"zatre bench bad-input --images {images} --records {records} "
                               f"--cap-mb {cap_mb}")
    if result.get("crashes") or result.get("hangs"):
        raise SystemExit(1)



@bench.command("serve")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/serve.json", show_default=True)
@click.option("--game", type=click.Path(file_okay=False, exists=True), default=None,
              help="A recorded game folder (zatre synth game); default: seed 5, 10 turns, "
              "1280x960, rendered afresh.")
@click.option("--model", type=click.Path(dir_okay=False, exists=True), default=None,
              help="ONNX model [default: models/pips.onnx].")
@click.option("--runs", type=click.IntRange(1, 50), default=5, show_default=True,
              help="Start-ups timed.")
@click.option("--timeout", type=click.FloatRange(10, 3600), default=300.0, show_default=True,
              help="Longest replay of the game through the server, in seconds.")
def bench_serve(out: str, game: str | None, model: str | None, runs: int,
                timeout: float) -> None:
    """zatre serve: start-up time, memory while it replays a game, cost per frame."""
    from .bench.serve_bench import run_serve_benchmark

    check_output_file(out)
    result = run_serve_benchmark(Path(game) if game else None,
                                 str(Path(model).resolve()) if model else None, runs, timeout)
    write_bench_result(out, result)


@bench.command("sse")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/sse_load.json", show_default=True)
@click.option("--clients", type=click.IntRange(1, 500), default=50, show_default=True)
@click.option("--pace", type=click.FloatRange(0.01, 10), default=0.1, show_default=True,
              help="Seconds between turns.")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=1, show_default=True)
@click.option("--threads", type=click.IntRange(4, 512), default=96, show_default=True,
              help="Server threads.")
def bench_sse(out: str, clients: int, pace: float, seed: int, threads: int) -> None:
    """Spectators on the event stream while a game plays (loopback; exit 1 if one missed
    an event)."""
    from .bench.sse_bench import run_sse_benchmark

    check_output_file(out)
    result = run_sse_benchmark(clients, pace, seed, threads)
    write_bench_result(out, result)
    if not result["ok"]:
        raise SystemExit(1)


@bench.command("synth")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/synth.json", show_default=True)
@click.option("--photos", type=click.IntRange(1, 10000), default=60, show_default=True)
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=1, show_default=True)
def bench_synth(out: str, photos: int, seed: int) -> None:
    """Synthetic photos per second at 1280x960 on one core."""
    from .bench.synth_bench import run_synth_benchmark

    check_output_file(out)
    write_bench_result(out, run_synth_benchmark(photos, seed))


main.add_command(doctor)


if __name__ == "__main__":
    main()
