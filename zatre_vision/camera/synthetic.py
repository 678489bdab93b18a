"""The synthetic demo camera: simulated games rendered frame by frame, live.

Each game is a :class:`~zatre_vision.synth.game_frames.GameScene`: a hand reaches in,
tiles go down one at a time, players pause and sometimes keep tiles back. Frames come
at ``fps`` (paced in real time unless ``realtime`` is off); the synthetic players
press "end turn" at the end of each turn, as the frame's ``events``. When a game ends
the board stays still: ``SETTLE_S`` for its last turn to commit, then the result for
``RESULT_S`` (frames marked ``game_over`` with the minus points, so the table finishes
the match and shows the winner), then the next game starts with a new seed.
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
                return self._paced(self._after.pop(0))
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

    def _paced(self, frame: Frame) -> Frame:
        """The frame numbered and timed, waiting for its due time when real-time."""
        self._count += 1
        due = self._t0 + self._count / self.fps
        if self.realtime and (wait := due - self._clock()) > 0:
            self._sleep(wait)
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
        for k in range(settle + result):
            over = {"minus": dict(scene.minus), "turns": len(scene.turns),
                    "final": k == settle}
            out.append(Frame(self._last, lores, 0, 0.0, game_over=over))
        return out

    def close(self) -> None:
        self._frames = None
