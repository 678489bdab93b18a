"""The club overview (issue 39, item 7): several tables on one database, each with its
live match on one page, linked to its own dashboard. Runs on SQLite and on
PostgreSQL (the club server's case)."""

from zatre_vision.server import create_app
from zatre_vision.server.club import dashboard_url, register_dashboard
from zatre_vision.server.context import context
from zatre_vision.table import Table

FIRST = {"H8": 6, "H7": 5, "G7": 5}


def test_two_tables_on_one_database_show_on_one_page(databases, settings):
    store_a, store_b, store_club = databases.open(), databases.open(), databases.open()
    a, b = Table(store_a, "table-1"), Table(store_b, "table-2")
    register_dashboard(store_a, "table-1", "127.0.0.1", 18001)
    a.new_match(["Ann", "Ben"], "Ann")
    a.commit_turn(FIRST)
    b.new_match(["Cleo", "Dora", "Eve"], "Eve")
    club = create_app(settings, Table(store_club, "club-overview"), store_club)
    context(club).club = True
    c = club.test_client()
    assert c.get("/").headers["Location"].endswith("/club")
    tables = {t["table"]: t for t in c.get("/api/club").get_json()["tables"]}
    assert set(tables) == {"table-1", "table-2"}
    one, two = tables["table-1"], tables["table-2"]
    assert one["board"] == FIRST and one["turn"] == "Ben" and one["totals"]["Ann"] == 6
    assert one["url"] == "http://127.0.0.1:18001/" and two["url"] is None
    assert two["turn"] == "Eve" and two["board"] == {} and two["turn_number"] == 1
    b.commit_turn(FIRST)                       # live: the next request shows it
    two = {t["table"]: t for t in c.get("/api/club").get_json()["tables"]}["table-2"]
    assert two["turn"] == "Cleo" and two["totals"]["Eve"] == 6
    page = c.get("/club").get_data(as_text=True)
    assert "club.js" in page and "table-1" in page
    a.annul(a.match_id, "mistake")
    one = {t["table"]: t for t in c.get("/api/club").get_json()["tables"]}["table-1"]
    assert one["match_id"] is None and one["players"] == []
    for s in (store_a, store_b, store_club):
        s.close()


def test_dashboard_url_names_the_machine_when_listening_everywhere():
    assert dashboard_url("10.0.0.5", 8000) == "http://10.0.0.5:8000/"
    assert dashboard_url("0.0.0.0", 8000).startswith("http://") and "0.0.0.0" not in \
        dashboard_url("0.0.0.0", 8000)
    assert dashboard_url("::1", 80) == "http://[::1]:80/"


def test_the_club_server_is_an_overview_not_a_table(databases, settings):
    """zatre serve --club: no Setup, no table pages, no match played here; the records,
    rankings and tournaments are there, and nothing lists a "club-overview" table."""
    store = databases.open()
    app = create_app(settings, Table(store, "club-overview"), store, club=True)
    c = app.test_client()
    with c.session_transaction() as sess:
        sess["csrf"] = "t"
        sess["auth"] = context(app).pins.fingerprint()
    for path in ("/", "/setup", "/sheet", "/calibration"):
        assert c.get(path).headers["Location"].endswith("/club"), path
    page = c.get("/club").get_data(as_text=True)
    assert 'id="main"' in page and 'href="/setup"' not in page and 'href="/sheet"' not in page
    for path, body in (("/setup", {"players": ["Ann", "Ben"], "starter": "Ann", "camera": "none"}),
                       ("/table/turn", {"placed": FIRST})):
        r = c.post(path, json=body, headers={"X-CSRF-Token": "t"})
        assert r.status_code == 409 and "plays no match" in r.get_json()["error"], path
    assert c.post("/tournaments", json={"name": "Cup", "players": "Ann, Ben, Cleo"},
                  headers={"X-CSRF-Token": "t"}).status_code == 200
    r = c.post("/tournaments/1/play", json={"a": "Ann", "b": "Ben"}, headers={"X-CSRF-Token": "t"})
    assert r.status_code == 409
    assert c.post("/tournaments", json={"name": "Abend", "format": "tables", "rounds": 1,
                                        "players": "Ann, Ben, Cleo, Dora"},
                  headers={"X-CSRF-Token": "t"}).status_code == 200  # an evening: paired here
    r = c.post("/tournaments/2/table", json={"table": "1:Ann|Ben|Cleo|Dora"},
               headers={"X-CSRF-Token": "t"})
    assert r.status_code == 409 and "plays no match" in r.get_json()["error"]  # played at a table
    for path in ("/matches", "/rankings", "/tournaments", "/tournaments/1", "/api/matches"):
        assert c.get(path).status_code == 200, path
    assert store.tables() == [] and c.get("/api/club").get_json() == {"tables": []}
    store.close()
