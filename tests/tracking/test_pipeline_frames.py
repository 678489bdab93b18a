"""The live pipeline on rendered game frames: the real motion gate and tracker, with
the board reads taken from the ground truth (see tests/fakes.py)."""

import json
from pathlib import Path

import numpy as np
import pytest

from zatre_vision.camera.base import SourceError
from zatre_vision.camera.folder import FolderSource, read_meta
from zatre_vision.camera.reconnect import ReconnectingSource
from zatre_vision.match import Match
from zatre_vision.synth.game_frames import generate_game
from zatre_vision.tracking.pipeline import LivePipeline
from zatre_vision.tracking.replay import replay_folder
from zatre_vision.tracking.sink import MatchSink
from zatre_vision.tracking.tracker import ALL_CELLS

from ..fakes import TruthReader


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    out = tmp_path_factory.mktemp("game")
    truth = generate_game(out, 21, 640, 480, max_turns=8, progress=False)
    return out, truth


@pytest.fixture(scope="module")
def bumped_game(tmp_path_factory):
    out = tmp_path_factory.mktemp("bumped")
    truth = generate_game(out, 22, 640, 480, max_turns=8, progress=False, bump_frame=70)
    return out, truth


def assert_turns_match(out, truth):
    got = [(t["player"], t["placed"]) for t in out["turns"]]
    want = [(t["player"], t["placed"]) for t in truth["turns"]]
    assert got == want
    assert all(t["legal"] for t in out["turns"])
    for turn, true_turn in zip(out["turns"], truth["turns"], strict=True):
        assert turn["frame"] <= true_turn["frame"]  # committed by the turn's end at the latest


def test_replay_commits_every_turn_once_with_its_frame(game):
    folder, truth = game
    out = replay_folder(folder, TruthReader(truth["frames"]))
    assert_turns_match(out, truth)
    frames = [t["frame"] for t in out["turns"]]
    assert frames == sorted(set(frames))


def test_a_board_moved_mid_game_loses_nothing(bumped_game):
    folder, truth = bumped_game
    before = truth["frames"][68]["corners"][0]
    after = truth["frames"][72]["corners"][0]
    assert abs(before[0] - after[0]) + abs(before[1] - after[1]) > 10  # it really moved
    out = replay_folder(folder, TruthReader(truth["frames"]))
    assert_turns_match(out, truth)


class FlakySource:
    """A folder source whose camera disappears for a stretch of frames."""

    def __init__(self, folder, gone):
        self.inner = FolderSource(folder)
        self.name = "flaky"
        self.gone = gone
        self.opens = 0
        self.reads = 0

    def open(self):
        self.opens += 1
        if self.opens == 1:
            self.inner.open()
        elif self.opens % 3 == 2:
            raise SourceError("no camera")  # some reconnection attempts fail

    def read(self):
        self.reads += 1
        if self.reads in self.gone:
            self.inner.read()  # the frame happens, but nobody sees it
            raise SourceError("camera unplugged")
        return self.inner.read()

    def close(self):
        pass


def test_camera_vanishing_and_returning_mid_game(game):
    folder, truth = game
    # the camera is away for frames 40-47, across a tile being placed
    flaky = FlakySource(folder, set(range(40, 48)))
    clock = [0.0]
    states = []
    source = ReconnectingSource(flaky, first_delay=0.1, sleep=lambda s: clock.__setitem__(0, clock[0] + s),
                                clock=lambda: clock[0], on_status=lambda st: states.append(st.state))
    source.open()
    by_frame = {f["frame"]: f for f in truth["frames"]}
    seen = []

    class Reader:
        def read(self, image):
            return TruthReader([by_frame[seen[-1]]]).read(image)

    meta = read_meta(Path(folder))
    match = Match(meta.players, starter=meta.starter)
    pipeline = LivePipeline(Reader(), MatchSink(match))
    while not source.ended:
        frame = source.read()
        if frame is None:
            clock[0] += 0.2
            continue
        seen.append(frame.index)
        pipeline.process(frame)
        for event in meta.events.get(frame.index, []):
            pipeline.event(event)
    assert "reconnecting" in states and states[-1] == "ended"
    assert source.status.reconnects >= 1
    assert not set(range(40, 48)) & set(seen)
    got = [(t.player, t.placed) for t in match.turns]
    assert got == [(t["player"], t["placed"]) for t in truth["turns"]]


def test_replay_folder_errors_are_clear(tmp_path):
    with pytest.raises(SourceError, match="no such folder"):
        replay_folder(tmp_path / "missing", TruthReader([]))
    (tmp_path / "meta.json").write_text(json.dumps({"players": "Ann"}))
    with pytest.raises(SourceError, match="players"):
        replay_folder(tmp_path, TruthReader([]))
    (tmp_path / "meta.json").write_text(json.dumps({"players": ["Ann", "Ben"]}))
    with pytest.raises(SourceError, match="no JPEG or PNG"):
        replay_folder(tmp_path, TruthReader([]))
    (tmp_path / "events.jsonl").write_text('{"frame": 3, "event": "explode"}\n')
    with pytest.raises(SourceError, match="event must be one of"):
        replay_folder(tmp_path, TruthReader([]))


class BlurredFrom(TruthReader):
    """Perfect reads until the ``start``-th read (1-based), then every frame is one the
    reader cannot read (a doubtful frame: all cells uncertain), as when the camera
    is knocked out of focus."""

    def __init__(self, truth_frames, start):
        super().__init__(truth_frames)
        self.start = start

    def read(self, image):
        read = super().read(image)
        if self._k >= self.start:
            read.cells, read.uncertain, read.occluded = {}, list(ALL_CELLS), []
            read.doubtful_frame = True
        return read


