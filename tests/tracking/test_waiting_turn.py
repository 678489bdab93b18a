"""Issue 41: a turn never takes a tile that was not on the board at its End turn, and a
turn with a tile it cannot read waits (the table is told which cell) instead of
committing short; later turns queue behind it; the operator can enter the value."""

from zatre_vision.tracking.tracker import TrackerConfig

from .test_tracker import FIRST, Feed


def ben_ends_with_f8_unreadable(f: Feed) -> None:
    """Ben puts down G8 (1) and F8 (4), his last tile; the reader cannot read F8 (a
    tile style it does not know), with no hand near, when he presses End turn."""
    f.put("G8", 1)
    f.still(2)
    f.put("F8", 4)
    f.still(3, unsure={"F8"})
    f.tracker.end_turn()


def test_the_next_players_tile_down_0_4_s_after_the_press_is_not_taken_by_the_turn():
    f = Feed(FIRST)
    ben_ends_with_f8_unreadable(f)
    f.put("G6", 1)                          # Ann's first tile, 2 frames (0.4 s) later
    f.still(20, unsure={"F8"})              # four seconds: far past the 2 s wait
    assert f.committed == []                # no short turn, and G6 is not Ben's
    assert f.tracker.waiting_turn() == {"cells": ["F8"], "ambiguous": [], "queued": 0,
                                        "repeat_presses": 0, "since_s": 4.4}
    f.still(2)                              # F8 reads at last
    assert f.committed == [{"G8": 1, "F8": 4}]
    assert f.tracker.waiting_turn() is None
    f.put("G5", 1)
    f.still(4)
    assert f.committed[-1] == {"G6": 1, "G5": 1}
    assert [t.player for t in f.match.turns] == ["Ann", "Ben", "Ann"]


def test_a_cell_read_empty_at_the_press_is_free_even_when_never_read_empty_after_it():
    """The old safeguard needed a frame read after the press showing the cell empty;
    here the next player's hand covers it from the press until the tile is down."""
    f = Feed(FIRST)
    f.put("G8", 1)
    f.still(4)
    f.tracker.end_turn()                    # Ben holds a tile back: one tile, no wait
    assert f.committed == [{"G8": 1}]
    f.put("G6", 1)
    f.put("G5", 1)
    f.still(4)
    assert f.committed[-1] == {"G6": 1, "G5": 1}


def test_a_tile_under_the_hand_at_the_press_waits_for_the_operator():
    """Whose hand is over I8 at the press, and whether a tile lay under it then, the
    camera cannot know: a tile that shows there later is not added by itself."""
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(2)
    f.put("I8", 4)
    f.still(1, hand_over=("I8", "I9"))
    f.tracker.end_turn()
    f.still(15, hand_over=("I8",))          # three seconds: the hand rests on it
    assert f.committed == []
    assert f.tracker.waiting_turn()["cells"] == ["I8"]
    f.still(2)                              # I8 shows a 4 (I9 reads empty: free)
    assert f.committed == []
    assert f.tracker.waiting_turn()["ambiguous"] == ["I8"]
    assert f.tracker.enter_cell("I8", 4)
    assert f.committed == [{"G8": 5, "I8": 4}]
    assert f.tracker.commits[-1].waited_s > 3


def test_a_tile_seen_at_the_press_joins_the_turn_though_a_hand_then_covers_it():
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(2)
    f.put("I8", 4)
    f.still(1)                              # I8 read once: still settling at the press
    f.tracker.end_turn()
    f.still(3, hand_over=("I8",))
    f.still(2)
    assert f.committed == [{"G8": 5, "I8": 4}]


def test_a_doubted_cell_that_a_hand_covers_after_the_press_is_left_to_the_operator():
    """F8 was doubted (no hand) at the press, then Ann's hand went over it and it now
    shows a tile: that tile may be hers, so the camera does not decide."""
    f = Feed(FIRST)
    ben_ends_with_f8_unreadable(f)
    f.still(2, unsure={"F8"})
    f.still(2, hand_over={"F8"})            # a hand over F8 after the press
    f.still(6)                              # F8 now reads 4
    assert f.committed == []
    waiting = f.tracker.waiting_turn()
    assert waiting["cells"] == ["F8"] and waiting["ambiguous"] == ["F8"]
    assert f.tracker.enter_cell("F8", 4)   # the operator: it is Ben's
    assert f.committed == [{"G8": 1, "F8": 4}]
    assert f.tracker.commits[-1].entered == ("F8",)


def test_a_queued_turn_behind_a_waiting_one_commits_after_it_in_order():
    f = Feed(FIRST)
    ben_ends_with_f8_unreadable(f)
    f.put("G6", 1)                          # Ann's full turn, complete and still
    f.still(1, unsure={"F8"})
    f.put("G5", 1)
    f.still(10, unsure={"F8"})
    assert f.committed == []
    assert f.tracker.waiting_turn()["queued"] == 1
    f.put("I8", 1)                          # Ben, on whose turn the next one waits
    f.still(2, unsure={"F8"})
    f.tracker.end_turn()
    assert f.tracker.waiting_turn()["queued"] == 2
    f.still(2)                              # F8 reads: the three turns commit in order
    assert f.committed == [{"G8": 1, "F8": 4}, {"G6": 1, "G5": 1}, {"I8": 1}]
    assert [t.player for t in f.match.turns] == ["Ann", "Ben", "Ann", "Ben"]
    assert [c.reason for c in f.tracker.commits] == ["end_turn", "auto", "end_turn"]


