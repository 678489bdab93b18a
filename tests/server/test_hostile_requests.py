"""Requests built to break the server: each gets a clear 4xx and leaves the match as it
was (no 500, no half-done action, nothing stored that the reply says was refused)."""

import pytest

from zatre_vision.config import load_settings
from zatre_vision.server import create_app
from zatre_vision.server.context import context
from zatre_vision.table import Table

from .conftest import PIN

JSON_HEADERS = {"X-CSRF-Token": "test-token", "Accept": "application/json"}


def snapshot(table):
    state = table.state()
    return state["board"], state["turns_played"], state["version"], state["finished"]


@pytest.mark.parametrize("target", ["/x\n", "/x\r", "/x\nSet-Cookie: a=b"])
def test_a_newline_in_next_does_not_turn_a_committed_turn_into_an_error(operator, playing,
                                                                        target):
    resp = operator.post("/table/turn", data={"placed": "I8=4", "next": target,
                                              "csrf_token": "test-token"})
    assert resp.status_code == 302
    assert resp.headers["Location"] == "/"  # the bad target is ignored, not followed
    assert playing.state()["board"]["I8"] == 4


@pytest.mark.parametrize("target", ["//evil.example/x", "/\t/evil.example/x", "/\\evil.example",
                                    "https://evil.example/", "/ok path"])
def test_forms_only_send_the_browser_to_paths_on_this_server(client, operator, target):
    page = client.get("/login", query_string={"next": target}).data.decode()
    assert 'name="next" value="/"' in page
    resp = operator.post("/logout", data={"csrf_token": "test-token", "next": target})
    assert resp.status_code == 302 and resp.headers["Location"] == "/"


def test_a_local_next_is_still_followed(operator):
    resp = operator.post("/logout", data={"csrf_token": "test-token", "next": "/matches?page=2"})
    assert resp.headers["Location"] == "/matches?page=2"


@pytest.mark.parametrize("url", ["/setup", "/login", "/table/turn"])
def test_deeply_nested_json_is_a_400(client, operator, playing, url):
    before = snapshot(playing)
    body = "[" * 5000
    for c in (client, operator):
        resp = c.post(url, data=body, content_type="application/json", headers=JSON_HEADERS)
        assert resp.status_code in (400, 401), resp.data[:200]
        assert "error" in resp.get_json()
    assert snapshot(playing) == before


def test_head_on_the_event_stream_leaves_no_subscription(client, playing):
    for _ in range(5):
        assert client.head("/events").status_code == 200
    assert playing.subscriber_count == 0


@pytest.mark.parametrize("url,kw", [
    ("/table/turn", {}),
    ("/table/turn", {"json": {"Placed": {"I8": 4}}}),
    ("/table/turn", {"data": '{"placed": {"I8": 4}}', "content_type": "text/plain"}),
    ("/table/finish", {}),
    ("/table/finish", {"json": {"Minus": {"Ben": 9}}}),
])
def test_an_action_without_its_fields_is_refused_not_taken_as_a_pass(operator, playing, url, kw):
    before = snapshot(playing)
    resp = operator.post(url, headers=JSON_HEADERS, **kw)
    assert resp.status_code == 400
    assert resp.get_json()["error"]
    assert snapshot(playing) == before


def test_an_explicit_pass_and_explicit_minus_points_still_work(operator, playing):
    assert operator.post_json("/table/turn", {"placed": {}}).status_code == 200
    resp = operator.post_json("/table/finish", {"minus": {"Ann": 0, "Ben": [4, 5]}})
    assert resp.status_code == 200
    assert resp.get_json()["state"]["finished"]


@pytest.mark.parametrize("url,body", [
    ("/table/cell", '{"cell": "I8", "value": 1e999}'),
    ("/table/turn", '{"placed": {"I8": 1e999}}'),
    ("/table/turn", '{"placed": {"I8": 4}, "hand": [1e999]}'),
    ("/table/held", '{"tiles": [1e999]}'),
    ("/table/finish", '{"minus": {"Ann": 1e999}}'),
    ("/table/finish", '{"minus": {"Ann": 1.9}}'),
    ("/table/finish", '{"minus": {"Ann": true}}'),
    ("/table/finish", '{"minus": {"Ann": "\u00b2"}}'),
    ("/setup", '{"players": ["Ann", "Ben"], "teams": {"Ann": 1e999}}'),
    ("/setup", '{"players": ["Ann", "Ben"], "teams": {"Ann": 2.5}}'),
    ("/setup", '{"players": ["Ann", null, true]}'),
    ("/setup", '{"players": ["Ann", "Ben"], "tournament_id": "\u00b2"}'),
    ("/setup", '{"players": ["Ann", "Ben"], "tournament_id": ' + "9" * 30 + "}"),
    ("/setup", '{"players": ["Ann", "Ben"], "tournament_id": "' + "9" * 5000 + '"}'),
    ("/tournaments", '{"name": "Cup", "players": 5}'),
    ("/tournaments", '{"name": null, "players": ["Ann", "Ben", "Cleo"]}'),
    ("/tournaments", '{"name": "Cup", "players": ["Ann", "Ben", 7]}'),
    ("/tournaments", '{"name": "Cup", "players": ["Ann", "Ben", "Cleo"], "season": ["x"]}'),
    ("/tournaments", '{"name": "Cup", "players": ["Ann", "Ben", "Cleo"], "season": "a\\u0000b"}'),
])
def test_wrong_numbers_and_types_are_a_400(operator, playing, store, url, body):
    before = snapshot(playing), store.tournaments()
    resp = operator.post(url, data=body, content_type="application/json", headers=JSON_HEADERS)
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"]
    assert (snapshot(playing), store.tournaments()) == before


