"""``zatre replay DIR``: a recorded frame sequence through the live pipeline."""

from __future__ import annotations

import json

import click

from ..camera.base import SourceError
from ..errors import InputError


@click.command()
@click.argument("folder", metavar="DIR")
@click.option("--calibration", type=click.Path(dir_okay=False), default=None,
              help="Use a saved calibration (fixed camera).")
@click.option("--markers", is_flag=True, help="Look for ArUco corner markers first.")
@click.option("--model", type=click.Path(dir_okay=False), default=None,
              help="ONNX pip classifier (default: models/pips.onnx).")
@click.option("--tiles", "tiles", type=click.Path(dir_okay=False), default=None,
              help="Read with this table's own tiles (from `zatre calibrate tiles`).")
@click.option("--indent", type=click.IntRange(0, 8), default=None,
              help="Pretty-print the JSON with this indent.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on standard error.")
def replay(folder: str, calibration: str | None, markers: bool, model: str | None,
           tiles: str | None, indent: int | None, progress: bool) -> None:
    """Run DIR's frames (and meta.json, events.jsonl) through tracking, turn detection,
    rules and sheets, as the camera service would, and print the result: the `zatre
    score` output plus the frame at which each turn was committed."""
    from ..tracking.live_reader import LiveBoardReader
    from ..tracking.replay import replay_folder
    from .vision_cli import _reader

    if not folder.strip():
        raise InputError("DIR is empty: name the folder of a recording")
    reader = LiveBoardReader(_reader(model, calibration, markers, tiles) if tiles
                             else _reader(model, calibration, markers))
    try:
        result = replay_folder(folder, reader, progress=progress)
    except SourceError as exc:
        raise InputError(str(exc)) from None
    stats = result["replay"]
    skipped = stats["skipped_files"]
    if skipped and not stats["frames"]:
        raise InputError(f"{folder}: none of its {len(skipped)} frame files could be read "
                         f"({skipped[0]}: {stats.get('skip_reasons', {}).get(skipped[0], '?')})")
    click.echo(json.dumps(result, indent=indent, ensure_ascii=False))
    if skipped:
        click.echo(f"warning: {len(skipped)} frame file(s) could not be read and were "
                   f"skipped ({skipped[0]}: {stats.get('skip_reasons', {}).get(skipped[0], '?')})",
                   err=True)
    unseen = stats["end_turns_unseen"]
    if unseen:
        what = ("that turn is not" if unseen == 1
                else f"the {unseen} turns ended meanwhile are not")
        click.echo(f"warning: the recording ended while an End turn waited for the board "
                   f"to be readable ({stats['frames_unreadable']} of {stats['frames_read']} "
                   f"frames read could not be read): {what} in the result", err=True)
    waiting = stats["turns_waiting"]
    if waiting:
        cells = ", ".join(stats["waiting_cells"]) or "a cell"
        behind = "" if waiting == 1 else f" ({waiting - 1} later turns queued behind it)"
        click.echo(f"warning: the recording ended while a turn waited for {cells}, which "
                   f"the camera could not read: that turn is not in the result{behind}",
                   err=True)
