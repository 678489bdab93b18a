"""End to end with no stand-in (issue 43 asked for it): a short rendered game, frame by
frame, through the real ``BoardReader`` (as the live pipeline wraps it), the real
``LivePipeline`` and tracker, into a real ``Table`` with its store. Every other
tracking test swaps the reader for the game's truth."""

from __future__ import annotations

import shutil

import pytest

from zatre_vision.bench.tracking_bench import SEED_BASE, hurry_events
from zatre_vision.camera.folder import FolderSource, read_meta
from zatre_vision.rules.record import score_record
from zatre_vision.store import open_store
from zatre_vision.synth.game_frames import generate_game
from zatre_vision.table import Table
from zatre_vision.tracking.live_reader import LiveBoardReader
from zatre_vision.tracking.pipeline import LivePipeline
from zatre_vision.tracking.sink import TableSink

#: keeps tiles back within its first 5 turns (see test_games_with_held_tiles_are_still_found)
SEED = SEED_BASE + 22


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e") / "game"
    truth = generate_game(folder, SEED, 1280, 960, max_turns=5, progress=False)
    assert any(len(t["placed"]) < len(t["hand"]) for t in truth["turns"])
    return folder, truth


def _play(folder, tmp_path) -> tuple[Table, LivePipeline]:
    from zatre_vision.vision.reader import BoardReader

    meta = read_meta(folder)
    table = Table(open_store(tmp_path / "data"), "table-1")
    table.new_match(meta.players, meta.starter, source="camera")
    pipeline = LivePipeline(LiveBoardReader(BoardReader(threads=1)), TableSink(table))
    source = FolderSource(folder)
    source.open()
    try:
        pipeline.run(iter(source.read, None), meta.events)
    finally:
        source.close()
    return table, pipeline


@pytest.mark.parametrize("hurried", [False, True], ids=["pressed-at-once", "pressed-late"])
def test_a_rendered_game_through_the_real_reader_scores_every_turn(recorded, tmp_path,
                                                                  hurried):
    """``pressed-late``: each End turn comes 0.4 s before the next player's first tile
    is down (the tile must not join the ended turn)."""
    folder, truth = recorded
    if hurried:
        folder = shutil.copytree(folder, tmp_path / "hurried")
        assert hurry_events(folder, truth) > 0
    table, pipeline = _play(folder, tmp_path)
    turns = table.match.turns
    assert [(t.player, t.placed) for t in turns] == [(t["player"], t["placed"])
                                                     for t in truth["turns"]]
    assert table.state()["waiting_turn"] is None and table.match.pending is None
    want = score_record(truth["record"])
    assert table.match.totals() == {p: s["total"] for p, s in want["sheets"].items()}
    assert pipeline.stats.reads > 0 and pipeline.tracker.waiting_at_finish == 0
    # the store holds the game as played: reopened, the table has the same turns
    table.store.close()
    again = Table(open_store(tmp_path / "data"), "table-1")
    assert [t.placed for t in again.match.turns] == [t["placed"] for t in truth["turns"]]