@pytest.mark.parametrize("url", [
    "/api/matches/99999999999999999999999", "/matches/99999999999999999999999",
    "/matches/99999999999999999999999/print", "/matches/99999999999999999999999/export.json",
    "/matches/99999999999999999999999/export.csv",
    "/matches/1/turns/99999999999999999999999/snapshot.jpg",
    "/tournaments/99999999999999999999999",
])
def test_ids_beyond_the_database_are_not_found(client, playing, url):
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("page", ["\u00b2", "9" * 5000, "-1", "0", "1.5"])
def test_a_bad_page_number_is_a_400(client, playing, page):
    for url in ("/api/matches", "/matches"):
        assert client.get(url, query_string={"page": page}).status_code == 400


def test_error_messages_stay_one_short_line(operator, playing):
    resp = operator.post_json("/table/turn", {"placed": {"I8": 4}, "player": "x" * 60000})
    assert resp.status_code == 400
    message = resp.get_json()["error"]
    assert len(message) <= 300 and "\n" not in message
    assert "I8" not in playing.state()["board"]


def test_first_setup_keeps_no_pin_when_the_form_is_refused(databases):
    store = databases.open()
    settings = load_settings(None, {"server": {"data_dir": str(databases.tmp_path / "data")}})
    app = create_app(settings, Table(store, "t"), store)
    c = app.test_client()
    page = c.get("/setup").data.decode()
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    code = context(app).pins.setup_code()
    bad = c.post("/setup", data={"csrf_token": token, "new_pin": "1357", "players[]": ["Ann"],
                                 "setup_code": code})
    assert bad.status_code == 400
    assert not context(app).pins.is_set
    ok = c.post("/setup", data={"csrf_token": token, "new_pin": "246813", "setup_code": code,
                                "players[]": ["Ann", "Ben"], "camera": "none"})
    assert ok.status_code == 302
    assert c.post("/table/undo", headers={"X-Table-PIN": "246813"}).status_code == 409
    assert c.post("/table/undo", headers={"X-Table-PIN": "1357"}).status_code == 401


def test_an_unexpected_fault_is_one_line_and_logged(app, client, caplog):
    @app.get("/boom-for-test")
    def boom():
        raise RuntimeError("secret detail")

    resp = client.get("/boom-for-test", headers={"Accept": "application/json"})
    assert resp.status_code == 500
    assert resp.get_json()["error"].startswith("internal error (RuntimeError)")
    assert "secret detail" not in resp.get_data(as_text=True)
    assert "secret detail" in caplog.text


def test_the_pin_header_still_works_with_the_fixes(client, playing):
    resp = client.post("/table/turn", json={"placed": {"I8": 4}}, headers={"X-Table-PIN": PIN})
    assert resp.status_code == 200 and playing.state()["board"]["I8"] == 4


def test_a_database_that_refuses_writes_is_a_503_and_the_match_stays(operator, playing, store,
                                                                        caplog, monkeypatch):
    """Disk full (or a read-only database): one line back, one line in the log, and the
    table keeps the match as it is stored."""
    before = snapshot(playing)
    real = store.conn

    class FullDisk:
        def cursor(self):
            return self

        def execute(self, sql, params=()):
            if sql.startswith(("INSERT", "UPDATE")):
                raise __import__("sqlite3").OperationalError("database or disk is full")
            return real.execute(sql, params)

    monkeypatch.setattr(store, "conn", FullDisk())
    resp = operator.post_json("/table/turn", {"placed": {"I8": 4}})
    assert resp.status_code == 503
    assert "disk is full" in resp.get_json()["error"] and "not saved" in resp.get_json()["error"]
    assert "Traceback" not in caplog.text and "disk is full" in caplog.text
    assert snapshot(playing) == before
    monkeypatch.setattr(store, "conn", real)
    assert operator.post_json("/table/turn", {"placed": {"I8": 4}}).status_code == 200
    assert playing.state()["board"]["I8"] == 4