def test_the_operator_enters_the_unreadable_cells_value():
    f = Feed(FIRST)
    ben_ends_with_f8_unreadable(f)
    f.still(15, unsure={"F8"})
    assert not f.tracker.enter_cell("E8", 4)  # no turn waits for E8
    assert f.committed == []
    assert f.tracker.enter_cell("F8", 4)
    assert f.committed == [{"G8": 1, "F8": 4}]
    f.still(5)                              # F8 reads now: it is on the table already
    assert len(f.committed) == 1


def test_the_operator_says_no_tile_of_the_turn_lies_there():
    f = Feed(FIRST)
    ben_ends_with_f8_unreadable(f)
    f.still(15, unsure={"F8"})
    assert f.tracker.enter_cell("F8", None)
    assert f.committed == [{"G8": 1}]        # a short turn: Ben keeps a tile back
    f.still(3)                               # the tile on F8 is the next turn's
    f.put("G6", 1)
    f.still(3)
    f.tracker.end_turn()
    assert f.committed[-1] == {"F8": 4, "G6": 1}


def test_undo_calls_off_the_waiting_end_turn_only():
    f = Feed(FIRST)
    ben_ends_with_f8_unreadable(f)
    f.still(15, unsure={"F8"})
    f.tracker.undo()
    assert f.tracker.waiting_turn() is None
    assert len(f.match.turns) == 1           # Ann's first turn stays
    f.still(2)
    f.tracker.end_turn()
    assert f.committed == [{"G8": 1, "F8": 4}]


def test_the_quiet_wait_before_the_table_is_told_is_configurable_and_bounded():
    import pytest

    with pytest.raises(ValueError, match="end_wait_s"):
        TrackerConfig(end_wait_s=-1)
    f = Feed(FIRST)
    f.tracker.config = TrackerConfig(end_wait_s=0.0)
    ben_ends_with_f8_unreadable(f)
    f.still(1, unsure={"F8"})
    assert f.tracker.waiting_turn()["cells"] == ["F8"]


def test_end_turn_pressed_again_while_the_turn_waits_is_no_pass():
    f = Feed(FIRST)
    ben_ends_with_f8_unreadable(f)
    f.still(12, unsure={"F8"})              # the dashboard says F8 cannot be read
    f.tracker.end_turn()                    # Ben presses again, impatient
    assert f.tracker.repeat_presses == 1
    assert f.tracker.waiting_turn()["queued"] == 0
    f.still(2)
    assert f.committed == [{"G8": 1, "F8": 4}]
    f.still(25)                             # later on, a press with nothing new is a pass
    f.tracker.end_turn()
    assert f.committed[-1] == {}


def test_what_a_turn_queued_behind_a_waiting_one_may_commit_by_itself():
    from zatre_vision.match import Match
    from zatre_vision.tracking.sink import MatchSink

    match = Match(["Ann", "Ben", "Cy"])
    sink = MatchSink(match)
    assert sink.expected_tiles_ahead(0) == 3
    assert sink.expected_tiles_ahead(1) is None        # the waiting turn may be a pass
    assert sink.commit_turn(dict(FIRST), 1, "auto")
    assert sink.expected_tiles_ahead(1) == 2            # Cy, behind Ben's waiting turn
    assert sink.expected_tiles_ahead(3) is None         # Ben again: his turn still waits
    assert sink.commit_turn({"G8": 1}, 2, "end_turn")   # Ben keeps a tile back
    assert sink.expected_tiles_ahead(2) is None         # Ben, after Cy: may place three
    assert sink.expected_tiles_ahead(1) == 2            # Ann


def test_a_doubtful_empty_read_does_not_free_a_cell_the_turn_waits_for():
    """An unknown tile style is read as empty now and then with the tile classes still
    strong (``doubtful_empty``): such reads do not decide that no tile lies there."""
    from zatre_vision.tracking.tracker import Observation

    f = Feed(FIRST)
    ben_ends_with_f8_unreadable(f)

    def frame(doubtful_empty=frozenset(), shown=True):
        f.frame += 1
        cells = {c: v for c, v in f.board.items() if c != "F8" or shown}
        f.tracker.observe(Observation(f.frame, f.frame / 5, still=True, cells=cells,
                                      doubtful_empty=doubtful_empty))

    for _ in range(12):
        frame({"F8"}, shown=False)          # "empty", but doubtful
    assert f.committed == []
    assert f.tracker.waiting_turn()["cells"] == ["F8"]
    frame()
    frame()                                 # F8 reads 4 twice: it joins the turn
    assert f.committed == [{"G8": 1, "F8": 4}]
