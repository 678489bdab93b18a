"""Analysis benchmark: how long ``zatre analyse`` takes, how exact it is, and its bound.

All on one core (this process, one thread):

- **the match**: the first 60 turns of a simulated 3-player game (a greedy and two
  random players, seeded), analysed as ``zatre analyse`` does. The baseline measured in
  the same run is replaying the same record (``zatre score``), so the result is also
  given as a ratio to it.
- **team games**: simulated games of three teams of two (4-tile hands, which have up to
  tens of thousands of legal moves), whole (about 30 turns each, so two make a 60-turn
  match). Every turn whose hand is known is also settled by exhaustive search (every
  legal placement listed by ``moves.legal_index_placements`` and valued): the best move
  by points and by value must be the same, and no turn capped. The target: the team
  games' turns analysed in at most 3 s per 60 turns.
- **runaway records**: records no table would store but anyone can write (a first turn
  of 8 to 12 tiles, a 1 kB record placing 100 tiles, turns out of turn): CPU time and
  peak memory of their analysis (``tracemalloc``, what Python allocated), each against
  5 s and 300 MB.
- **hard turns**: late boards (80 to 100 tiles) from simulated games with carried-over
  hands of 6 to 9 tiles of 1 to 3 pips drawn from what is left in the bag, searched as
  the analysis does (``search_moves``, bounded by ``--limit``'s step budget), and again
  with a budget ten times larger, to show what the bound does: how often the best move
  found changes, and by how many points; each also with its time and peak memory.

CPU time of this process is the measure (``time.process_time``), best of ``repeat``, so
other work on a shared machine inflates it less; wall time is recorded beside it. The
Pi 4 estimate multiplies by the slowdown assumed in ``docs/pi-notes.md`` (a Cortex-A72
4x to 6x slower than one core here; branchy pure Python like this is the 6x end).
"""

from __future__ import annotations

import platform
import random
import statistics
import time
import tracemalloc
from collections import Counter
from datetime import datetime, timezone

from ..rules.analysis import ANALYSIS_LIMIT, analyse_record, search_moves
from ..rules.board import NAMES, NEIGHBOURS, START
from ..rules.game import Seat
from ..rules.moves import legal_index_placements, ranked_moves
from ..rules.record import Referee, parse_record, run_replay
from ..rules.sheet import ScoreSheet
from ..rules.tiles import TILE_SET
from ..simulate import Simulation
from .results import current_commit

TARGET_S = 3.0
PI4_SLOWDOWN = (4.0, 6.0)
MATCH_TURNS = 60
MATCH_SEED = 2040
HARD_SIZES = (6, 7, 8, 9)
TEAM_SEED = 2040
#: what any record's analysis may take at most (runaway records)
RUNAWAY_TARGET_S = 5.0
RUNAWAY_TARGET_MB = 300.0


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


def _peak_mb(fn) -> float:
    """Peak memory Python allocated while ``fn`` ran, in MB (``tracemalloc``)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def bench_match(seed: int = MATCH_SEED, turns: int = MATCH_TURNS):
    """The benchmark's match: a 3-player simulated game cut to ``turns`` turns."""
    game = Simulation(["Ann", "Ben", "Cem"], seed, ["greedy", "random", "random"]).run(
        max_turns=turns)
    return parse_record(game.to_record())


def team_game(seed: int, turns: int | None = None):
    """A simulated game of three teams of two (4-tile hands): one greedy, two random."""
    seats = [Seat("Red", 2), Seat("Blue", 2), Seat("Green", 2)]
    game = Simulation(seats, seed, ["greedy", "random", "random"]).run(max_turns=turns)
    return parse_record(game.to_record())


def exhaustive_best(board, sheet, hand) -> tuple[int, float] | None:
    """The best points and the best value over every legal move, listed in full and
    valued by ``moves.ranked_moves`` (not the analysis's search nor its valuing)."""
    moves = ranked_moves(board, hand, sheet)
    if not moves[0].placed:
        return None
    points = {}
    for m in moves:
        key = (tuple(sorted(m.result.points.items())), m.result.crosses)
        if key not in points:
            after = sheet.copy()
            after.enter(m.result.points, m.result.crosses)
            points[key] = after.rows_total - sheet.rows_total
    return max(points.values()), moves[0].value


