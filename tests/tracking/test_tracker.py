"""Turn detection on hand-made observation sequences: each case a table situation."""

from zatre_vision.match import Match
from zatre_vision.tracking.sink import MatchSink
from zatre_vision.tracking.tracker import Observation, TurnTracker

from ..fakes import LayoutSink

FIRST = {"H8": 6, "H7": 5, "G7": 5}


class Feed:
    """Plays frames into a tracker at 5 fps."""

    def __init__(self, board=None, players=("Ann", "Ben"), teams=None):
        self.match = Match(list(players), teams=dict(teams or {}))
        if board:
            assert self.match.propose(board).legal
        self.sink = MatchSink(self.match)
        self.tracker = TurnTracker(self.sink)
        self.frame = 0
        self.board = dict(self.match.board.to_dict())

    def still(self, n=1, hand_over=(), unsure=()):
        """Still frames; ``hand_over`` cells are hidden by a hand, ``unsure`` cells the
        reader cannot read with no hand near (both are held, not read)."""
        for _ in range(n):
            self.frame += 1
            held = frozenset(hand_over) | frozenset(unsure)
            cells = {c: v for c, v in self.board.items() if c not in held}
            self.tracker.observe(Observation(self.frame, self.frame / 5, still=True, cells=cells,
                                             held=held, hand=bool(hand_over)))

    def moving(self, n=1):
        for _ in range(n):
            self.frame += 1
            self.tracker.observe(Observation(self.frame, self.frame / 5, still=False, read=False))

    def unreadable(self, n=1):
        """Still frames whose tiles the reader cannot read (doubtful frames)."""
        for _ in range(n):
            self.frame += 1
            self.tracker.observe(Observation(self.frame, self.frame / 5, still=True,
                                             held=frozenset(self.sink.cells_of_interest()),
                                             unreadable=True))

    def no_board(self, n=1):
        for _ in range(n):
            self.frame += 1
            self.tracker.observe(Observation(self.frame, self.frame / 5, still=False,
                                             board_found=False))

    def second_turn_commits_by_itself(self):
        """Ben puts down G8 and F8 (ones) and lets them lie still: an automatic commit."""
        self.put("G8", 1)
        self.still(1)
        self.put("F8", 1)
        self.still(4)

    def put(self, cell, value):
        self.moving(2)
        self.board[cell] = value

    def lift(self, cell):
        self.moving(2)
        del self.board[cell]

    @property
    def committed(self):
        return [c.placed for c in self.tracker.commits]


def test_first_turn_commits_automatically_after_three_tiles():
    f = Feed()
    for cell, v in FIRST.items():
        f.put(cell, v)
        f.still(1)
    assert f.committed == []  # one still frame is not enough to settle the last tile
    f.still(3)
    assert f.committed == [FIRST]
    assert f.tracker.commits[0].reason == "auto"
    f.still(20)
    assert len(f.committed) == 1  # never twice


def test_a_tile_placed_and_lifted_again_is_not_committed():
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(3)
    f.lift("G8")
    f.still(3)
    assert f.committed == []
    f.put("I8", 4)
    f.still(2)
    f.put("I9", 2)
    f.still(4)
    assert f.committed == [{"I8": 4, "I9": 2}]


def test_a_hand_resting_over_the_board_holds_the_cells_under_it():
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(2)
    f.put("I8", 1)
    f.still(60, hand_over={"I8", "I9", "H9", "J8"})  # twelve seconds with a hand on I8
    assert f.committed == []
    f.moving(2)
    f.still(4)
    assert f.committed == [{"G8": 5, "I8": 1}]
    assert f.match.totals()["Ben"] == 5  # G7-G8 = 10 and G8-H8-I8 = 12


