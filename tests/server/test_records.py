"""Club records: replay steps, rankings with the score-difference tie-break,
round-robin pairings and standings."""

from itertools import combinations

import pytest

from zatre_vision.server.records import rankings, replay_steps, round_robin, standings


def row(i, totals, finished=True):
    best = max(totals.values())
    return {"id": i, "players": list(totals), "totals": totals, "finished": finished,
            "winners": [p for p, t in totals.items() if t == best]}


def test_rankings_order_by_wins_then_difference():
    rows = [row(1, {"Ann": 100, "Ben": 90}), row(2, {"Ben": 150, "Cleo": 60}),
            row(3, {"Ann": 80, "Cleo": 95}), row(4, {"Ann": 1, "Ben": 2}, finished=False)]
    r = rankings(rows)
    assert [x["player"] for x in r] == ["Ben", "Ann", "Cleo"]  # Ann and Ben 1 win, Ben +80
    ben = r[0]
    assert (ben["games"], ben["wins"], ben["average"], ben["best"], ben["diff"]) == (2, 1, 120.0, 150, 80.0)
    assert r[1]["diff"] == -5.0 and r[2]["rank"] == 3


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8])
def test_round_robin_everyone_meets_everyone_once(n):
    players = [f"P{i}" for i in range(n)]
    rounds = round_robin(players)
    pairs = [frozenset(p) for r in rounds for p in r]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
    assert set(pairs) == {frozenset(c) for c in combinations(players, 2)}
    for r in rounds:  # nobody plays twice in one round
        seen = [p for pair in r for p in pair]
        assert len(seen) == len(set(seen))


def test_standings_points_then_difference():
    ms = [row(1, {"A": 100, "B": 80}), row(2, {"A": 70, "C": 90}), row(3, {"B": 50, "C": 50})]
    s = standings(["A", "B", "C"], ms)
    assert [(x["player"], x["points"], x["diff"]) for x in s] == [("C", 3, 20), ("A", 2, 0), ("B", 1, -20)]


def test_replay_steps_follow_the_game():
    record = {"players": ["Ann", "Ben"],
              "turns": [{"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}},
                        {"player": "Ben", "placed": {"I8": 4}}],
              "minus": {"Ann": 0, "Ben": 5}}
    steps = replay_steps(record, finished=True)
    assert len(steps) == 3 and steps[0]["board"] == {}
    assert steps[1]["board"] == {"H8": 6, "H7": 5, "G7": 5}
    assert steps[1]["sheets"]["Ann"]["total"] == 6 and steps[1]["sheets"]["Ben"]["minus"] == 0
    assert steps[2]["sheets"]["Ben"]["total"] == 1 - 5
