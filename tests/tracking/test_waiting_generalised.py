"""Issue 41, second session: what keeps a turn from waiting for nothing (a lone
"occluded" call is no hand; a full hand waits only for sure tiles; empty reads free a
cell across a hand's pass), where a let-go tile goes, and the benchmark's simulated
operator."""

from __future__ import annotations

import numpy as np

from zatre_vision.bench.tracking_bench import SimulatedOperator
from zatre_vision.camera.base import Frame, make_lores
from zatre_vision.match import Match
from zatre_vision.tracking.pipeline import LivePipeline, hand_cells
from zatre_vision.tracking.sink import MatchSink
from zatre_vision.tracking.tracker import BoardTurnSink, Observation

from ..fakes import FakeRead as Read
from ..fakes import LayoutSink, NoSink, ScriptedReader
from .test_tracker import FIRST, Feed


def test_a_lone_occluded_call_on_a_still_board_is_no_hand():
    assert hand_cells(frozenset({"H7"}), set()) == frozenset()
    # a patch (side or corner), or motion on or beside the call, is a hand
    assert hand_cells(frozenset({"H7", "I8"}), set()) == {"H7", "I8"}
    assert hand_cells(frozenset({"H7"}), {"H7"}) == {"H7"}
    assert hand_cells(frozenset({"H7"}), {"G6"}) == {"H7"}
    assert hand_cells(frozenset({"H7", "J9"}), set()) == frozenset()


def _observations(reads: list[Read]) -> list[Observation]:
    pipe = LivePipeline(ScriptedReader(reads), NoSink())
    image = np.full((240, 320, 3), 90, np.uint8)
    out = [pipe.process(Frame(image, make_lores(image), i, i / 5))
           for i in range(len(reads) + 1)]
    return [o for o in out if o.read]


def test_the_pipeline_holds_a_lone_occluded_cell_as_unsure_not_as_a_hand():
    lone = Read(True, cells={"H8": 6}, uncertain=["H7"], occluded=["H7"])
    patch = Read(True, uncertain=["H7", "H6"], occluded=["H7", "H6"])
    first, second = _observations([lone, patch])
    assert "H7" in first.held and not first.hand and first.covered == frozenset()
    assert first.cells == {"H8": 6}
    assert second.hand and second.covered == {"H7", "H6"}


def test_a_turn_whose_hand_is_down_does_not_wait_for_a_cell_still_changing():
    """Ben has placed both his tiles (G8, F8) when he presses End turn; Ann's tile on
    E5, read once, has not settled: Ben cannot hold a third tile, so it is not his,
    and his turn commits at once. Ann's tile is hers."""
    f = Feed(FIRST)
    f.put("G8", 1)
    f.still(1, hand_over={"B8"})            # a hand stays over the board: no auto commit
    f.put("F8", 1)
    f.still(2, hand_over={"B8"})
    f.board["E8"] = 1                       # Ann's first tile, read once at the press
    f.still(1, hand_over={"B8"})
    f.tracker.end_turn()
    assert f.committed == [{"G8": 1, "F8": 1}]
    f.put("E9", 1)
    f.still(4)
    assert f.committed[-1] == {"E8": 1, "E9": 1}


def test_a_full_hand_still_waits_for_a_cell_the_reader_is_sure_holds_a_tile():
    f = Feed(FIRST)
    f.put("G8", 1)
    f.still(1, hand_over={"B8"})
    f.put("F8", 1)
    f.still(2, hand_over={"B8"})
    f.board["E8"] = 4
    f.still(1, hand_over={"B8"})            # E8 read once: not settled
    f.frame += 1                            # then unsure, surely a tile: one too many?
    f.tracker.observe(Observation(f.frame, f.frame / 5, still=True, hand=True,
                                  cells={c: v for c, v in f.board.items() if c != "E8"},
                                  held=frozenset({"E8", "B8"}), covered=frozenset({"B8"}),
                                  sure_tiles=frozenset({"E8"})))
    f.tracker.end_turn()
    assert f.committed == []
    f.still(3)                              # E8 reads 4: three tiles, flagged
    assert f.match.pending.placed == {"G8": 1, "F8": 1, "E8": 4}


def test_empty_reads_free_a_cell_though_a_hand_passes_between_them():
    f = Feed(FIRST)
    f.put("G8", 1)
    f.still(2)
    f.put("F8", 4)
    f.still(3, unsure={"F8"})
    f.tracker.end_turn()
    del f.board["F8"]                       # F8 held no tile after all
    f.still(1)                              # one confident empty read
    f.still(1, hand_over={"F8"})            # the next player's hand passes over it
    f.still(1, unsure={"F8"})
    assert f.committed == []
    f.still(1)                              # the second empty read since the press
    assert f.committed == [{"G8": 1}]


def test_a_tile_let_go_by_a_waiting_turn_belongs_to_the_later_turn_that_saw_it():
    """Ben's turn waits for F8 (a tile a hand then covered); Ann ends her turn with the
    tile on F8 in view. The operator says it is not Ben's: it is Ann's, as the board
    at her press showed, not the turn after hers."""
    f = Feed(FIRST)
    f.put("G8", 1)
    f.still(2)
    f.still(3, unsure={"F8"})               # F8 unsure: Ben may have put a tile there
    f.tracker.end_turn()
    f.board["F8"] = 4
    f.still(2, hand_over={"F8"})            # Ann's hand puts a 4 there
    f.still(10)
    assert f.tracker.waiting_turn()["ambiguous"] == ["F8"]
    f.put("G6", 1)
    f.still(3)
    f.tracker.end_turn()                    # Ann's turn: F8 and G6, queued
    assert f.tracker.waiting_turn()["queued"] == 1
    assert f.tracker.enter_cell("F8", None)  # the operator: not Ben's
    assert f.committed == [{"G8": 1}, {"G6": 1, "F8": 4}]
    assert [t.player for t in f.match.turns] == ["Ann", "Ben", "Ann"]


def test_a_turn_queued_behind_the_opening_turn_knows_its_hand():
    match = Match(["Ann", "Ben", "Cy"])
    sink = MatchSink(match)
    assert isinstance(sink, BoardTurnSink) and not isinstance(LayoutSink(), BoardTurnSink)
    assert sink.expected_tiles_ahead(1) is None              # the waiting turn may pass
    assert sink.expected_tiles_ahead(1, opened=True) == 2    # it places tiles: Ben's two
    assert sink.expected_tiles_ahead(3, opened=True) is None  # Ann again


def test_the_simulated_operator_enters_the_true_value_after_its_delay():
    f = Feed(FIRST)
    truth = [{"placed": dict(FIRST)}, {"placed": {"G8": 1, "F8": 4}}]
    operator = SimulatedOperator(truth, delay_s=3.0)
    f.put("G8", 1)
    f.still(2)
    f.put("F8", 4)
    f.still(3, unsure={"F8"})
    f.tracker.end_turn()
    for _ in range(20):                     # 2 s quiet wait + 3 s: no entry yet
        f.still(1, unsure={"F8"})
        operator(f.tracker)
    assert f.committed == [] and operator.entries == 0
    for _ in range(6):
        f.still(1, unsure={"F8"})
        operator(f.tracker)
    assert f.committed == [{"G8": 1, "F8": 4}]
    assert operator.entered_turns == {1} and f.tracker.commits[-1].entered == ("F8",)