def test_end_turn_commits_a_turn_with_a_tile_held_back_and_then_waits_for_it_again():
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(4)
    assert f.committed == []  # only one of two tiles: no automatic commit
    f.tracker.end_turn()
    assert f.committed == [{"G8": 5}]
    # Ann's turn (two tiles, automatic), then Ben, who kept a tile back
    f.put("G6", 1)
    f.still(1)
    f.put("G5", 1)
    f.still(4)
    assert f.committed[-1] == {"G6": 1, "G5": 1}
    assert f.tracker.commits[-1].legal
    for cell in ("I7", "I6"):
        f.put(cell, 1)
        f.still(4)
    assert len(f.committed) == 2  # Ben's turn waits for his end of turn
    f.tracker.end_turn()
    # one kept back and one drawn (rules.md, rule 6): two tiles, not three (issue 42)
    assert f.committed[-1] == {"I7": 1, "I6": 1}
    assert f.tracker.commits[-1].legal


def test_end_turn_right_after_an_automatic_commit_only_confirms_it():
    f = Feed(FIRST)
    f.second_turn_commits_by_itself()
    f.tracker.end_turn()
    assert len(f.committed) == 1
    f.still(30)  # six seconds later, with nothing new: the next player passes
    f.tracker.end_turn()
    assert f.committed == [{"G8": 1, "F8": 1}, {}]


def test_end_turn_waits_for_a_tile_that_has_not_settled():
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(1)
    f.tracker.end_turn()
    assert f.committed == []
    f.still(1)
    assert f.committed == [{"G8": 5}]


def test_undo_takes_the_commit_back_without_committing_it_again_at_once():
    f = Feed(FIRST)
    f.second_turn_commits_by_itself()
    assert len(f.match.turns) == 2
    f.tracker.undo()
    assert len(f.match.turns) == 1
    f.still(10)
    assert len(f.match.turns) == 1  # same tiles, board untouched: no re-commit
    f.put("E8", 1)  # the player goes on and places a third tile, then ends the turn
    f.still(3)
    f.tracker.end_turn()
    # a first hand of two cannot place three (issue 42): flagged, not committed
    assert f.match.pending.placed == {"G8": 1, "F8": 1, "E8": 1}
    assert "wrong-draw" in [v.code for v in f.match.pending.result.violations]


def test_an_illegal_turn_waits_and_is_dropped_when_its_tile_is_taken_back():
    f = Feed(FIRST)
    f.put("H6", 4)  # column H6-H8 = 15
    f.still(1)
    f.put("G6", 1)
    f.still(4)
    assert f.match.pending is not None and f.tracker.commits[-1].legal is False
    assert "H6" not in f.match.state()["board"]
    f.lift("H6")
    f.still(3)
    assert f.match.pending is None
    f.put("I8", 1)
    f.still(4)
    assert f.match.turns[-1].placed == {"G6": 1, "I8": 1}


def test_the_tracker_takes_any_position_keys_and_counts_a_zero_as_a_card():
    sink = LayoutSink()
    tracker = TurnTracker(sink)
    table = {}
    frame = 0

    def still(n):
        nonlocal frame
        for _ in range(n):
            frame += 1
            tracker.observe(Observation(frame, frame / 5, still=True, cells=dict(table)))

    table.update({"0,0": 0, "1,0": 5})
    still(4)
    table["1,1"] = 0
    still(4)
    assert sink.turns == [{"0,0": 0, "1,0": 5}, {"1,1": 0}]


def test_a_pass_right_after_a_confirmed_automatic_commit_is_a_turn():
    """Ben's turn commits by itself and Ben presses "end turn" (a confirmation); Ann,
    who cannot place anything, presses it half a second later: that is her pass."""
    f = Feed(FIRST)
    f.second_turn_commits_by_itself()
    f.tracker.end_turn()  # Ben confirms
    f.still(3)
    f.tracker.end_turn()  # Ann passes
    assert f.committed == [{"G8": 1, "F8": 1}, {}]
    assert [t.player for t in f.match.turns] == ["Ann", "Ben", "Ann"]


