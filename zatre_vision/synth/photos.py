"""``zatre synth photos``: single photos of boards from simulated play, with ground truth."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..rules.board import NEIGHBOURS, cell_index, cell_name
from ..simulate import Simulation
from .config import SynthConfig
from .occluders import Arm, sample_arm, sample_look
from .scene import Renderer, SceneSetup
from .sensor import encode_jpeg
from .tiles import sample_pose


@dataclass(frozen=True)
class GameBoards:
    """Board after each turn of one simulated game (index 0: empty board)."""

    seed: int
    players: tuple[str, ...]
    boards: tuple[dict[str, int], ...]


def simulate_boards(seed: int, group: int) -> GameBoards:
    rng = np.random.default_rng([seed, 2, group])
    kinds = tuple(str(k) for k in rng.choice(["random", "greedy"], size=2))
    sim_seed = int(rng.integers(2**31))
    sim = Simulation(["Ann", "Ben"], sim_seed, players=list(kinds))
    boards = [{}] + [turn.board for turn in sim]
    return GameBoards(sim_seed, kinds, tuple(boards))


def _arm_targets(rng: np.random.Generator, board: dict[str, int]) -> str:
    """A cell a hand would reach for: an occupied cell or an empty neighbour of one."""
    if not board or rng.random() < 0.15:
        return cell_name(int(rng.choice(list(NEIGHBOURS))))
    name = list(board)[int(rng.integers(len(board)))]
    if rng.random() < 0.5:
        return name
    return cell_name(int(rng.choice(NEIGHBOURS[cell_index(name)])))


def photo_arms(rng: np.random.Generator, cfg: SynthConfig, setup: SceneSetup,
               board: dict[str, int], sprites_ok: bool = True) -> list[Arm]:
    occ = cfg.occluders
    if rng.random() >= occ.photo_hand_probability:
        return []
    cam = setup.camera
    count = 2 if rng.random() < occ.second_hand_probability else 1
    arms = []
    for _ in range(count):
        name = _arm_targets(rng, board)
        col, row = ord(name[0]) - 65, int(name[1:]) - 1
        if setup.board:
            target = cam.project(np.array([[col + 0.5, row + 0.5]]))[0]
            cell_px = cam.cell_size_px(col + 0.5, row + 0.5)
        else:
            target = np.array([rng.uniform(0.2, 0.8) * cam.width, rng.uniform(0.2, 0.8) * cam.height])
            cell_px = cam.cell_size_px(7.5, 7.5)
        held = None
        if sprites_ok and rng.random() < occ.hold_tile_probability:
            held = (int(rng.integers(1, 7)), int(rng.integers(4)))
        arms.append(sample_arm(rng, occ, cam.width, cam.height, tuple(target), cell_px,
                               float(rng.uniform(0.55, 1.0)), held, look=sample_look(rng, occ)))
    return arms


def render_photo(renderer: Renderer, cfg: SynthConfig, seed: int, index: int,
                 games: dict[int, GameBoards], quality: int | None = None) -> tuple[bytes, dict]:
    """Photo number ``index`` of the run ``seed``: JPEG bytes and truth."""
    rng = np.random.default_rng([seed, 1, index])
    sc = cfg.scene
    group = index // sc.games_per_photo_group
    if group not in games:
        games.clear()
        games[group] = simulate_boards(seed, group)
    game = games[group]
    has_board = rng.random() >= sc.no_board_probability
    turn = 0 if rng.random() < sc.empty_board_probability else int(rng.integers(len(game.boards)))
    board = dict(game.boards[turn]) if has_board else {}
    setup = renderer.sample_setup(rng, board=has_board, quality=quality)
    tiles = {name: sample_pose(rng, cfg.tiles, v) for name, v in board.items()}
    arms = photo_arms(rng, cfg, setup, board)
    img, truth = renderer.render(setup, tiles, arms, rng)
    jpeg = encode_jpeg(img, setup.sensor.quality)
    truth = {"image": f"{index:06d}.jpg", **truth,
             "game": {"seed": game.seed, "players": list(game.players), "turn": turn}}
    return jpeg, truth


def generate_photos(out: Path, n: int, seed: int, width: int, height: int,
                    quality: int | None = None, cfg: SynthConfig | None = None,
                    progress: bool = True) -> None:
    cfg = cfg or SynthConfig()
    out.mkdir(parents=True, exist_ok=True)
    renderer = Renderer(cfg, seed, width, height)
    games: dict[int, GameBoards] = {}
    for i in tqdm(range(1, n + 1), desc="synth photos", unit="photo", file=sys.stderr,
                  disable=not progress):
        jpeg, truth = render_photo(renderer, cfg, seed, i, games, quality)
        (out / f"{i:06d}.jpg").write_bytes(jpeg)
        (out / f"{i:06d}.json").write_text(json.dumps(truth) + "\n")
