"""A club evening at tables of 4 through the dashboard (issue 62): 16 players, 3 rounds
tonight, paired as a round robin or round by round (Swiss) from the standings, each
table's match started from the evening's page, recorded and ranked."""

import re
from itertools import combinations

from zatre_vision.pairings import meetings

PLAYERS = [f"Spieler {chr(65 + i)}" for i in range(16)]
FIRST = {"H8": 6, "H7": 5, "G7": 5}


def _create(operator, fmt, players=PLAYERS, rounds=3):
    r = operator.post_json("/tournaments", {"name": "Clubabend", "players": players,
                                            "format": fmt, "rounds": rounds})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["message"] == f"Tournament Clubabend created with {rounds} rounds."
    return r.get_json()["tournament_id"]


def _tables(operator, tid) -> list[tuple[str, str]]:
    page = operator.get(f"/tournaments/{tid}").get_data(as_text=True)
    return re.findall(r'data-table="([^"]+)" data-status="([^"]+)"', page)


def _play(operator, table, tid, key, minus):
    r = operator.post_json(f"/tournaments/{tid}/table", {"table": key, "replace": "1"})
    assert r.status_code == 200, r.get_json()
    players = table.match.players
    assert sorted(players) == sorted(key.split(":", 1)[1].split("|"))
    table.commit_turn(FIRST, source="manual")
    table.finish({p: minus[p] for p in players})


def _round(operator, table, tid, number, minus):
    for key, status in _tables(operator, tid):
        if key.startswith(f"{number}:"):
            assert status == "open"
            _play(operator, table, tid, key, minus)


def test_a_swiss_evening_of_16_players_three_rounds_at_four_tables(operator, table, store):
    tid = _create(operator, "swiss")
    minus = {p: 10 * i for i, p in enumerate(PLAYERS)}    # A keeps most, P least
    seen = []
    for number in (1, 2, 3):
        rows = _tables(operator, tid)
        assert len(rows) == 4 * number                     # one round paired at a time
        if number > 1:
            assert operator.post_json(f"/tournaments/{tid}/next-round").status_code == 409
        _round(operator, table, tid, number, minus)
        assert all(s == "finished" for _, s in _tables(operator, tid))
        if number < 3:
            r = operator.post_json(f"/tournaments/{tid}/next-round")
            assert r.status_code == 200 and r.get_json()["message"] == f"Round {number + 1} paired."
        seen = store.tournament_rounds(tid)
    refused = operator.post_json(f"/tournaments/{tid}/next-round")
    assert refused.status_code == 409 and refused.get_json()["error"] == "all 3 rounds are paired"
    assert [[len(g) for g in groups] for groups in seen] == [[4, 4, 4, 4]] * 3
    assert max(meetings(seen).values()) == 1               # nobody met anyone twice
    matches = store.tournament_matches(tid)
    assert len(matches) == 12 and all(m["finished"] for m in matches)
    page = operator.get(f"/tournaments/{tid}").get_data(as_text=True)
    order = re.findall(r'<tr data-player="([^"]+)"><td>(\d+)</td>', page)
    assert [rank for _, rank in order] == [str(i) for i in range(1, 17)]
    assert order[0][0] == "Spieler A" and order[-1][0] == "Spieler P"
    points = [int(p) for p in re.findall(r"<td><b>(\d+)</b></td>", page)]
    assert sum(points) == 3 * 4 * 6 * 2                    # 2 a pair, 6 pairs a table


def test_round_two_waits_for_round_one_and_is_paired_once(operator, table, store):
    tid = _create(operator, "swiss", PLAYERS[:8], rounds=2)
    r = operator.post_json(f"/tournaments/{tid}/next-round")
    assert r.status_code == 409
    assert r.get_json()["error"] == "round 1 is not over: 2 of its tables have no finished match yet"
    _round(operator, table, tid, 1, dict.fromkeys(PLAYERS, 0))
    assert operator.post_json(f"/tournaments/{tid}/next-round").status_code == 200
    assert len(store.tournament_rounds(tid)) == 2
    assert not store.add_tournament_round(tid, 2, [["x"]])  # a second operator's press


def test_a_round_robin_evening_is_paired_at_once_and_spreads_the_meetings(operator, store):
    tid = _create(operator, "tables")
    rounds = store.tournament_rounds(tid)
    assert len(rounds) == 3 and len(_tables(operator, tid)) == 12
    assert max(meetings(rounds).values()) == 1
    met = meetings(rounds)
    assert sum(met.values()) == 3 * 4 * 6
    assert all((a, b) in met or (b, a) in met
               for groups in rounds for g in groups for a, b in combinations(sorted(g), 2))
    r = operator.post_json(f"/tournaments/{tid}/next-round")
    assert r.status_code == 409 and r.get_json()["error"] == "a round robin is paired all at once"


def test_thirteen_players_sit_at_one_table_of_four_and_three_of_three(operator, store):
    tid = _create(operator, "tables", PLAYERS[:13], rounds=2)
    assert [[len(g) for g in groups] for groups in store.tournament_rounds(tid)] == \
        [[4, 3, 3, 3]] * 2


def test_bad_evenings_are_refused_in_one_line_and_in_german(operator):
    r = operator.post_json("/tournaments", {"name": "X", "players": PLAYERS[:3],
                                            "format": "swiss"})
    assert r.get_json()["error"] == "an evening at tables of 4 needs 4 to 32 players"
    r = operator.post_json("/tournaments", {"name": "X", "players": PLAYERS, "format": "tables",
                                            "rounds": 16})
    assert r.status_code == 400 and r.get_json()["error"] == "give the rounds tonight: 1 to 15"
    r = operator.post_json("/tournaments", {"name": "X", "players": PLAYERS, "format": "league"})
    assert r.get_json()["error"] == "choose how to pair: pairs, tables or swiss"
    tid = _create(operator, "tables", PLAYERS[:8], rounds=1)
    operator.set_cookie("zatre-lang", "de")
    r = operator.post_json(f"/tournaments/{tid}/table", {"table": "1:nobody"})
    assert r.status_code == 400 and r.get_json()["error"] == "wähle einen der Tische des Abends"
    r = operator.post_json(f"/tournaments/{tid}/next-round")
    assert r.get_json()["error"] == "ein Jeder-gegen-jeden wird auf einmal ausgelost"
    page = operator.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "jeder gegen jeden an Vierertischen" in page and "Tisch 2" in page


def test_a_pairs_tournament_is_as_before(operator, store):
    r = operator.post_json("/tournaments", {"name": "Cup", "players": ["Ann", "Ben", "Cleo"]})
    assert r.get_json()["message"] == "Tournament Cup created with 3 rounds."
    tid = r.get_json()["tournament_id"]
    assert store.get_tournament(tid)["format"] is None and store.tournament_rounds(tid) == []
    assert operator.post_json(f"/tournaments/{tid}/next-round").status_code == 409