def test_a_recording_that_ends_while_an_end_of_turn_waits_leaves_the_turn_waiting():
    """A turn never commits without a cell it could not tell (before issue 41 the end
    of a recording committed what it had: here a turn one tile short)."""
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(2)
    f.put("I8", 4)                     # put down just before End turn, then the tape ends
    f.still(1)
    f.tracker.end_turn()
    assert f.committed == []           # waiting for I8 to settle
    f.tracker.finish()
    assert f.committed == []
    assert f.tracker.waiting_at_finish == 1
    f.tracker.finish()                 # nothing waits any more: counted once
    assert f.tracker.waiting_at_finish == 1


def test_end_turn_waits_for_a_cell_under_the_hand_but_not_for_the_next_players_tile():
    """I8 is under the hand at the press: the turn waits for it; the tile that shows
    there is left to the operator (it may have been put after the press). I9, under
    the hand too and empty, is free, so the next player's tile there is theirs."""
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(2)
    f.put("I8", 4)
    f.still(1, hand_over=("I8", "I9"))     # End turn with the hand still over I8
    f.tracker.end_turn()
    assert f.committed == []
    f.still(2, hand_over=("I8",))          # I9 is seen empty (twice) after the End turn
    f.put("I9", 2)                         # the next player is quick
    f.still(2)                             # the hand has gone: I8 and I9 both settle
    assert f.committed == []
    assert f.tracker.enter_cell("I8", 4)
    assert f.committed == [{"G8": 5, "I8": 4}]
    assert f.tracker.new_tiles() == {"I9": 2}


def test_undo_during_an_end_of_turn_wait_forgets_the_cells_seen_empty_meanwhile():
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(2)
    f.put("I8", 4)
    f.still(1, hand_over=("I8", "I9"))
    f.tracker.end_turn()                   # waits for I8
    f.still(1, hand_over=("I8",))          # I9 seen empty during the wait
    f.tracker.undo()                       # the wait is called off with the undo
    f.put("I9", 2)
    f.still(2)
    f.tracker.end_turn()
    assert "I9" in f.committed[-1]


def test_end_turn_on_a_picture_that_cannot_be_read_waits_instead_of_passing():
    """The camera goes out of focus: an End turn then says nothing about the tiles, so
    it commits no pass; once the board reads again and shows nothing new, it does."""
    f = Feed(FIRST)
    f.still(2)
    f.unreadable(3)
    f.tracker.end_turn()
    assert f.tracker.waiting_for_the_board
    f.unreadable(30)                       # six seconds: far past end_wait_s
    assert f.committed == []
    f.still(1)                             # readable again, nothing new: the pass
    assert f.committed == [{}]
    assert not f.tracker.waiting_for_the_board


def test_tiles_put_down_while_the_picture_is_unreadable_join_the_turn_it_ends():
    f = Feed(FIRST)
    f.still(2)
    f.unreadable(2)
    f.board.update({"G8": 5, "I8": 4})     # put down while the picture was blurred
    f.unreadable(2)
    f.tracker.end_turn()
    f.unreadable(20)
    assert f.committed == []
    f.still(3)                             # the tiles settle on two reads
    assert f.committed == [{"G8": 5, "I8": 4}]


def test_end_turn_with_no_board_in_sight_waits_for_it():
    f = Feed(FIRST)
    f.still(2)
    f.no_board(3)                          # a head over the camera, a bumped board
    f.tracker.end_turn()
    f.no_board(20)
    assert f.committed == []
    f.put("G8", 5)                         # seen after the board is back
    f.still(3)
    assert f.committed == [{"G8": 5}]


def test_an_end_turn_confirming_an_automatic_commit_stays_a_confirmation_when_blurred():
    f = Feed(FIRST)
    f.second_turn_commits_by_itself()
    f.unreadable(2)
    f.tracker.end_turn()                   # Ben confirms
    assert not f.tracker.waiting_for_the_board
    f.still(3)
    assert f.committed == [{"G8": 1, "F8": 1}]


