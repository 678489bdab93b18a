"""Rules-engine benchmark: move generation and turn checks on mid-game boards.

Positions come from simulated games (greedy players) stopped once 60 or more tiles
are down. For each position it times, on one core:

- ``legal_placements`` for a random two-tile hand (every legal placement);
- ``check_turn`` with a known hand of three tiles, for the move a player would make
  with that hand (the greedy choice);
- the same for a turn that keeps one of three tiles back (the check must search for
  a way to place all three), and for fixed hard and easy hands (6-6-6, 5-6-6, 1-1-1,
  2-3-4), whose best turn often keeps tiles back or covers a bare light cell.
"""

from __future__ import annotations

import platform
import random
import statistics
import time
from datetime import datetime, timezone

from ..rules.board import cell_index
from ..rules.moves import legal_placements, ranked_moves
from ..rules.search import placement_nonscoring_light
from ..rules.sheet import ScoreSheet
from ..rules.turn import check_turn
from ..simulate import Simulation

MIN_TILES = 60
HARD_HANDS = ([6, 6, 6], [5, 6, 6], [1, 1, 1], [2, 3, 4])


def mid_game_positions(count: int, seed: int = 2026):
    """(board, bag contents) pairs with at least MIN_TILES tiles, from simulated games."""
    rng = random.Random(seed)
    out = []
    game_seed = seed
    while len(out) < count:
        game_seed += 1
        seats = ["A", "B", "C"][: rng.choice([2, 3])]
        # random players leave open, ragged boards; greedy ones tight, scored lines
        sim = Simulation(seats, game_seed, [rng.choice(["random", "greedy"]) for _ in seats])
        stop_at = rng.randrange(MIN_TILES, 91)
        while not sim.game.over and sim.game.board.count < stop_at:
            sim.step()
        if sim.game.board.count >= MIN_TILES and len(sim.game.bag) >= 3:
            out.append((sim.game.board.copy(), sorted(sim.game.bag.contents().elements())))
    return out


def _time_ms(fn, repeat: int) -> float:
    """Best-of-``repeat`` wall time of ``fn()`` in milliseconds (noise-resistant)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1000.0


def _summary(samples: list[float], unit: str = "ms") -> dict:
    ordered = sorted(samples)
    return {
        "n": len(samples),
        f"median_{unit}": round(statistics.median(samples), 3),
        f"p90_{unit}": round(ordered[int(0.9 * (len(ordered) - 1))], 3),
        f"max_{unit}": round(ordered[-1], 3),
        f"mean_{unit}": round(statistics.fmean(samples), 3),
    }


def run_rules_benchmark(positions: int = 40, seed: int = 2026, repeat: int = 3,
                        progress: bool = False) -> dict:
    rng = random.Random(seed)
    boards = mid_game_positions(positions, seed)
    enum_ms, check_ms, held_ms, fixed_ms, counts = [], [], [], [], []
    kinds = {"all placed": 0, "kept back": 0, "bare light cell": 0}
    iterator = boards
    if progress:
        from tqdm import tqdm

        iterator = tqdm(boards, desc="positions", unit="pos")
    for board, bag in iterator:
        hand2 = rng.sample(bag, 2)
        counts.append(float(len(legal_placements(board, hand2))))
        enum_ms.append(_time_ms(lambda b=board, h=hand2: legal_placements(b, h), repeat))
        hand3 = rng.sample(bag, 3)
        placed = ranked_moves(board, hand3, ScoreSheet())[0].placed
        if not check_turn(board, placed, hand=hand3).legal:
            raise AssertionError(f"generated move rejected: {placed} for {hand3}")
        kinds["kept back" if len(placed) < 3 else "all placed"] += 1
        index_placement = tuple((cell_index(c), v) for c, v in placed.items())
        if placement_nonscoring_light(board, index_placement):
            kinds["bare light cell"] += 1
        check_ms.append(_time_ms(lambda b=board, p=placed, h=hand3: check_turn(b, p, hand=h), repeat))
        # A turn that keeps one of the three back: the check must search for a way to
        # place all three (exhaustively, when there is none).
        two = legal_placements(board, hand3[:2])[0]
        held_ms.append(_time_ms(lambda b=board, p=two, h=hand3: check_turn(b, p, hand=h), repeat))
        # Hands that are hard to place (high tiles) or easy (ones): the best legal turn
        for fixed in HARD_HANDS:
            best = legal_placements(board, fixed)[0]
            fixed_ms.append(_time_ms(lambda b=board, p=best, h=fixed: check_turn(b, p, hand=h),
                                     repeat))
    enum = _summary(enum_ms)
    check = _summary(check_ms)
    held = _summary(held_ms)
    fixed = _summary(fixed_ms)
    return {
        "benchmark": "rules",
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "machine": {"python": platform.python_version(), "processor": platform.machine(),
                    "cores_used": 1},
        "positions": len(boards),
        "tiles_on_board": _summary([float(b.count) for b, _ in boards], "tiles"),
        "enumerate_two_tiles": enum | {"target_median_ms": 20,
                                       "placements_per_position": _summary(counts, "placements")},
        "check_three_tile_hand": check | {"target_ms": 50, "turn_kinds": kinds},
        "check_three_tile_hand_one_kept_back": held | {"target_ms": 50},
        "check_fixed_hands": fixed | {"target_ms": 50, "hands": [list(h) for h in HARD_HANDS]},
        "summary": {
            "enumerate_two_tiles_median_ms": enum["median_ms"],
            "enumerate_two_tiles_target_ms": 20,
            "check_three_tile_hand_median_ms": check["median_ms"],
            "check_three_tile_hand_max_ms": check["max_ms"],
            "check_one_kept_back_median_ms": held["median_ms"],
            "check_one_kept_back_max_ms": held["max_ms"],
            "check_three_tile_hand_target_ms": 50,
            "check_fixed_hands_max_ms": fixed["max_ms"],
            "pass": enum["median_ms"] <= 20
            and max(check["max_ms"], held["max_ms"], fixed["max_ms"]) <= 50,
        },
    }

