"""Who sits at which table in each round of a club evening: pure, no I/O.

Tables seat 4 where the count divides, else 3 (``table_sizes``; 2 only for 2 or 5
players). Two ways to pair an evening:

- ``spread_rounds``: a round robin of tables: every round made so that no two players
  meet twice before they have met everyone they still can meet, as far as the numbers
  allow (a local search over swaps, each meeting counted by how often it happened);
- ``swiss_round``: the next round of a Swiss-style evening: neighbours in the standings
  at one table, unless they met already and another seating avoids it.

The search is deterministic: the same players (in the same order), rounds and seed give
the same evening, so a page shows the same pairings every time it is drawn."""

from __future__ import annotations

import random
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

#: random starts of the local search per round (the best seating is kept); a Swiss
#: round starts from the standings' order too, and needs fewer
RESTARTS = 24
SWISS_RESTARTS = 4


class PairingError(ValueError):
    """An evening that cannot be paired (one-line message)."""


Round = list[list[str]]


def table_sizes(players: int) -> list[int]:
    """Tables of 4, and of 3 where 4 does not divide; 2 only where nothing else fits
    (2 or 5 players). Largest tables first."""
    if players < 2:
        raise PairingError("an evening needs at least 2 players")
    if players in (2, 3):
        return [players]
    if players == 5:
        return [3, 2]
    threes = (-players) % 4          # 4a + 3b = n with the fewest tables of 3
    return [4] * ((players - 3 * threes) // 4) + [3] * threes


def meetings(rounds: Iterable[Round]) -> Counter:
    """How often each two players sat at one table (keys: sorted name pairs)."""
    met: Counter = Counter()
    for groups in rounds:
        for group in groups:
            for a, b in combinations(sorted(group), 2):
                met[(a, b)] += 1
    return met


def seed_of(players: Sequence[str]) -> int:
    """A stable seed from the names (Python's own hash differs between runs)."""
    return zlib.crc32("\x1f".join(players).encode())


def spread_rounds(players: Sequence[str], rounds: int, seed: int | None = None,
                  before: Sequence[Round] = ()) -> list[Round]:
    """``rounds`` rounds of tables (each a list of player lists, largest first), after
    the rounds ``before`` (if any), with meetings spread as evenly as the search finds."""
    _check(players, rounds)
    rng = random.Random(seed_of(players) if seed is None else seed)
    met = meetings(before)
    out: list[Round] = []
    for _ in range(rounds):
        groups = _best_seating(list(players), met, rng, ranks=None)
        out.append(groups)
        met.update(meetings([groups]))
    return out


def swiss_round(standings: Sequence[str], before: Sequence[Round],
                seed: int | None = None) -> Round:
    """The next round of a Swiss-style evening: ``standings`` best first; players close
    in the standings share a table, unless they met in ``before`` and a seating with
    fewer repeated meetings exists."""
    _check(standings, 1)
    rng = random.Random(seed_of(standings) if seed is None else seed)
    ranks = {p: i for i, p in enumerate(standings)}
    return _best_seating(list(standings), meetings(before), rng, ranks=ranks)


def _check(players: Sequence[str], rounds: int) -> None:
    if len(set(players)) != len(players):
        raise PairingError("player names must be different")
    table_sizes(len(players))
    if not 1 <= rounds <= 50:
        raise PairingError("an evening has 1 to 50 rounds")


def _chunks(order: list[str], sizes: list[int]) -> list[list[str]]:
    groups, at = [], 0
    for size in sizes:
        groups.append(order[at:at + size])
        at += size
    return groups


def _best_seating(players: list[str], met: Counter, rng: random.Random,
                  ranks: dict[str, int] | None) -> Round:
    """The seating with the lowest cost found from a few starts (the standings' order
    first when there are ranks, else shuffles), each improved by swaps."""
    sizes = table_sizes(len(players))
    weight = len(players) ** 2 + 1   # one more repeat outweighs any spread of ranks

    def pair_cost(a: str, b: str) -> int:
        m = met[(a, b) if a < b else (b, a)]
        return weight ** m - 1 if m else 0

    def group_cost(group: list[str]) -> int:
        cost = sum(pair_cost(a, b) for a, b in combinations(group, 2))
        if ranks is not None:
            cost += max(ranks[p] for p in group) - min(ranks[p] for p in group)
        return cost

    best, best_cost = None, None
    starts = [players] if ranks is not None else []
    for _ in range(RESTARTS if ranks is None else SWISS_RESTARTS):
        order = players[:]
        rng.shuffle(order)
        starts.append(order)
    for order in starts:
        groups = _improve(_chunks(order, sizes), group_cost)
        cost = sum(group_cost(g) for g in groups)
        if best_cost is None or cost < best_cost:
            best, best_cost = groups, cost
        if best_cost == _floor(players, ranks, sizes):
            break
    assert best is not None
    key = (lambda p: ranks[p]) if ranks is not None else players.index
    seated = [sorted(g, key=key) for g in best]
    return sorted(seated, key=lambda g: (-len(g), key(g[0])))


def _floor(players: list[str], ranks: dict[str, int] | None, sizes: list[int]) -> int:
    """The cost no seating can beat: no repeat, and each table's ranks consecutive."""
    return 0 if ranks is None else sum(size - 1 for size in sizes)


def _improve(groups: list[list[str]], group_cost) -> list[list[str]]:
    """Swap two players of different tables while a swap lowers the cost (best first)."""
    costs = [group_cost(g) for g in groups]
    while True:
        best_gain, best_swap = 0, None
        for gi, gj in combinations(range(len(groups)), 2):
            for i, a in enumerate(groups[gi]):
                for j, b in enumerate(groups[gj]):
                    new_i = groups[gi][:i] + [b] + groups[gi][i + 1:]
                    new_j = groups[gj][:j] + [a] + groups[gj][j + 1:]
                    ci, cj = group_cost(new_i), group_cost(new_j)
                    gain = costs[gi] + costs[gj] - ci - cj
                    if gain > best_gain:
                        best_gain, best_swap = gain, (gi, gj, new_i, new_j, ci, cj)
        if best_swap is None:
            return groups
        gi, gj, new_i, new_j, ci, cj = best_swap
        groups[gi], groups[gj], costs[gi], costs[gj] = new_i, new_j, ci, cj