def test_turns_ended_while_the_camera_is_out_of_focus_are_not_taken_for_passes(game):
    folder, truth = game
    turns = truth["turns"]
    start = turns[2]["frame"] + 1            # out of focus from just after the 3rd turn
    out = replay_folder(folder, BlurredFrom(truth["frames"], start))
    got = [(t["player"], t["placed"]) for t in out["turns"]]
    assert got == [(t["player"], t["placed"]) for t in turns[:3]]
    stats = out["replay"]
    assert stats["frames_unreadable"] == stats["frames_read"] - (start - 1)
    # the End turns after it wait, never ended: every one of them counted
    assert stats["end_turns_unseen"] == len(turns) - 3
    assert stats["end_turns_merged"] == 0


def test_zatre_replay_warns_when_the_recording_ends_with_a_turn_it_never_saw(game, monkeypatch):
    from click.testing import CliRunner

    from zatre_vision.apps import vision_cli
    from zatre_vision.apps.tracking_cli import replay

    folder, truth = game
    blurred = BlurredFrom(truth["frames"], truth["turns"][2]["frame"] + 1)
    blurred.calibration = "saved"            # a fixed camera: the live reader passes through
    monkeypatch.setattr(vision_cli, "_reader", lambda model, calibration, markers: blurred)
    result = CliRunner().invoke(replay, [str(folder), "--no-progress"])
    assert result.exit_code == 0
    assert len(json.loads(result.stdout)["turns"]) == 3
    assert result.stderr.startswith("warning: the recording ended while an End turn waited")
    assert result.stderr.endswith(f"the {len(truth['turns']) - 3} turns ended meanwhile "
                                  "are not in the result\n")


class UnreadableTile(TruthReader):
    """Perfect reads, except that ``cell`` is uncertain (no hand near) in every frame
    up to ``until``: a tile the classifier cannot read until the light or the focus
    changes. ``sure``: the network's odds still say "a tile" there (its value is what
    it cannot tell)."""

    def __init__(self, truth_frames, cell, until, sure=False):
        super().__init__(truth_frames)
        self.cell, self.until, self.sure = cell, until, sure

    def read(self, image):
        frame = self._frames[self._k]["frame"]
        read = super().read(image)
        if frame <= self.until and self.cell in read.cells:
            del read.cells[self.cell]
            read.uncertain.append(self.cell)
            if self.sure:
                read.probabilities = np.zeros((len(ALL_CELLS), 8), np.float32)
                read.probabilities[ALL_CELLS.index(self.cell)] = [
                    0.02, 0.08, 0.1, 0.2, 0.3, 0.2, 0.1, 0.0]
        return read


def _unreadable_until_the_next_turn(truth):
    turn, after = truth["turns"][2], truth["turns"][3]
    cell = sorted(turn["placed"])[-1]            # I7: its neighbour I6 is read, it is not
    until = after["frame"] - 3                   # past the End turn's 2 s, in the next turn
    assert until > turn["frame"] + 10
    return cell, until


def test_a_tile_the_reader_knows_is_there_joins_its_turn_when_read_late(game):
    """The next player's hand passes over I7 before it reads: a tile the reader was
    sure lay there at the press (its value unread) is still the turn's."""
    folder, truth = game
    cell, until = _unreadable_until_the_next_turn(truth)
    out = replay_folder(folder, UnreadableTile(truth["frames"], cell, until, sure=True))
    got = [(t["player"], t["placed"]) for t in out["turns"]]
    assert got == [(t["player"], t["placed"]) for t in truth["turns"]]
    assert all(t["legal"] for t in out["turns"])
    assert out["replay"]["late_tiles"] == 1
    assert out["replay"]["turns_waiting"] == 0
    # the turn waited at its End turn for I7 (it never committed short, nor flagged)
    assert out["replay"]["waited_s"][2] > 2.0
    assert out["turns"][2]["frame"] == truth["turns"][2]["frame"]


def test_a_doubted_cell_a_hand_went_over_leaves_the_turn_waiting_not_wrong(game):
    """Without that certainty the tile on I7 may be the next player's (a hand went
    over it): the turn waits for the operator and the later turns queue behind it;
    nothing is committed wrong."""
    folder, truth = game
    cell, until = _unreadable_until_the_next_turn(truth)
    out = replay_folder(folder, UnreadableTile(truth["frames"], cell, until))
    got = [(t["player"], t["placed"]) for t in out["turns"]]
    assert got == [(t["player"], t["placed"]) for t in truth["turns"][:2]]
    assert out["replay"]["waiting_cells"] == [cell]
    assert out["replay"]["turns_waiting"] == len(truth["turns"]) - 2


def test_zatre_replay_warns_when_the_recording_ends_with_a_turn_waiting(game, monkeypatch):
    from click.testing import CliRunner

    from zatre_vision.apps import vision_cli
    from zatre_vision.apps.tracking_cli import replay

    folder, truth = game
    cell, until = _unreadable_until_the_next_turn(truth)
    reader = UnreadableTile(truth["frames"], cell, until)
    reader.calibration = "saved"             # a fixed camera: the live reader passes through
    monkeypatch.setattr(vision_cli, "_reader", lambda model, calibration, markers: reader)
    result = CliRunner().invoke(replay, [str(folder), "--no-progress"])
    assert result.exit_code == 0
    assert len(json.loads(result.stdout)["turns"]) == 2
    later = len(truth["turns"]) - 3
    assert result.stderr == (f"warning: the recording ended while a turn waited for {cell}, "
                             "which the camera could not read: that turn is not in the "
                             f"result ({later} later turns queued behind it)\n")
