"""``zatre bench pin-flood``, ``slow-clients``, ``backup-access`` and ``camera-hang``: a
guest on the club's network, and a camera that hangs, against the real server."""

from __future__ import annotations

import sys

import click

from ..errors import check_output_file
from .results import write_bench_result


def _out(name: str):
    return click.option("--out", type=click.Path(dir_okay=False, writable=True),
                        default=f"benchmarks/results/{name}.json", show_default=True)


def _command(name: str) -> str:
    return f"zatre bench {name} " + " ".join(sys.argv[3:])


@click.command("pin-flood")
@_out("pin_flood")
@click.option("--seconds", type=click.FloatRange(5, 3600), default=60.0, show_default=True)
@click.option("--workers", type=click.IntRange(1, 256), default=16, show_default=True)
def pin_flood(out: str, seconds: float, workers: int) -> None:
    """Wrong PINs from 256 addresses while the operator plays on (exit 1 on a lock-out)."""
    from .pin_flood_bench import run_pin_flood_benchmark

    check_output_file(out)
    command = _command("pin-flood").strip()
    result = run_pin_flood_benchmark(seconds=seconds, workers=workers)
    write_bench_result(out, result, result["summary"], command=command)
    if not result["ok"]:
        raise SystemExit(1)


@click.command("slow-clients")
@_out("slow_clients")
@click.option("--sockets", type=click.IntRange(1, 10000), default=1000, show_default=True)
@click.option("--requests", type=click.IntRange(1, 1000), default=20, show_default=True)
def slow_clients(out: str, sockets: int, requests: int) -> None:
    """Slow sockets from 32 addresses while the operator asks from another (exit 1 if missed)."""
    from .slow_clients_bench import run_slow_clients_benchmark

    check_output_file(out)
    command = _command("slow-clients").strip()
    result = run_slow_clients_benchmark(sockets=sockets, requests=requests)
    write_bench_result(out, result, result["summary"], command=command)
    if not result["ok"]:
        raise SystemExit(1)


@click.command("backup-access")
@_out("backup_access")
def backup_access(out: str) -> None:
    """A backup tried for operator access with every secret in it (exit 1 on a way in)."""
    from .backup_access_bench import run_backup_access_benchmark

    check_output_file(out)
    command = _command("backup-access").strip()
    result = run_backup_access_benchmark()
    write_bench_result(out, result, result["summary"], command=command)
    if not result["ok"]:
        raise SystemExit(1)


@click.command("camera-hang")
@_out("camera_hang")
@click.option("--hang-s", type=click.FloatRange(20, 3600), default=300.0, show_default=True,
              help="How long the camera hangs while turns are entered by hand.")
def camera_hang(out: str, hang_s: float) -> None:
    """Hand entry through a camera that hangs (exit 1 if a turn or a request is lost)."""
    from .camera_hang_bench import run_camera_hang_benchmark

    check_output_file(out)
    command = _command("camera-hang").strip()
    result = run_camera_hang_benchmark(hang_s=hang_s)
    write_bench_result(out, result, result["summary"], command=command)
    if not result["ok"]:
        raise SystemExit(1)
