"""``zatre synth game``: a whole simulated game as a frame sequence in the ``zatre replay``
folder format, with the turn records and per-frame truth.

Per tile: a hand reaches in holding the tile, lowers it onto the cell, lets go and
withdraws, then the board stands still for a few frames. Turns that hold tiles back
show the hand hesitating with a tile it does not place. ``events.jsonl`` marks the end
of every turn at its last still frame, which is also the turn's commit frame.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..rules.board import NEIGHBOURS, cell_index
from ..simulate import SimTurn, Simulation
from .config import SynthConfig
from .occluders import Arm, sample_arm, sample_look
from .scene import Renderer
from .sensor import encode_jpeg
from .tiles import TilePose, sample_pose

FPS = 5
SEAT_SIDES = (2, 0, 3, 1)  # bottom, top, left, right


def placement_order(board: dict[str, int], placed: dict[str, int]) -> list[str]:
    """Placed cells in an order a person would lay them: each touches what lies already."""
    have = {cell_index(n) for n in board}
    left = [n for n in placed]
    order: list[str] = []
    while left:
        pick = next((n for n in left if not have or any(m in have for m in
                                                          NEIGHBOURS[cell_index(n)])), left[0])
        order.append(pick)
        have.add(cell_index(pick))
        left.remove(pick)
    return order


#: still frames after the last turn (1 s at 5 frames a second)
TAIL_FRAMES = 5


def _plan(turns: list[SimTurn], rng: np.random.Generator) -> list[dict]:
    """The frame plan: per frame, the board change, the arm state and the turn end."""
    plan: list[dict] = []
    board: dict[str, int] = {}
    for t_index, turn in enumerate(turns):
        placed = dict(turn.result.placed)
        held_back = list(turn.hand)
        for v in placed.values():
            held_back.remove(v)
        for name in placement_order(board, placed):
            v = placed[name]
            steps = [0.45, 0.8] if rng.random() < 0.7 else [0.7]
            for reach in steps:
                plan.append({"turn": t_index, "arm": (name, reach, v)})
            plan.append({"turn": t_index, "arm": (name, 1.0, v)})
            plan.append({"turn": t_index, "put": (name, v), "arm": (name, 1.0, None)})
            plan.append({"turn": t_index, "arm": (name, float(rng.uniform(0.4, 0.65)), None)})
            for _ in range(int(rng.integers(1, 3))):
                plan.append({"turn": t_index})
            board[name] = v
        if held_back and board:
            # the player considers a tile and keeps it
            name = list(board)[int(rng.integers(len(board)))]
            v = held_back[int(rng.integers(len(held_back)))]
            plan.append({"turn": t_index, "arm": (name, float(rng.uniform(0.5, 0.8)), v)})
        for _ in range(int(rng.integers(1, 4))):
            plan.append({"turn": t_index})
        plan[-1]["end"] = True
    if turns:
        # the camera keeps running after the last turn: a recording that stopped with
        # the last end of turn could not show its tiles settled once the hand had gone
        plan.extend({"turn": len(turns) - 1} for _ in range(TAIL_FRAMES))
    return plan


@dataclass
class GameFrame:
    number: int
    image: np.ndarray  # BGR
    truth: dict  # per-frame truth: cells, hidden, hand, corners, turn, exposure
    end_of_turn: bool  # the turn's last still frame (an ``end_turn`` event follows it)


class GameScene:
    """One simulated game and its frame plan, rendered frame by frame on demand.

    Used by ``zatre synth game`` (which writes the frames to a folder) and by the
    synthetic camera of the live demo (which hands them to the pipeline)."""

    def __init__(self, seed: int, width: int, height: int, quality: int = 85,
                 max_turns: int | None = None, cfg: SynthConfig | None = None,
                 players: tuple[str, ...] = ("Ann", "Ben"), bump_frame: int | None = None,
                 bump: tuple[float, float, float] = (1.2, -0.8, 3.0)):
        self.cfg = cfg = cfg or SynthConfig()
        self.seed, self.width, self.height, self.quality = seed, width, height, quality
        self.players = tuple(players)
        self.bump_frame, self.bump = bump_frame, bump
        self._rng = rng = np.random.default_rng([seed, 3])
        self.kinds = [str(k) for k in rng.choice(["random", "greedy"], size=len(players))]
        sim = Simulation(list(players), int(rng.integers(2**31)), players=self.kinds)
        self.turns: list[SimTurn] = []
        while max_turns is None or len(self.turns) < max_turns:
            turn = sim.step()
            if turn is None:
                break
            self.turns.append(turn)
        self.record = sim.game.to_record()
        #: the pips left in each hand when the game played to its end (None when
        #: ``max_turns`` cut it short): the demo finishes its match with them
        self.minus = ({seat.name: seat.sheet.minus for seat in sim.game.seats}
                      if sim.game.over else None)
        self.plan = _plan(self.turns, rng)
        self.renderer = Renderer(cfg, seed, width, height)
        setup = self.renderer.sample_setup(rng, quality=quality)
        self.setup = replace(setup, sensor=replace(setup.sensor, motion=0.0))
        self.looks = {name: sample_look(rng, cfg.occluders) for name in players}
        self.entry_pos = {name: float(rng.uniform(0.25, 0.75)) for name in players}

    @property
    def starter(self) -> str:
        return self.turns[0].seat if self.turns else self.players[0]

    def __len__(self) -> int:
        return len(self.plan)

    def frames(self):
        """Render every frame in order (a generator of GameFrame)."""
        cfg, seed, width, height = self.cfg, self.seed, self.width, self.height
        setup = self.setup
        seats = {name: i for i, name in enumerate(self.players)}
        tiles: dict[str, TilePose] = {}
        exposure = 1.0
        for n, step in enumerate(self.plan, start=1):
            frng = np.random.default_rng([seed, 4, n])
            turn = self.turns[step["turn"]]
            if "put" in step:
                name, v = step["put"]
                tiles[name] = sample_pose(frng, cfg.tiles, v)
            if self.bump_frame is not None and n == self.bump_frame:
                setup = replace(setup, camera=setup.camera.moved(*self.bump))
            cam = setup.camera.jittered(frng, cfg.camera.game_jitter_deg)
            arms: list[Arm] = []
            if "arm" in step:
                name, reach, held = step["arm"]
                col, row = ord(name[0]) - 65, int(name[1:]) - 1
                target = cam.project(np.array([[col + 0.5, row + 0.5]]))[0]
                side = SEAT_SIDES[seats[turn.seat] % 4]
                arng = np.random.default_rng([seed, 5, step["turn"]])
                arm = sample_arm(arng, cfg.occluders, width, height, tuple(target),
                                 cam.cell_size_px(col + 0.5, row + 0.5), reach,
                                 None if held is None else (held, int(frng.integers(4))),
                                 side=side, look=self.looks[turn.seat])
                t = self.entry_pos[turn.seat]
                entry = [(t * width, -0.25 * height), (1.25 * width, t * height),
                         (t * width, 1.25 * height), (-0.25 * width, t * height)][side]
                arms = [replace(arm, entry=(float(entry[0]), float(entry[1])),
                                pinch=held is not None or reach >= 1.0)]
            exposure = float(np.clip(exposure + frng.normal(0, cfg.light.exposure_drift),
                                     0.85, 1.15))
            img, truth = self.renderer.render(setup, tiles, arms, frng, camera=cam,
                                              exposure_scale=exposure)
            info = {"frame": n, "cells": truth["cells"], "hidden": truth["hidden"],
                    "hand": bool(arms), "corners": truth["corners"], "turn": step["turn"] + 1,
                    "exposure": round(exposure, 4)}
            yield GameFrame(n, img, info, bool(step.get("end")))


def generate_game(out: Path, seed: int, width: int, height: int, quality: int = 85,
                  max_turns: int | None = None, cfg: SynthConfig | None = None,
                  players: tuple[str, ...] = ("Ann", "Ben"), progress: bool = True,
                  bump_frame: int | None = None, bump: tuple[float, float, float] = (1.2, -0.8, 3.0)
                  ) -> dict:
    """Render the game into ``out``; returns the truth object also written to
    ``truth.json``.

    ``bump_frame``: from that frame on, the board lies moved by ``bump`` = (du, dv in
    grid units, turn in degrees), as when someone knocks it mid-game."""
    scene = GameScene(seed, width, height, quality, max_turns, cfg, players, bump_frame, bump)
    out.mkdir(parents=True, exist_ok=True)
    frames: list[dict] = []
    turn_frames: list[int] = []
    for f in tqdm(scene.frames(), total=len(scene), desc="synth game", unit="frame",
                  file=sys.stderr, disable=not progress):
        (out / f"{f.number:06d}.jpg").write_bytes(encode_jpeg(f.image, quality))
        frames.append(f.truth)
        if f.end_of_turn:
            turn_frames.append(f.number)

    (out / "meta.json").write_text(json.dumps(
        {"players": list(players), "fps": FPS, "starter": scene.starter}) + "\n")
    (out / "events.jsonl").write_text(
        "".join(json.dumps({"frame": f, "event": "end_turn"}) + "\n" for f in turn_frames))
    truth_obj = {
        "seed": seed,
        "players": list(players),
        "strategies": scene.kinds,
        "record": scene.record,
        "turns": [{"player": t.seat, "placed": dict(t.result.placed), "hand": list(t.hand),
                   "frame": f} for t, f in zip(scene.turns, turn_frames, strict=True)],
        "frames": frames,
        "camera": scene.setup.camera.params(scene.cfg.cell_mm),
        "light": scene.setup.light.params(),
        "sensor": scene.setup.sensor.params(),
        "table": scene.setup.table_kind,
        "image_size": [width, height],
    }
    (out / "truth.json").write_text(json.dumps(truth_obj) + "\n")
    return truth_obj