def check_team_game(record) -> dict:
    """Every counted turn of a team game with a known hand: the analysis against
    exhaustive search (the best by points and by value)."""
    analysis = analyse_record(record)
    referee = Referee(record.players, record.teams, record.starter)
    before = []
    for turn in record.turns:  # the board and the sheet before each turn
        before.append((referee.board.copy(), referee.sheets[turn.player].copy()))
        referee.commit(turn)
    checked = same = most = 0
    wrong = []
    for t in analysis.turns:
        if not (t.hand.complete and t.counted):
            continue
        board, sheet = before[t.number - 1]
        most = max(most, len(legal_index_placements(board, t.hand.tiles)))
        truth = exhaustive_best(board, sheet, t.hand.tiles)
        if truth is None:
            continue
        checked += 1
        got = (t.best_points.points, t.best_value.value)
        if got[0] == truth[0] and abs(got[1] - truth[1]) < 1e-9:
            same += 1
        else:
            wrong.append({"turn": t.number, "analysis": [got[0], round(got[1], 3)],
                          "exhaustive": [truth[0], round(truth[1], 3)]})
    return {"turns": len(analysis.turns), "checked": checked, "same_best": same,
            "different": wrong, "capped": sum(1 for t in analysis.turns if t.capped),
            "most_legal_moves_of_a_turn": most,
            "compared_per_turn_max": max((t.placements for t in analysis.turns), default=0)}


def _blob(n: int) -> list[str]:
    """``n`` cells joined to H8, breadth first."""
    order, seen, i = [START], {START}, 0
    while len(order) < n:
        for m in NEIGHBOURS[order[i]]:
            if m not in seen and len(order) < n:
                seen.add(m)
                order.append(m)
        i += 1
    return [NAMES[c] for c in order]


def runaway_records() -> dict[str, dict]:
    """Records no table would store but anyone can write: many tiles on the first turn
    (every one a 1, so no line is over 12), a 1 kB record placing 100 tiles, and a
    match that goes on with a turn of 12 tiles out of turn and a hand of 12 declared."""
    out = {}
    for n in (8, 9, 10, 11, 12):
        out[f"first turn of {n} tiles"] = {"players": ["Ann", "Ben"], "turns": [
            {"player": "Ann", "placed": dict.fromkeys(_blob(n), 1)}]}
    out["100 tiles on the first turn (1 kB)"] = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": dict.fromkeys(_blob(100), 1)}]}
    cells = _blob(15)
    out["12 tiles later, out of turn, hand of 12 declared"] = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": {"H8": 1, "H7": 1, "G7": 1}},
        {"player": "Ann", "placed": dict.fromkeys(cells[3:], 1), "hand": [1] * 12},
        {"player": "Ben", "placed": dict.fromkeys(cells[3:], 1), "hand": [1] * 12}]}
    return out


def check_runaway(repeat: int) -> list[dict]:
    rows = []
    for name, data in runaway_records().items():
        record = parse_record(data)
        cpu, wall, analysis = _timed(lambda r=record: analyse_record(r), repeat)
        peak = _peak_mb(lambda r=record: analyse_record(r))
        rows.append({"record": name, "cpu_s": round(cpu, 4), "wall_s": round(wall, 4),
                     "peak_mb": round(peak, 2),
                     "searched_turns": sum(1 for t in analysis.turns if t.placements),
                     "pass": cpu <= RUNAWAY_TARGET_S and peak <= RUNAWAY_TARGET_MB})
    return rows


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


def _best_points(searched) -> int | None:
    return max((m[0] for m in searched.moves), default=None)


