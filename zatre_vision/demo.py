"""A simulated game that plays itself at a table (``zatre serve --demo``).

:class:`DemoDriver` feeds the turns of a :class:`~zatre_vision.simulate.Simulation`
into :meth:`Table.commit_turn` on a timer thread, with a small snapshot picture per
turn, and, when a game ends, finishes the match with the minus points (it gets a winner),
leaves the result on view for ``RESULT_S`` seconds and starts a new one. It is the stand-in for the camera
pipeline: replace ``_next_turn`` with synthetic frames -> vision -> tracker and
nothing else changes. Interface: ``start()``, ``stop()``, ``tick()`` (one step, for
tests).
"""

from __future__ import annotations

import logging
import random
import threading
import time

from .match import MatchError
from .rules.board import LIGHT, NAMES, START, row_col
from .simulate import Simulation
from .table import Table

log = logging.getLogger(__name__)

DEMO_PLAYERS = ("Ann", "Ben", "Cleo")

#: Seconds a finished demo game's result (its winner, the minus points) stays on view
#: before the next game starts.
RESULT_S = 10.0


def render_snapshot(board: dict[str, int], new: dict[str, int] | None = None,
                    size: int = 180) -> bytes | None:
    """A small JPEG of the board (dark board, white grid, pips as numbers), the newest
    tiles outlined. None when OpenCV is not available."""
    try:
        import cv2
        import numpy as np
    except ImportError:  # pragma: no cover - opencv is a core dependency
        return None
    cell = size // 15
    img = np.full((cell * 15, cell * 15, 3), (38, 34, 30), np.uint8)
    for index, name in NAMES.items():
        r, c = row_col(index)
        x, y = c * cell, r * cell
        colour = (60, 60, 200) if index == START else (
            (150, 150, 150) if index in LIGHT else (55, 50, 45))
        cv2.rectangle(img, (x, y), (x + cell - 1, y + cell - 1), colour, -1)
        cv2.rectangle(img, (x, y), (x + cell - 1, y + cell - 1), (230, 230, 230), 1)
        value = board.get(name)
        if value:
            cv2.rectangle(img, (x + 1, y + 1), (x + cell - 2, y + cell - 2), (235, 240, 245), -1)
            cv2.putText(img, str(value), (x + cell // 4, y + cell - cell // 4),
                        cv2.FONT_HERSHEY_SIMPLEX, cell / 30, (20, 20, 20), 1, cv2.LINE_AA)
            if new and name in new:
                cv2.rectangle(img, (x, y), (x + cell - 1, y + cell - 1), (0, 170, 255), 2)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return buf.tobytes() if ok else None


class DemoDriver:
    """Plays simulated games at ``table``, one turn every ``interval`` seconds."""

    def __init__(self, table: Table, interval: float = 2.0, players=DEMO_PLAYERS,
                 seed: int | None = None, result_s: float = RESULT_S, snapshots: bool = True,
                 fresh: bool = False, clock=time.monotonic):
        self.table = table
        self.interval = interval
        self.players = list(players)
        self.rng = random.Random(seed)
        self.result_s = result_s
        self.snapshots = snapshots
        self.clock = clock
        self.sim: Simulation | None = None
        self.sim_match_id: int | None = None
        self._result_until = 0.0  # the finished game's result is on view until then
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.games_finished = 0
        self._fresh = fresh  # start a new game at once, whatever the table holds

    def start(self) -> None:
        self.table.set_camera_status({"source": "demo", "state": "ok",
                                      "message": "simulated camera"})
        self._thread = threading.Thread(target=self._run, name="demo-driver", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - the demo must keep running
                log.exception("demo turn failed")

    def _new_game(self) -> None:
        seed = self.rng.randrange(2**31)
        sim = Simulation(self.players, seed)
        starter = sim.game.seat.name
        self.sim = sim
        self.sim_match_id = self.table.new_match(self.players, starter, source="demo")
        self.table.store.set_setting(f"demo_seed:{self.sim_match_id}", str(seed))

    def _adopt(self) -> bool:
        """After a restart: continue the table's unfinished demo match by replaying its
        seed to the same point. False when that is not possible."""
        t = self.table
        if t.match is None or t.match.finished or t.match_source != "demo":
            return False
        seed = t.store.get_setting(f"demo_seed:{t.match_id}")
        if seed is None or list(t.match.players) != self.players:
            return False
        sim = Simulation(self.players, int(seed))
        for _ in range(len(t.match.turns)):
            if sim.step() is None:
                return False
        if sim.game.board.to_dict() != t.current_board():
            return False
        self.sim, self.sim_match_id = sim, t.match_id
        return True

    def tick(self) -> None:
        """Play one step: a turn, the end of a game, or the start of the next one."""
        t = self.table
        if self._fresh:
            self._fresh = False
            self._new_game()
            return
        if self.sim is None or self.sim_match_id != t.match_id:
            if self._adopt():
                return
            if t.match is not None and not t.match.finished and t.match_source != "demo":
                return  # a real match is being played at this table: leave it alone
            if t.match is not None and t.match.finished and self.clock() < self._result_until:
                return
            self._new_game()
            return
        if t.match is None or t.match.finished:
            if self.clock() < self._result_until:
                return  # the winner and the minus points stay on view
            self._new_game()
            return
        if t.match.pending is not None:
            return  # an operator has to accept or reject the flagged turn first
        turn = self.sim.step()
        if turn is None:
            minus = {s.name: s.sheet.minus for s in self.sim.game.seats}
            t.finish(minus, source="demo")
            self.games_finished += 1
            self._result_until = self.clock() + self.result_s
            return
        placed = dict(turn.result.placed)
        snapshot = render_snapshot(turn.board, placed) if self.snapshots else None
        try:
            t.commit_turn(placed, turn.hand, snapshot, source="demo", player=turn.seat)
        except MatchError:
            # The table's board was corrected away from the simulation's: start afresh.
            self.sim = None
