"""Pairings for a club evening (issue 62): tables of 4 (3, or 2, where 4 does not
divide), a round robin that spreads the meetings and a Swiss-style next round; checked
as properties over many evenings, and against an exhaustive search on small ones."""

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zatre_vision.pairings import PairingError, meetings, spread_rounds, swiss_round, table_sizes

EVENINGS = settings(max_examples=40, deadline=None)


def names(n: int) -> list[str]:
    return [f"Player {i:02d}" for i in range(n)]


def first_repeat(rounds) -> int | None:
    """The round (1 first) in which two players first meet a second time."""
    for k in range(1, len(rounds) + 1):
        if max(meetings(rounds[:k]).values(), default=0) > 1:
            return k
    return None


def check_round(groups, players) -> None:
    assert Counter(p for g in groups for p in g) == Counter(players)   # everyone, once
    assert [len(g) for g in groups] == table_sizes(len(players))


@pytest.mark.parametrize(("n", "sizes"), [(2, [2]), (3, [3]), (4, [4]), (5, [3, 2]),
                                          (6, [3, 3]), (7, [4, 3]), (9, [3, 3, 3]),
                                          (13, [4, 3, 3, 3]), (16, [4, 4, 4, 4]),
                                          (18, [4, 4, 4, 3, 3])])
def test_tables_of_four_then_three_and_two_only_where_nothing_else_fits(n, sizes):
    assert table_sizes(n) == sizes


@given(st.integers(2, 40))
def test_table_sizes_seat_everyone_with_as_few_small_tables_as_can_be(n):
    sizes = table_sizes(n)
    assert sum(sizes) == n and sizes == sorted(sizes, reverse=True)
    assert all(s in (2, 3, 4) for s in sizes)
    assert sizes.count(3) <= 3 and (2 not in sizes or n in (2, 5))


def test_bad_evenings_are_refused_in_one_line():
    with pytest.raises(PairingError, match="at least 2 players"):
        spread_rounds(["Ann"], 1)
    with pytest.raises(PairingError, match="different"):
        spread_rounds(["Ann", "Ann", "Ben"], 1)
    with pytest.raises(PairingError, match="1 to 50 rounds"):
        spread_rounds(names(8), 0)


@EVENINGS
@given(n=st.integers(2, 28), rounds=st.integers(1, 5), seed=st.integers(0, 2**32))
def test_every_round_seats_everyone_once_at_tables_of_four_or_three(n, rounds, seed):
    evening = spread_rounds(names(n), rounds, seed=seed)
    assert len(evening) == rounds
    for groups in evening:
        check_round(groups, names(n))


@EVENINGS
@given(n=st.integers(13, 32), seed=st.integers(0, 2**32))
def test_three_rounds_tonight_and_no_two_meet_twice(n, seed):
    assert first_repeat(spread_rounds(names(n), 3, seed=seed)) is None


def test_sixteen_players_three_rounds_on_four_tables_of_four_meet_36_opponents_each():
    evening = spread_rounds(names(16), 3)
    assert all(len(groups) == 4 and {len(g) for g in groups} == {4} for groups in evening)
    met = meetings(evening)
    assert len(met) == 16 * 9 // 2 and set(met.values()) == {1}   # 9 different each


def _partitions(players: list[str], sizes: list[int]):
    """Every seating of ``players`` at tables of ``sizes`` (each seating once)."""
    if not sizes:
        yield []
        return
    first, rest = players[0], players[1:]
    for others in combinations(rest, sizes[0] - 1):
        group = [first, *others]
        left = [p for p in rest if p not in others]
        for tail in _partitions(left, sizes[1:]):
            yield [group, *tail]


def _most_rounds_without_a_repeat(n: int, cap: int) -> int:
    """Exhaustive: the most rounds any evening of ``n`` has before a repeat (up to cap)."""
    players = names(n)
    sizes = sorted(table_sizes(n))
    seatings = [frozenset(frozenset(pair) for g in s for pair in combinations(g, 2))
                for s in _partitions(players, sizes)]
    best = 1

    def extend(used: frozenset, depth: int) -> None:
        nonlocal best
        best = max(best, depth)
        if best >= cap:
            return
        for pairs in seatings:
            if not pairs & used:
                extend(used | pairs, depth + 1)

    extend(seatings[0], 1)    # the first round is any seating: they are all alike
    return best


@pytest.mark.parametrize("n", range(2, 10))
def test_no_two_meet_twice_while_the_numbers_allow_checked_exhaustively(n):
    most = _most_rounds_without_a_repeat(n, cap=5)
    for seed in range(6):
        repeat = first_repeat(spread_rounds(names(n), 5, seed=seed))
        assert (repeat or 6) - 1 == most, (n, seed)


def test_the_same_evening_every_time_it_is_drawn():
    assert spread_rounds(names(14), 3) == spread_rounds(names(14), 3)
    assert swiss_round(names(14), []) == swiss_round(names(14), [])


@EVENINGS
@given(n=st.integers(2, 32))
def test_a_first_swiss_round_seats_neighbours_in_the_standings(n):
    standings = names(n)[::-1]
    groups = swiss_round(standings, [])
    check_round(groups, standings)
    at = 0
    for g in groups:
        assert g == standings[at:at + len(g)]
        at += len(g)


@EVENINGS
@given(n=st.integers(13, 32), orders=st.lists(st.randoms(use_true_random=False),
                                              min_size=3, max_size=3))
def test_three_swiss_rounds_never_seat_two_players_together_twice(n, orders):
    rounds = []
    for rng in orders:
        standings = names(n)
        rng.shuffle(standings)
        groups = swiss_round(standings, rounds)
        check_round(groups, standings)
        rounds.append(groups)
    assert first_repeat(rounds) is None


def test_a_swiss_round_moves_the_fewest_it_must_to_avoid_a_repeat():
    """Round 1 seated the top four together; they lead again: the next round splits
    them over the tables, each with the nearest players below."""
    players = names(16)
    first = [players[i:i + 4] for i in range(0, 16, 4)]
    groups = swiss_round(players, [first])
    assert first_repeat([first, groups]) is None
    assert [g[0] for g in groups] == players[:4]       # one leader per table
