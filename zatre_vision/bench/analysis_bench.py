"""Analysis benchmark: how long ``zatre analyse`` takes for a whole match (one core).

Two parts, both on one core (this process, one thread):

- **the match**: the first 60 turns of a simulated 3-player game (a greedy and two
  random players, seeded), analysed as ``zatre analyse`` does. The baseline measured in
  the same run is replaying the same record (``zatre score``), so the result is also
  given as a ratio to it.
- **hard turns**: simulated games rarely reach a carried-over hand that allows many
  placements (none in 60 seeded 3-player games), yet a real player who kept back
  tiles for several turns can hold 6 to 9 small tiles on a full board. So the bench
  takes late boards (80 to 100 tiles) from simulated games with hands of 6 to 9 tiles
  of 1 to 3 pips drawn from what is left in the bag, and analyses each as a turn
  (``analyse_turn``, capped at ``ANALYSIS_LIMIT`` moves). Each is also analysed with a
  cap ten times larger, to show what the cap does: how often the best move found
  changes, and by how many points.

The worst case is the match with its three slowest hard turns added on top (an
ordinary turn costs a few milliseconds), against the target of 3 s. CPU time of this
process is the measure (``time.process_time``), best of ``repeat``, so other work on a
shared machine inflates it less; wall time is recorded beside it. The Pi 4 estimate
multiplies by the slowdown assumed in ``docs/pi-notes.md`` (a Cortex-A72 4x to 6x
slower than one core here; branchy pure Python like this is the 6x end).
"""

from __future__ import annotations

import platform
import random
import statistics
import time
from collections import Counter
from datetime import datetime, timezone

from ..rules.analysis import ANALYSIS_LIMIT, KnownHand, analyse_record, analyse_turn
from ..rules.record import RecordTurn, ReplayedTurn, parse_record, run_replay
from ..rules.sheet import ScoreSheet
from ..rules.tiles import TILE_SET
from ..rules.turn import TurnResult
from ..simulate import Simulation
from .results import current_commit

TARGET_S = 3.0
PI4_SLOWDOWN = (4.0, 6.0)
MATCH_TURNS = 60
MATCH_SEED = 2040
HARD_SIZES = (6, 7, 8, 9)


def _timed(fn, repeat: int) -> tuple[float, float, object]:
    """Best CPU seconds and best wall seconds of ``repeat`` runs, and the last result."""
    cpu = wall = float("inf")
    result = None
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        result = fn()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return cpu, wall, result


def bench_match(seed: int = MATCH_SEED, turns: int = MATCH_TURNS):
    """The benchmark's match: a 3-player simulated game cut to ``turns`` turns."""
    game = Simulation(["Ann", "Ben", "Cem"], seed, ["greedy", "random", "random"]).run(
        max_turns=turns)
    return parse_record(game.to_record())


def hard_turns(count: int, seed: int = MATCH_SEED) -> list[tuple]:
    """(board, hand) pairs: late boards with carried-over hands of 6-9 small tiles."""
    rng = random.Random(seed)
    out = []
    game_seed = seed
    while len(out) < count:
        game_seed += 1
        sim = Simulation(["A", "B", "C"], game_seed, ["greedy", "random", "random"])
        stop_at = rng.randrange(80, 101)
        while not sim.game.over and sim.game.board.count < stop_at:
            sim.step()
        board = sim.game.board
        left = Counter(TILE_SET)
        left.subtract(board.values[i] for i in board.occupied())
        small = [v for v in (1, 2, 3) for _ in range(max(0, left[v]))]
        size = HARD_SIZES[len(out) % len(HARD_SIZES)]
        if board.count >= 80 and len(small) >= size:
            out.append((board.copy(), tuple(sorted(rng.sample(small, size)))))
    return out


def _hard_turn(board, hand, limit):
    # the move played is not known here: the turn is analysed as one not counted
    replayed = ReplayedTurn(RecordTurn("A", {}, hand), TurnResult({}, False), False)
    return analyse_turn(board, ScoreSheet(), KnownHand(hand, True, "declared"), replayed, 1, limit)