def test_a_recording_that_ends_unreadable_commits_nothing_for_the_waiting_turn():
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(2)
    f.unreadable(2)
    f.tracker.end_turn()
    f.tracker.finish()
    assert f.committed == []


def test_a_tracker_that_has_read_no_frame_does_not_pass_on_end_turn():
    f = Feed(FIRST)
    f.tracker.end_turn()
    assert f.committed == []
    f.still(1)
    assert f.committed == [{}]


def test_a_team_seat_commits_by_itself_at_two_tiles_per_member():
    f = Feed(FIRST, players=("Blue", "Red"), teams={"Blue": 2, "Red": 2})
    for cell in ("G8", "F8"):
        f.put(cell, 1)
        f.still(4)
    assert f.committed == []                 # two of the team's four
    for cell in ("E8", "D8"):
        f.put(cell, 1)
        f.still(4)
    assert f.committed == [{"G8": 1, "F8": 1, "E8": 1, "D8": 1}]


def test_who_kept_tiles_back_is_read_from_the_match_so_a_restart_keeps_it():
    f = Feed(FIRST)
    f.put("G8", 5)
    f.still(4)
    f.tracker.end_turn()                     # Ben keeps a tile back
    assert f.match.propose({"G6": 1, "G5": 1}).legal   # Ann's turn, typed in
    restarted = MatchSink(f.match)           # the camera service starts again
    assert restarted.expected_tiles() is None   # Ben may place three: End turn decides
    f.match.undo()                           # Ann's turn taken back at the dashboard
    assert restarted.expected_tiles() == 2   # Ann's turn again: two


def test_two_end_turns_while_the_picture_cannot_be_read_are_one_turn_and_counted():
    f = Feed(FIRST)
    f.still(2)
    f.unreadable(2)
    f.board.update({"G8": 1, "F8": 1})     # Ben's tiles, put down while blurred
    f.tracker.end_turn()
    f.unreadable(5)
    f.tracker.end_turn()                   # again: a double press, or Ann's End turn
    assert f.tracker.presses_unseen == 1
    f.unreadable(5)
    f.still(3)
    assert f.committed == [{"G8": 1, "F8": 1}]   # one turn: the presses cannot be told apart
    assert (f.tracker.presses_unseen, f.tracker.end_turns_merged) == (0, 1)


def test_a_restart_between_an_automatic_commit_and_its_end_turn_records_no_pass():
    """Ben's turn commits by itself, the camera service restarts, and Ben's End turn
    (a confirmation) reaches the new tracker, which cannot know it: it is not taken as
    Ann's pass, which would move every later turn to the wrong player."""
    f = Feed(FIRST)
    f.second_turn_commits_by_itself()
    assert [t.player for t in f.match.turns] == ["Ann", "Ben"]
    f.tracker = TurnTracker(MatchSink(f.match))    # the service starts again here
    f.still(2)
    f.tracker.end_turn()                            # Ben confirms
    assert [t.player for t in f.match.turns] == ["Ann", "Ben"]
    assert f.tracker.resumed_presses_ignored == 1
    f.tracker.end_turn()                            # pressed again: Ann passes
    assert [t.player for t in f.match.turns] == ["Ann", "Ben", "Ann"]


def test_after_a_restart_tiles_and_late_presses_are_turns_as_before():
    f = Feed(FIRST)
    f.tracker = TurnTracker(MatchSink(f.match))
    f.still(30)                                     # six seconds on: a pass is a pass
    f.tracker.end_turn()
    assert [t.placed for t in f.match.turns] == [FIRST, {}]
    f.tracker = TurnTracker(MatchSink(f.match))    # another restart
    f.put("G8", 1)
    f.still(2)
    f.tracker.end_turn()                            # something new: a turn at once
    assert f.match.turns[-1].placed == {"G8": 1}
    assert f.tracker.resumed_presses_ignored == 0
