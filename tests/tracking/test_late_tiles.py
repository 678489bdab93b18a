"""Late tiles: a tile the reader could not read until after its End turn joins that
turn (which waits for it), not the next player's; and ``Match.add_to_turn``."""

import pytest

from zatre_vision.match import Match, MatchError
from zatre_vision.tracking.sink import MatchSink

from .test_tracker import FIRST, Feed


def ben_ends_his_turn_while_f8_cannot_be_read(f: Feed) -> None:
    """Ben puts down G8 (1) and F8 (4); the reader calls F8 unsure frame after frame,
    no hand near, through his End turn's whole wait, while Ann starts her turn."""
    f.put("G8", 1)
    f.still(2)
    f.put("F8", 4)
    f.still(3, unsure={"F8"})
    f.tracker.end_turn()
    f.still(2, unsure={"F8"})
    f.put("G6", 1)                          # Ann's first tile, on a cell seen empty
    f.still(12, unsure={"F8"})              # past end_wait_s: Ben's turn commits short


def test_a_tile_read_after_its_end_turn_joins_that_turn_which_waits_for_it():
    """Since issue 41 the turn does not commit short when its wait runs out: it waits
    for F8, and Ann's first tile (on a cell read empty at the press) stays hers."""
    f = Feed(FIRST)
    ben_ends_his_turn_while_f8_cannot_be_read(f)
    assert f.committed == []
    assert f.tracker.waiting_turn()["cells"] == ["F8"]
    f.still(2)                              # F8 reads at last, and settles
    assert f.committed == [{"G8": 1, "F8": 4}]
    assert f.tracker.late_tiles_added == 1
    assert f.match.totals()["Ben"] == 2     # F8-G8-H8 = 11
    f.put("G5", 1)                          # Ann's second tile: her turn commits alone
    f.still(4)
    assert f.committed[-1] == {"G6": 1, "G5": 1}
    assert [t.player for t in f.match.turns] == ["Ann", "Ben", "Ann"]


def test_a_cell_read_empty_after_the_commit_holds_no_late_tile():
    f = Feed(FIRST)
    ben_ends_his_turn_while_f8_cannot_be_read(f)
    del f.board["F8"]                       # it was empty after all (a shadow, a vein)
    f.still(2)                              # two confident empty reads free it
    f.board["F8"] = 4                       # Ann puts a tile there
    f.still(4)
    assert f.tracker.late_tiles_added == 0
    assert f.committed == [{"G8": 1}, {"G6": 1, "F8": 4}]


def test_undo_forgets_the_cells_that_may_hold_a_late_tile():
    f = Feed(FIRST)
    ben_ends_his_turn_while_f8_cannot_be_read(f)
    f.tracker.undo()                        # Ben's short turn is taken back
    f.still(2)
    assert f.tracker.late_tiles_added == 0
    assert len(f.match.turns) == 1
    f.tracker.end_turn()
    # Ben cannot hold three tiles on his first turn (Ann's G6 is in it): flagged, issue 42
    assert len(f.match.turns) == 1 and f.match.pending.placed == {"G8": 1, "F8": 4, "G6": 1}
    assert "wrong-draw" in [v.code for v in f.match.pending.result.violations]


def test_a_late_tile_that_makes_a_turn_whole_ends_the_players_holding():
    match = Match(["Ann", "Ben"])
    sink = MatchSink(match)
    read = {"H8": 6, "H7": 5}
    assert sink.commit_turn(read, 1, "end_turn") is False     # flagged: rule 1 wants three
    match.add_to_turn(0, "G7", 5)                              # the late tile makes it whole
    assert len(match.turns) == 1 and match.pending is None
    assert sink.commit_turn({}, 2, "end_turn") is not None    # Ben passes
    assert sink.expected_tiles() is not None                   # Ann holds nothing back


def test_a_first_turn_still_short_after_a_late_tile_waits_for_the_table():
    """Three tiles always fit on the empty board, so a first turn of two is no turn
    with one tile kept back: it stays flagged (first-turn-not-three) for the table."""
    match = Match(["Ann", "Ben"])
    sink = MatchSink(match)
    assert sink.commit_turn({"H8": 6}, 1, "end_turn") is False
    match.add_to_turn(0, "H7", 5)
    assert match.turns == [] and match.pending.placed == {"H8": 6, "H7": 5}
    assert [v.code for v in match.pending.result.violations] == ["first-turn-not-three"]
    assert sink.commit_turn({}, 2, "end_turn") is None        # nothing passes a flagged turn


def test_match_adds_a_tile_to_an_earlier_turn_and_scores_everything_again():
    match = Match(["Ann", "Ben"])
    assert match.propose(dict(FIRST)).legal
    assert match.propose({"G8": 1}).legal
    assert match.propose({"G6": 1, "G5": 1}).legal
    before = match.totals()["Ben"]
    match.add_to_turn(1, "F8", 4)
    assert match.turns[1].placed == {"G8": 1, "F8": 4}
    assert match.board.to_dict()["F8"] == 4
    assert match.totals()["Ben"] == before + 2          # F8-G8-H8 = 11
    for index, cell, value, message in [
            (5, "I9", 1, "no turn 6 to add a tile to"), (1, "H8", 1, "H8 already holds a tile"),
            (1, "I9", 7, "7 is not a tile value"), (1, "A1", 1, "A1 is not a cell"),
            (1, "Z99", 1, "Z99")]:
        with pytest.raises(MatchError, match=message):
            match.add_to_turn(index, cell, value)


def test_a_late_tile_that_connects_a_flagged_turn_makes_it_legal():
    match = Match(["Ann", "Ben"])
    assert match.propose(dict(FIRST)).legal
    assert not match.propose({"I6": 1}).legal           # I6 alone touches no tile
    assert match.pending is not None
    match.add_to_turn(1, "I7", 1)                       # the flagged turn is turn 2
    assert match.pending is None
    assert match.turns[1].placed == {"I6": 1, "I7": 1}
