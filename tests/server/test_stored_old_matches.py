"""Matches that earlier versions stored and that the stricter referee (issue 42) now
refuses still load and show: the server and the table start, the history lists them,
their pages and ``/api/matches/<id>`` answer, each with a one-line note naming the rule
it breaks. New matches are still refused. The old matches go straight into the SQLite
store, as an earlier version wrote them."""

import sqlite3

import pytest

from zatre_vision.match import MatchError
from zatre_vision.rules.record import RecordError
from zatre_vision.server import create_app
from zatre_vision.store import open_store
from zatre_vision.table import Table
from zatre_vision.variants import score_record

# teams of three (earlier versions took 1 to 3 members): the table scored A 6, B 1
TEAMS_OF_THREE = {"players": ["A", "B"], "teams": {"A": 3, "B": 3}, "turns": [
    {"player": "A", "placed": {"H8": 6, "H7": 5, "G7": 5}},
    {"player": "B", "placed": {"I8": 4}}], "starter": "A"}

# Ann played twice in a row: the table scored both turns (Ann 8)
OUT_OF_TURN = {"players": ["Ann", "Ben"], "turns": [
    {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}},
    {"player": "Ann", "placed": {"I8": 4}}], "starter": "Ann"}

# a card round ended early by hand after three cards, when it could not be blocked
EARLY_ROUND = {"variant": "cards", "players": ["Ann", "Ben"], "starter": "Ann", "turns": [
    {"player": "Ann", "placed": {"0,0": 1, "1,0": 1}},
    {"player": "Ben", "placed": {"2,0": 1}},
    {"player": "Ben", "placed": {"0,0": 2, "1,0": 3}, "round": 2}]}


def stored(store, record, *, table="old-table", finished=False, pending=None, totals=None):
    """Write a match row as an earlier version did: no check of the record."""
    players = record.get("players") or []
    match_id = store.create_match(table, players, record, season="2024", source="manual",
                                  totals=totals or dict.fromkeys(players, 0))
    if finished or pending:
        store.save_match(match_id, record=record, pending=pending, finished=finished,
                         totals=totals or dict.fromkeys(players, 0), winners=[],
                         kind="finish" if finished else "turn", payload={})
    return match_id


@pytest.fixture
def server(tmp_path, settings):
    """Build the server as ``zatre serve`` does, on a store holding old matches."""
    made = []

    def start(store, table="old-table"):
        t = Table(store, table, season="2025")
        app = create_app(settings, t, store)
        app.config["TESTING"] = True
        made.append(t)
        return t, app.test_client()

    yield start
    for t in made:
        t.close()


@pytest.mark.parametrize("record", [TEAMS_OF_THREE, EARLY_ROUND])
def test_the_strict_referee_refuses_these_records(record):
    with pytest.raises(RecordError):
        score_record(record)


def test_an_active_match_with_teams_of_three_resumes_with_a_note(store, server):
    match_id = stored(store, TEAMS_OF_THREE, totals={"A": 6, "B": 1})
    table, client = server(store)
    assert table.match_id == match_id
    assert table.match.totals() == {"A": 6, "B": 1}
    state = client.get("/api/state").get_json()
    notes = [a for a in state["alerts"] if a["kind"] == "as-recorded"]
    assert len(notes) == 1 and "A has 3 members, but a team has 2 partners" in notes[0]["reasons"][0]
    assert client.get("/").status_code == 200
    # the match goes on as it began; a new match with teams of three is refused
    table.commit_turn({"J8": 1}, source="manual")
    assert len(table.match.turns) == 3
    with pytest.raises(MatchError, match="a team has 2 partners"):
        table.new_match(["A", "B"], "A", {"A": 3, "B": 3})


