"""The synthetic demo camera: simulated games rendered frame by frame, live.

Each game is a :class:`~zatre_vision.synth.game_frames.GameScene`: a hand reaches in,
tiles go down one at a time, players pause and sometimes keep tiles back. Frames come
at ``fps`` (paced in real time unless ``realtime`` is off); the synthetic players
press "end turn" at the end of each turn, as the frame's ``events``. When a game ends
the board stays still: ``SETTLE_S`` for its last turn to commit, then the result for
``RESULT_S`` (frames marked ``game_over`` with the minus points, so the table finishes
the match and shows the winner), then the next game starts with a new seed. In real
time the result's seconds are the clock's: a reader that fell behind (a loaded machine,
a Pi) gets no burst of missed frames that would cut the winner's time on view short.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

from ..synth.game_frames import FPS, GameScene
from .base import Frame, SourceError, make_lores

#: Seconds of still board after a game's last turn for it to commit (its final frame
#: finishes the match whatever happened), then seconds the result stays on view.
SETTLE_S = 4.0
RESULT_S = 10.0


class SyntheticSource:
    def __init__(self, seed: int = 1, width: int = 960, height: int = 720,
                 players: tuple[str, ...] = ("Ann", "Ben"), fps: float = FPS,
                 realtime: bool = True, max_turns: int | None = None, games: int | None = None,
                 clock=time.monotonic, sleep=time.sleep):
        self.name = "synthetic"
        self.seed, self.size, self.players = seed, (width, height), tuple(players)
        self.fps, self.realtime, self.max_turns, self.games = fps, realtime, max_turns, games
        self._clock, self._sleep = clock, sleep
        self._frames: Iterator | None = None
        self._scene: GameScene | None = None
        self._game = 0
        self._count = 0
        self._t0 = 0.0
        self._new_game: dict | None = None
        self._after: list[Frame] = []  # the still frames after a finished game
        self._result_shown = False
        self._last = None
        #: real time: the still result frame and when its time on view ends (a clock
        #: time, not a frame count: a loaded machine must not catch up on it)
        self._still: Frame | None = None
        self._result_until: float | None = None

    def open(self) -> None:
        self._t0 = self._clock()
        self._count = 0
        self._start_game()

    def _start_game(self) -> None:
        if self.games is not None and self._game >= self.games:
            self._frames = None
            return
        self._scene = GameScene(self.seed + self._game, *self.size, max_turns=self.max_turns,
                                players=self.players)
        self._frames = self._scene.frames()
        self._result_shown = False
        self._last = None
        self._new_game = {"players": list(self.players), "starter": self._scene.starter}
        self._game += 1

    def read(self) -> Frame | None:
        if self._scene is None:
            raise SourceError("the synthetic camera is not open")
        while self._frames is not None:
            if self._after:
                frame = self._after.pop(0)
                if not self._after and self._still is not None:  # the final frame
                    self._result_until = self._clock() + RESULT_S
                return self._paced(frame)
            if self._result_until is not None:
                if self._clock() < self._result_until:
                    return self._paced(self._still, catch_up=False)
                self._result_until = self._still = None
                self._start_game()
                continue
            f = next(self._frames, None)
            if f is None:
                if not self._result_shown:
                    self._result_shown = True
                    self._after = self._result_frames()
                else:
                    self._start_game()
                continue
            self._last = f.image
            new_game, self._new_game = self._new_game, None
            return self._paced(Frame(f.image, make_lores(f.image), 0, 0.0,
                                     events=("end_turn",) if f.end_of_turn else (),
                                     new_game=new_game))
        return None

    def _paced(self, frame: Frame, catch_up: bool = True) -> Frame:
        """The frame numbered and timed, waiting for its due time when real-time.
        ``catch_up`` off (the result on view): a reader that fell behind gets the frame
        at once, and the frames after it come at ``fps`` from now, not faster."""
        self._count += 1
        due = self._t0 + self._count / self.fps
        if self.realtime:
            wait = due - self._clock()
            if wait > 0:
                self._sleep(wait)
            elif not catch_up:
                self._t0 -= wait  # behind: the schedule starts again from now
        return replace(frame, index=self._count, time=self._count / self.fps)

    def _result_frames(self) -> list[Frame]:
        """A finished game's still board: ``SETTLE_S`` then ``RESULT_S`` seconds of it,
        marked ``game_over``; the next game starts after the last one. A game cut short
        (``max_turns``) has no result: the next starts at once."""
        scene = self._scene
        if scene is None or scene.minus is None or self._last is None:
            return []
        settle, result = round(SETTLE_S * self.fps), max(1, round(RESULT_S * self.fps))
        lores = make_lores(self._last)
        out = []
        # real time: the settle frames and the final one; the result then stays on view
        # for RESULT_S seconds of the clock (read); counted frames otherwise
        count = settle + 1 if self.realtime else settle + result
        for k in range(count):
            over = {"minus": dict(scene.minus), "turns": len(scene.turns),
                    "final": k == settle}
            out.append(Frame(self._last, lores, 0, 0.0, game_over=over))
        if self.realtime:
            self._still = replace(out[-1], game_over={**out[-1].game_over, "final": False})
        return out

    def close(self) -> None:
        self._frames = None
