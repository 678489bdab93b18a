"""The stored background analysis and its page (server/analysis_jobs.py, analysis_pages.py)."""

from zatre_vision.server.analysis_jobs import AnalysisRunner
from zatre_vision.server.context import context
from zatre_vision.simulate import Simulation
from zatre_vision.store.analyses import AnalysisStore

WAIT_S = 60  # an upper bound on a background job, not a sleep


def play_simulated(table, turns=12, seed=3):
    """A finished match at the table: a simulated game's turns, entered by hand."""
    game = Simulation(["Ann", "Ben"], seed, ["greedy", "random"]).run(max_turns=turns)
    record = game.to_record()
    starter = record["turns"][0]["player"]
    table.new_match(["Ann", "Ben"], starter, source="manual")
    for t in record["turns"]:
        table.commit_turn(t["placed"], hand=t["hand"], source="manual", player=t["player"])
    return record


def runner(app) -> AnalysisRunner:
    return context(app).analysis


def test_finishing_a_match_analyses_it_in_the_background(app, client, operator, table):
    record = play_simulated(table)
    assert operator.post_json("/table/finish", {"minus": {"Ann": 3, "Ben": 0}}).status_code == 200
    assert runner(app).wait_idle(WAIT_S)
    data = client.get("/api/matches/1/analysis").get_json()
    assert data["status"] == "done" and not data["stale"]
    assert data["done"] == data["total"] == len(record["turns"])
    result = data["result"]
    assert [t["placed"] for t in (x["played"] for x in result["turns"])] == \
        [t["placed"] for t in record["turns"]]
    # Ann plays greedy: the best move by sheet value every time
    assert result["summary"]["Ann"]["value_missed"] == 0
    page = client.get("/matches/1/analysis")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="analysis-summary"' in html and 'data-player="Ben"' in html
    assert 'id="analysis-chart"' in html and "analysis.js" in html
    assert 'class="analysis-link"' in client.get("/matches").get_data(as_text=True)
    assert 'id="analysis-link"' in client.get("/matches/1").get_data(as_text=True)


def test_a_correction_after_the_end_makes_it_stale_and_it_is_made_again(app, client, operator,
                                                                         table):
    play_simulated(table)
    operator.post_json("/table/finish", {"minus": {}})
    assert runner(app).wait_idle(WAIT_S)
    before = client.get("/api/matches/1/analysis").get_json()
    first_cell, value = next(iter(before["result"]["turns"][-1]["played"]["placed"].items()))
    assert operator.post_json("/table/cell", {"cell": first_cell, "value": None}).status_code == 200
    assert runner(app).wait_idle(WAIT_S)
    after = client.get("/api/matches/1/analysis").get_json()
    assert after["status"] == "done" and not after["stale"]
    # the last turn lost a tile its declared hand could place: it breaks rule 5 now
    last_before, last_after = before["result"]["turns"][-1], after["result"]["turns"][-1]
    assert last_before["legal"] and last_before["missed_points"] is not None
    assert not last_after["legal"] and last_after["missed_points"] is None


def test_analysing_again_needs_the_pin(app, client, operator, table):
    play_simulated(table, turns=6)
    operator.post_json("/table/finish", {"minus": {}})
    assert runner(app).wait_idle(WAIT_S)
    assert client.post("/matches/1/analysis").status_code in (400, 401)
    resp = operator.post_json("/matches/1/analysis")
    assert resp.status_code == 200 and resp.get_json()["ok"]
    assert runner(app).wait_idle(WAIT_S)
    assert client.get("/api/matches/1/analysis").get_json()["status"] == "done"


def test_no_analysis_before_the_end_nor_for_card_games(client, playing, table):
    assert client.get("/api/matches/1/analysis").get_json()["status"] == "not-finished"
    assert "once the match is finished" in client.get("/matches/1/analysis").get_data(as_text=True)
    assert client.get("/matches/99/analysis").status_code == 404
    table.new_match(["Ann", "Ben"], "Ann", source="manual", variant="cards")
    assert client.get("/matches/2/analysis").status_code == 404


def test_the_job_stores_its_progress_as_it_goes(store, table):
    play_simulated(table, turns=12)
    table.finish({})
    seen = []

    class Watching(AnalysisStore):
        def progress(self, match_id, done):
            seen.append((done, self.get(match_id)["status"]))
            super().progress(match_id, done)

    job = AnalysisRunner(store, table)
    job.analyses = Watching(store)
    job.run_one(1)
    assert seen == [(5, "running"), (10, "running")]
    stored = job.status(1)
    assert stored["status"] == "done" and stored["done"] == stored["total"] == 12


def test_rankings_show_points_missed_per_turn_with_its_definition(app, client, operator,
                                                                   table):
    play_simulated(table, turns=10)
    operator.post_json("/table/finish", {"minus": {}})
    html = client.get("/rankings").get_data(as_text=True)
    assert 'id="missed-definition"' in html and "Points missed per turn:" in html
    assert runner(app).wait_idle(WAIT_S)
    summary = client.get("/api/matches/1/analysis").get_json()["result"]["summary"]
    html = client.get("/rankings").get_data(as_text=True)
    for player in ("Ann", "Ben"):
        s = summary[player]
        expected = f"{s['points_missed'] / s['turns_counted']:.2f}"
        cell = html.split(f'class="missed-per-turn" data-player="{player}">', 1)[1]
        assert cell.startswith(expected), (player, cell[:40])


def test_a_store_that_refuses_the_analysis_does_not_spoil_other_pages(app, client, table):
    from zatre_vision.store import StoreError

    play_simulated(table, turns=4)
    table.finish({})

    def refuse(*args, **kwargs):
        raise StoreError("the database failed (disk full)")

    runner(app).analyses.set_status = refuse
    assert client.get("/").status_code == 200  # the table's finished match is noticed
    assert client.get("/rankings").status_code == 200
    assert client.get("/matches/1/analysis").status_code == 503