def run_analysis_benchmark(hard: int = 8, repeat: int = 3, progress: bool = False,
                           command: str = "zatre bench analyse") -> dict:
    record = bench_match()
    base_cpu, base_wall, _ = _timed(lambda: run_replay(record), repeat)
    match_cpu, match_wall, analysis = _timed(lambda: analyse_record(record), repeat)
    per_turn = [t.placements for t in analysis.turns]
    hard_rows = []
    positions = hard_turns(hard)
    for n, (board, hand) in enumerate(positions, 1):
        cpu, wall, turn = _timed(lambda b=board, h=hand: _hard_turn(b, h, ANALYSIS_LIMIT), repeat)
        wide_cpu, _, wide = _timed(lambda b=board, h=hand: _hard_turn(b, h, 10 * ANALYSIS_LIMIT), 1)
        hard_rows.append({
            "tiles_on_board": board.count, "hand": list(hand),
            "capped": turn.capped, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
            "best_points": turn.best_points.points if turn.best_points else None,
            f"best_points_with_cap_{10 * ANALYSIS_LIMIT}":
                wide.best_points.points if wide.best_points else None,
            f"capped_at_{10 * ANALYSIS_LIMIT}": wide.capped,
            f"cpu_s_at_{10 * ANALYSIS_LIMIT}": round(wide_cpu, 3),
        })
        if progress:
            print(f"hard turn {n}/{len(positions)}: {len(hand)} tiles, "
                  f"{cpu:.2f} s", flush=True)
    slowest = sorted((r["cpu_s"] for r in hard_rows), reverse=True)[:3]
    worst = match_cpu + sum(slowest)
    key = f"best_points_with_cap_{10 * ANALYSIS_LIMIT}"
    lost = [r[key] - r["best_points"] for r in hard_rows
            if r[key] is not None and r["best_points"] is not None]
    return {
        "benchmark": "analyse",
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "commit": current_commit(),
        "command": command,
        "machine": {"python": platform.python_version(), "processor": platform.machine(),
                    "system": platform.system(), "cores_used": 1},
        "measure": f"CPU seconds of one process, best of {repeat}",
        "match": {
            "players": 3, "turns": len(record.turns), "seed": MATCH_SEED,
            "strategies": ["greedy", "random", "random"],
            "replay_baseline_cpu_s": round(base_cpu, 4),
            "analyse_cpu_s": round(match_cpu, 3), "analyse_wall_s": round(match_wall, 3),
            "ratio_to_replay": round(match_cpu / base_cpu, 1) if base_cpu else None,
            "placements_per_turn": {"median": statistics.median(per_turn),
                                    "max": max(per_turn)},
            "capped_turns": sum(1 for t in analysis.turns if t.capped),
        },
        "hard_turns": {
            "n": len(hard_rows), "cap": ANALYSIS_LIMIT, "rows": hard_rows,
            "median_cpu_s": round(statistics.median(r["cpu_s"] for r in hard_rows), 3),
            "max_cpu_s": max(r["cpu_s"] for r in hard_rows),
            "capped": sum(1 for r in hard_rows if r["capped"]),
            "best_changed_with_10x_cap": sum(1 for d in lost if d),
            "points_lost_to_cap_max": max(lost, default=0),
        },
        "worst_case": {
            "what": "the match plus its three slowest hard turns",
            "cpu_s": round(worst, 3), "target_s": TARGET_S, "pass": worst <= TARGET_S,
        },
        "pi4_estimate": {
            "slowdown_assumed": list(PI4_SLOWDOWN),
            "match_s": [round(match_cpu * f, 2) for f in PI4_SLOWDOWN],
            "worst_case_s": [round(worst * f, 2) for f in PI4_SLOWDOWN],
        },
        "summary": {
            "match_cpu_s": round(match_cpu, 3),
            "worst_case_cpu_s": round(worst, 3),
            "target_s": TARGET_S,
            "pass": worst <= TARGET_S,
            "pi4_worst_case_s": [round(worst * f, 2) for f in PI4_SLOWDOWN],
        },
    }