@pytest.mark.parametrize("record, totals, note", [
    (TEAMS_OF_THREE, {"A": 6, "B": 1}, "A has 3 members, but a team has 2 partners"),
    (OUT_OF_TURN, {"Ann": 8, "Ben": 0}, "turn 2 (Ann): Ann plays out of turn"),
    (EARLY_ROUND, {"Ann": 0, "Ben": 0}, "round 1 cannot be blocked yet"),
])
def test_a_finished_old_match_shows_in_the_history_as_the_table_scored_it(
        store, server, record, totals, note):
    match_id = stored(store, record, finished=True, totals=totals)
    _, client = server(store, "another-table")
    history = client.get("/matches")
    assert history.status_code == 200 and f"/matches/{match_id}" in history.text
    page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200
    assert 'id="record-notes"' in page.text and note in page.text
    doc = client.get(f"/api/matches/{match_id}")
    assert doc.status_code == 200
    body = doc.get_json()
    assert body["turns"] == record["turns"]  # the record as stored
    assert {p: s["total"] for p, s in body["result"]["sheets"].items()} == totals
    assert len(body["notes"]) == 1 and note in body["notes"][0]
    for url in ("print", "export.csv", "export.json"):
        assert client.get(f"/matches/{match_id}/{url}").status_code == 200


def test_an_active_card_match_with_a_round_ended_by_hand_resumes(store, server):
    # three cards laid, then the round ended by hand (stored as the next round to come)
    record = {**EARLY_ROUND, "players": ["Ann", "Ben", "Cy"], "turns": EARLY_ROUND["turns"][:2]}
    stored(store, record, pending={"next_round": 2})
    table, client = server(store)
    assert table.state()["round"] == 2
    # Ben begins round 2 as the earlier version allowed; the note says what it breaks
    table.commit_turn({"0,0": 2, "1,0": 3}, source="manual", player="Ben")
    state = client.get("/api/state").get_json()
    assert len(table.match.turns) == 3 and state["round"] == 2
    [alert] = [a for a in state["alerts"] if a["kind"] == "as-recorded"]
    assert "round 1 cannot be blocked yet" in alert["reasons"][0]
    # ending a round early that cannot be blocked is still refused
    with pytest.raises(MatchError, match="cannot be blocked yet"):
        table.end_round()


def test_a_stored_match_nothing_can_replay_does_not_stop_the_server(tmp_path, server):
    data = tmp_path / "raw"
    store = open_store(data)
    match_id = stored(store, TEAMS_OF_THREE)
    store.close()
    # a record broken in the database itself (a player no version allowed)
    db = next(data.glob("*.db"))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE matches SET record = ? WHERE id = ?",
                     ('{"players": ["A", "B"], "turns": [{"player": "Zed", "placed": {}}]}',
                      match_id))
    store = open_store(data)
    try:
        table, client = server(store)
        assert table.match is None
        [alert] = client.get("/api/state").get_json()["alerts"]
        assert alert["kind"] == "as-recorded"
        assert f"match {match_id} could not be resumed" in alert["reasons"][0]
        assert client.get("/matches").status_code == 200
        page = client.get(f"/matches/{match_id}")
        assert page.status_code == 422 and "cannot be replayed" in page.text
        doc = client.get(f"/api/matches/{match_id}")
        assert doc.status_code == 200 and doc.get_json()["result"] is None
        assert "cannot be replayed" in doc.get_json()["notes"][0]
        # a new match starts at the table all the same
        new_id = table.new_match(["A", "B"], "A")
        assert new_id != match_id
        state = client.get("/api/state").get_json()
        assert state["players"] == ["A", "B"] and state["turn"] == "A"
        assert state["board"] == {} and table.match.current_player == "A"
    finally:
        store.close()


def test_an_old_finished_match_with_teams_of_three_is_analysed_as_recorded(tmp_path):
    from zatre_vision.server.analysis_jobs import AnalysisRunner

    store = open_store(tmp_path)
    try:
        match_id = stored(store, TEAMS_OF_THREE, finished=True, totals={"A": 6, "B": 1})
        job = AnalysisRunner(store)
        job.run_one(match_id)
        status = job.status(match_id)
        assert status["status"] == "done", status
        assert status["done"] == status["total"] == 2
    finally:
        store.close()
