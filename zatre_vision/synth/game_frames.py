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
from dataclasses import replace
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
    return plan


def generate_game(out: Path, seed: int, width: int, height: int, quality: int = 85,
                  max_turns: int | None = None, cfg: SynthConfig | None = None,
                  players: tuple[str, ...] = ("Ann", "Ben"), progress: bool = True,
                  bump_frame: int | None = None, bump: tuple[float, float, float] = (1.2, -0.8, 3.0)
                  ) -> dict:
    """Render the game; returns the truth object also written to ``truth.json``.

    ``bump_frame``: from that frame on, the board lies moved by ``bump`` = (du, dv in
    grid units, turn in degrees), as when someone knocks it mid-game."""
    cfg = cfg or SynthConfig()
    rng = np.random.default_rng([seed, 3])
    kinds = [str(k) for k in rng.choice(["random", "greedy"], size=len(players))]
    sim = Simulation(list(players), int(rng.integers(2**31)), players=kinds)
    turns: list[SimTurn] = []
    while max_turns is None or len(turns) < max_turns:
        turn = sim.step()
        if turn is None:
            break
        turns.append(turn)
    record = sim.game.to_record()
    plan = _plan(turns, rng)

    out.mkdir(parents=True, exist_ok=True)
    renderer = Renderer(cfg, seed, width, height)
    setup = renderer.sample_setup(rng, quality=quality)
    setup = replace(setup, sensor=replace(setup.sensor, motion=0.0))
    looks = {name: sample_look(rng, cfg.occluders) for name in players}
    seats = {name: i for i, name in enumerate(players)}
    entry_pos = {name: float(rng.uniform(0.25, 0.75)) for name in players}
    tiles: dict[str, TilePose] = {}
    frames: list[dict] = []
    turn_frames: list[int] = []
    exposure = 1.0
    for n, step in enumerate(tqdm(plan, desc="synth game", unit="frame", file=sys.stderr,
                                  disable=not progress), start=1):
        frng = np.random.default_rng([seed, 4, n])
        turn = turns[step["turn"]]
        if "put" in step:
            name, v = step["put"]
            tiles[name] = sample_pose(frng, cfg.tiles, v)
        if bump_frame is not None and n == bump_frame:
            setup = replace(setup, camera=setup.camera.moved(*bump))
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
                             side=side, look=looks[turn.seat])
            t = entry_pos[turn.seat]
            entry = [(t * width, -0.25 * height), (1.25 * width, t * height),
                     (t * width, 1.25 * height), (-0.25 * width, t * height)][side]
            arms = [replace(arm, entry=(float(entry[0]), float(entry[1])),
                            pinch=held is not None or reach >= 1.0)]
        exposure = float(np.clip(exposure + frng.normal(0, cfg.light.exposure_drift), 0.85, 1.15))
        img, truth = renderer.render(setup, tiles, arms, frng, camera=cam, exposure_scale=exposure)
        (out / f"{n:06d}.jpg").write_bytes(encode_jpeg(img, quality))
        frames.append({"frame": n, "cells": truth["cells"], "hidden": truth["hidden"],
                       "hand": bool(arms), "corners": truth["corners"], "turn": step["turn"] + 1,
                       "exposure": round(exposure, 4)})
        if step.get("end"):
            turn_frames.append(n)

    starter = turns[0].seat if turns else players[0]
    (out / "meta.json").write_text(
        json.dumps({"players": list(players), "fps": FPS, "starter": starter}) + "\n")
    (out / "events.jsonl").write_text(
        "".join(json.dumps({"frame": f, "event": "end_turn"}) + "\n" for f in turn_frames))
    truth_obj = {
        "seed": seed,
        "players": list(players),
        "strategies": kinds,
        "record": record,
        "turns": [{"player": t.seat, "placed": dict(t.result.placed), "hand": list(t.hand),
                   "frame": f} for t, f in zip(turns, turn_frames, strict=True)],
        "frames": frames,
        "camera": setup.camera.params(cfg.cell_mm),
        "light": setup.light.params(),
        "table": setup.table_kind,
        "image_size": [width, height],
    }
    (out / "truth.json").write_text(json.dumps(truth_obj) + "\n")
    return truth_obj
