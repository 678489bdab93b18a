"""The demo plays whole games (issue 39, item 2): after a game's last turn the
synthetic camera holds the still board, the table finishes the match with the game's
minus points (a winner), the result stays on view for 10 s, then a new game starts.
Frames are counted, not waited for: the source runs with ``realtime=False``."""

import numpy as np

from zatre_vision.camera import synthetic
from zatre_vision.camera.base import Frame, make_lores
from zatre_vision.store import open_store
from zatre_vision.synth.game_frames import GameScene
from zatre_vision.table import Table
from zatre_vision.tracking.service import CameraService

from .test_service import LiveTruthReader, SceneSource, play_through


class _Frame:
    def __init__(self, n, end):
        self.number, self.image, self.truth, self.end_of_turn = n, np.zeros((24, 32, 3), np.uint8), {}, end


class _TinyScene:
    """Two turns of three frames each, then the game is over with minus points."""

    def __init__(self, seed, width, height, max_turns=None, players=("Ann", "Ben")):
        self.seed, self.players, self.starter = seed, tuple(players), players[0]
        self.turns = [object(), object()]
        self.minus = {"Ann": 3, "Ben": 0}

    def frames(self):
        for n in range(1, 7):
            yield _Frame(n, n % 3 == 0)


def test_synthetic_source_holds_the_result_for_ten_seconds_then_starts_anew(monkeypatch):
    monkeypatch.setattr(synthetic, "GameScene", _TinyScene)
    src = synthetic.SyntheticSource(seed=5, fps=5, realtime=False, games=2)
    src.open()
    frames = []
    while (f := src.read()) is not None:
        frames.append(f)
    starts = [k for k, f in enumerate(frames) if f.new_game is not None]
    assert len(starts) == 2
    game_one = frames[:starts[1]]
    assert not any(f.game_over for f in game_one[:6])  # the turns' frames
    held = game_one[6:]
    per_game = (synthetic.SETTLE_S + synthetic.RESULT_S) * 5  # frames at 5 fps
    assert len(held) == per_game and all(f.game_over for f in held)
    assert all(f.game_over["minus"] == {"Ann": 3, "Ben": 0} and f.game_over["turns"] == 2
               for f in held)
    finals = [k for k, f in enumerate(held) if f.game_over["final"]]
    assert finals == [synthetic.SETTLE_S * 5]
    # from the final frame on, RESULT_S seconds of frames before the next game
    assert len(held) - finals[0] == synthetic.RESULT_S * 5
    assert [f.index for f in frames] == list(range(1, len(frames) + 1))


class _OverSource(SceneSource):
    """A short rendered game, then still frames marked game over."""

    def __init__(self, scene, truths, minus, hold=6):
        super().__init__(scene, truths)
        self.minus, self.hold, self.after = minus, hold, None

    def read(self):
        f = super().read()
        if f is not None:
            self.last = f
            return f
        if self.after is None:
            self.after = [
                Frame(self.last.image, make_lores(self.last.image), 0, 0.0,
                      game_over={"minus": self.minus, "turns": len(self.scene.turns),
                                 "final": k == 3}) for k in range(self.hold)]
        if not self.after:
            return None
        self.truths.append(self.truths[-1])
        return self.after.pop(0)


def test_the_service_finishes_the_demo_match_with_a_winner(tmp_path):
    scene = GameScene(seed=4, width=640, height=480, max_turns=3)
    truths = []
    store = open_store(tmp_path)
    table = Table(store, "demo")
    service = CameraService(table, _OverSource(scene, truths, {"Ann": 5, "Ben": 2}),
                            lambda: LiveTruthReader(truths))
    play_through(service)
    st = table.state()
    assert st["source"] == "demo" and st["finished"] and st["turns_played"] == 3
    assert {p: s["minus"] for p, s in st["sheets"].items()} == {"Ann": 5, "Ben": 2}
    assert st["winners"] and [e["kind"] for e in store.events(st["match_id"])][-1] == "finish"
    store.close()


def test_in_real_time_the_result_stays_ten_seconds_of_the_clock_on_a_loaded_machine(
        monkeypatch):
    """A reader far behind the frames' schedule (a busy 2-core machine, a Pi): the
    result still stays RESULT_S seconds of the clock on view, not a burst of frames."""
    monkeypatch.setattr(synthetic, "GameScene", _TinyScene)
    now = [0.0]

    def sleep(s):
        now[0] += s

    src = synthetic.SyntheticSource(seed=5, fps=5, realtime=True, games=2,
                                    clock=lambda: now[0], sleep=sleep)
    src.open()
    now[0] += 30.0                  # the reader fell 30 s behind: every frame is overdue
    seen = []
    while (f := src.read()) is not None:
        seen.append((now[0], f))
        now[0] += 0.05              # each frame takes the reader 50 ms
        if len(seen) > 2000:
            break
    starts = [k for k, (_, f) in enumerate(seen) if f.new_game is not None]
    assert len(starts) == 2
    game_one = seen[:starts[1]]
    final = next(k for k, (_, f) in enumerate(game_one) if f.game_over and f.game_over["final"])
    on_view = seen[starts[1]][0] - game_one[final][0]
    assert synthetic.RESULT_S <= on_view < synthetic.RESULT_S + 1, on_view
    assert all(f.game_over for _, f in game_one[final:])
    assert sum(1 for _, f in game_one if f.game_over and f.game_over["final"]) == 1
