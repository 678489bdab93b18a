"""A club evening at the dashboard (issue 39): demo games out of the rankings, annulled
matches, tournament pairings that follow their match, refusals as one-line toasts."""

from zatre_vision.server.records import rankings

FIRST = {"H8": 6, "H7": 5, "G7": 5}


def _finished(table, players, source="manual", minus=None):
    table.new_match(players, players[0], source=source)
    table.commit_turn(FIRST, source=source)
    table.finish(minus or dict.fromkeys(players, 0), source=source)
    return table.match_id


def test_demo_games_stay_out_of_the_rankings(client, table, store):
    _finished(table, ["Ann", "Ben"], source="demo")
    _finished(table, ["Cleo", "Dora"])
    rows = store.finished_matches()
    assert [r["player"] for r in rankings(rows)] == ["Cleo", "Dora"]
    page = client.get("/rankings").get_data(as_text=True)
    assert "Cleo" in page and "Ann" not in page
    history = client.get("/matches").get_data(as_text=True)
    assert history.count('class="pill pill-demo"') == 1
    assert client.get("/api/matches").get_json()["matches"][1]["demo"] is True