def run_analysis_benchmark(hard: int = 8, repeat: int = 3, team_games: int = 2,
                           team_turns: int | None = None, progress: bool = False,
                           command: str = "zatre bench analyse") -> dict:
    def say(text: str) -> None:
        if progress:
            print(text, flush=True)

    record = bench_match()
    base_cpu, base_wall, _ = _timed(lambda: run_replay(record), repeat)
    match_cpu, match_wall, analysis = _timed(lambda: analyse_record(record), repeat)
    per_turn = [t.placements for t in analysis.turns]
    say(f"match: {match_cpu:.2f} s")

    teams = []
    for k in range(team_games):
        game = team_game(TEAM_SEED + k, team_turns)
        cpu, wall, _ = _timed(lambda g=game: analyse_record(g), repeat)
        row = {"seed": TEAM_SEED + k, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
               **check_team_game(game)}
        teams.append(row)
        say(f"team game {k + 1}/{team_games}: {row['turns']} turns, {cpu:.2f} s, "
            f"{row['same_best']}/{row['checked']} as exhaustive search, {row['capped']} capped")
    team_turns_total = sum(r["turns"] for r in teams)
    team_cpu = sum(r["cpu_s"] for r in teams)
    per_60 = team_cpu * MATCH_TURNS / team_turns_total if team_turns_total else 0.0
    team_exact = all(r["same_best"] == r["checked"] and not r["capped"] for r in teams)

    runaway = check_runaway(repeat)
    for r in runaway:
        say(f"runaway: {r['record']}: {r['cpu_s']} s, {r['peak_mb']} MB")

    hard_rows = []
    positions = hard_turns(hard)
    wide_limit = 10 * ANALYSIS_LIMIT
    for n, (board, hand) in enumerate(positions, 1):
        cpu, wall, got = _timed(lambda b=board, h=hand: search_moves(b, ScoreSheet(), h),
                                repeat)
        peak = _peak_mb(lambda b=board, h=hand: search_moves(b, ScoreSheet(), h))
        wide_cpu, _, wide = _timed(
            lambda b=board, h=hand: search_moves(b, ScoreSheet(), h, wide_limit), 1)
        hard_rows.append({
            "tiles_on_board": board.count, "hand": list(hand),
            "capped": got.capped, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
            "peak_mb": round(peak, 1), "best_points": _best_points(got),
            f"best_points_with_limit_{wide_limit}": _best_points(wide),
            f"capped_at_{wide_limit}": wide.capped,
            f"cpu_s_at_{wide_limit}": round(wide_cpu, 3),
        })
        say(f"hard turn {n}/{len(positions)}: {len(hand)} tiles, {cpu:.2f} s")
    slowest = sorted((r["cpu_s"] for r in hard_rows), reverse=True)[:3]
    worst = match_cpu + sum(slowest)
    key = f"best_points_with_limit_{wide_limit}"
    lost = [r[key] - r["best_points"] for r in hard_rows
            if r[key] is not None and r["best_points"] is not None]
    runaway_pass = all(r["pass"] for r in runaway)
    return {
        "benchmark": "analyse",
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "commit": current_commit(),
        "command": command,
        "machine": {"python": platform.python_version(), "processor": platform.machine(),
                    "system": platform.system(), "cores_used": 1},
        "measure": f"CPU seconds of one process, best of {repeat}; peak memory by tracemalloc",
        "match": {
            "players": 3, "turns": len(record.turns), "seed": MATCH_SEED,
            "strategies": ["greedy", "random", "random"],
            "replay_baseline_cpu_s": round(base_cpu, 4),
            "analyse_cpu_s": round(match_cpu, 3), "analyse_wall_s": round(match_wall, 3),
            "ratio_to_replay": round(match_cpu / base_cpu, 1) if base_cpu else None,
            "moves_compared_per_turn": {"median": statistics.median(per_turn),
                                        "max": max(per_turn)},
            "capped_turns": sum(1 for t in analysis.turns if t.capped),
        },
        "team_games": {
            "teams": 3, "members": 2, "hand": 4, "strategies": ["greedy", "random", "random"],
            "games": teams, "turns": team_turns_total,
            "checked_turns": sum(r["checked"] for r in teams),
            "same_best_as_exhaustive": sum(r["same_best"] for r in teams),
            "capped_turns": sum(r["capped"] for r in teams),
            "analyse_cpu_s": round(team_cpu, 3),
            "cpu_s_per_60_turns": round(per_60, 3), "target_s": TARGET_S,
            "pass": team_exact and per_60 <= TARGET_S,
        },
        "runaway_records": {
            "target_s": RUNAWAY_TARGET_S, "target_mb": RUNAWAY_TARGET_MB, "rows": runaway,
            "max_cpu_s": max(r["cpu_s"] for r in runaway),
            "max_peak_mb": max(r["peak_mb"] for r in runaway), "pass": runaway_pass,
        },
        "hard_turns": {
            "n": len(hard_rows), "limit": ANALYSIS_LIMIT, "rows": hard_rows,
            "median_cpu_s": round(statistics.median(r["cpu_s"] for r in hard_rows), 3),
            "max_cpu_s": max(r["cpu_s"] for r in hard_rows),
            "max_peak_mb": max(r["peak_mb"] for r in hard_rows),
            "capped": sum(1 for r in hard_rows if r["capped"]),
            "best_changed_with_10x_limit": sum(1 for d in lost if d),
            "points_lost_to_limit_max": max(lost, default=0),
        },
        "worst_case": {
            "what": "the match plus its three slowest hard turns",
            "cpu_s": round(worst, 3), "target_s": TARGET_S, "pass": worst <= TARGET_S,
        },
        "pi4_estimate": {
            "slowdown_assumed": list(PI4_SLOWDOWN),
            "match_s": [round(match_cpu * f, 2) for f in PI4_SLOWDOWN],
            "team_60_turns_s": [round(per_60 * f, 2) for f in PI4_SLOWDOWN],
            "worst_case_s": [round(worst * f, 2) for f in PI4_SLOWDOWN],
        },
        "summary": {
            "match_cpu_s": round(match_cpu, 3),
            "team_cpu_s_per_60_turns": round(per_60, 3),
            "team_same_best_as_exhaustive": f"{sum(r['same_best'] for r in teams)}/"
                                            f"{sum(r['checked'] for r in teams)}",
            "team_capped_turns": sum(r["capped"] for r in teams),
            "runaway_max_cpu_s": max(r["cpu_s"] for r in runaway),
            "runaway_max_peak_mb": max(r["peak_mb"] for r in runaway),
            "worst_case_cpu_s": round(worst, 3),
            "target_s": TARGET_S,
            "pass": worst <= TARGET_S and team_exact and per_60 <= TARGET_S and runaway_pass,
            "pi4_worst_case_s": [round(worst * f, 2) for f in PI4_SLOWDOWN],
        },
    }
