"""``zatre replay DIR``: a recorded frame sequence through the live pipeline."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from ..camera.base import Frame
from ..camera.folder import FolderSource, read_meta
from ..match import Match
from .pipeline import CellReader, LivePipeline, PipelineConfig
from .sink import MatchSink
from .tracker import TurnTracker


def _frames(source: FolderSource, progress: bool) -> Iterator[Frame]:
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(source._files), desc="replay", unit="frame", file=sys.stderr)
    while (frame := source.read()) is not None:
        if bar is not None:
            bar.update(1)
        yield frame
    if bar is not None:
        bar.close()


def replay_folder(folder: str | Path, reader: CellReader, config: PipelineConfig | None = None,
                  progress: bool = False,
                  operator: Callable[[TurnTracker], None] | None = None) -> dict:
    """Run the folder's frames and events through the pipeline; returns the ``zatre
    score`` output plus, per committed turn, the ``frame`` it was committed at.
    ``operator``: called with the tracker after each frame, as a table's operator
    would act on a waiting turn (the tracking benchmark's simulated operator).

    Raises camera.SourceError for a folder that cannot be replayed."""
    folder = Path(folder)
    meta = read_meta(folder)
    match = Match(meta.players, starter=meta.starter)
    sink = MatchSink(match)
    pipeline = LivePipeline(reader, sink, config)
    source = FolderSource(folder)
    source.open()
    try:
        pipeline.run(_frames(source, progress), meta.events, after_frame=operator)
    finally:
        source.close()
    out = match.replayed.to_json()
    for turn, frame in zip(out["turns"], sink.frames, strict=True):
        turn["frame"] = frame
    if match.pending is not None:
        pending = {"player": match.pending.player, **match.pending.result.to_json(),
                   "frame": sink.pending_frame, "pending": True}
        out["turns"].append(pending)
    out["replay"] = {
        "frames": pipeline.stats.frames,
        "frames_read": pipeline.stats.reads,
        "skipped_files": source.skipped,
        "skip_reasons": source.skip_reasons,
        "board_lost": pipeline.stats.board_lost,
        "frames_unreadable": pipeline.stats.unreadable_reads,
        "end_turns_unseen": pipeline.tracker.unseen_end_turns,
        "late_tiles": pipeline.tracker.late_tiles_added,
        # turns ended but never committed: the first waited for a cell it could not
        # read (``waiting_cells``), the others queued behind it
        "turns_waiting": pipeline.tracker.waiting_at_finish,
        "waiting_cells": pipeline.tracker.waiting_cells_at_finish,
        # per committed turn: seconds from its end to its commit
        "waited_s": [c.waited_s for c in pipeline.tracker.commits],
        # per committed turn: the cells whose value the operator entered
        "entered": [list(c.entered) for c in pipeline.tracker.commits],
        "end_turns_merged": pipeline.tracker.end_turns_merged,
        "busy_s": round(pipeline.stats.busy_s, 3),
    }
    return out
