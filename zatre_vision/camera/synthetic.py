"""The synthetic demo camera: simulated games rendered frame by frame, live.

Each game is a :class:`~zatre_vision.synth.game_frames.GameScene`: a hand reaches in,
tiles go down one at a time, players pause and sometimes keep tiles back. Frames come
at ``fps`` (paced in real time unless ``realtime`` is off); the synthetic players
press "end turn" at the end of each turn, as the frame's ``events``. When a game ends
the next one starts with a new seed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from ..synth.game_frames import FPS, GameScene
from .base import Frame, SourceError, make_lores


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
        self._new_game = {"players": list(self.players), "starter": self._scene.starter}
        self._game += 1

    def read(self) -> Frame | None:
        if self._scene is None:
            raise SourceError("the synthetic camera is not open")
        while self._frames is not None:
            f = next(self._frames, None)
            if f is None:
                self._start_game()
                continue
            self._count += 1
            due = self._t0 + self._count / self.fps
            if self.realtime and (wait := due - self._clock()) > 0:
                self._sleep(wait)
            new_game, self._new_game = self._new_game, None
            return Frame(f.image, make_lores(f.image), self._count, self._count / self.fps,
                         events=("end_turn",) if f.end_of_turn else (), new_game=new_game)
        return None

    def close(self) -> None:
        self._frames = None
