"""Every route through the Flask test client: reads, writes, bad input, missing PIN."""

import json
import re

import pytest

from zatre_vision.server import create_app
from zatre_vision.server.context import context

from .conftest import PIN

ADMIN_POSTS = ["/setup", "/table/draw", "/table/turn", "/table/accept", "/table/reject",
               "/table/undo", "/table/cell", "/table/held", "/table/finish", "/table/profi",
               "/tournaments", "/tournaments/1/play"]


def test_pages_render_for_spectators(client, playing):
    for url in ["/", "/sheet", "/setup", "/login", "/matches", "/matches/1", "/matches/1/print",
                "/rankings", "/tournaments"]:
        resp = client.get(url)
        assert resp.status_code == 200, url
        assert b"ZATRE" in resp.data
    assert b"Sign in with the table PIN" in client.get("/").data
    assert b'id="controls"' not in client.get("/").data
    assert client.get("/static/app.js").status_code == 200
    assert "script-src 'self'" in client.get("/").headers["Content-Security-Policy"]


def test_api_state_contract(client, playing):
    st = client.get("/api/state").get_json()
    for key in ("players", "turn", "board", "sheets", "bag", "pending", "alerts", "camera",
                "version", "match_id", "last_turn", "hints"):
        assert key in st
    assert st["players"] == ["Ann", "Ben"] and st["turn"] == "Ben"
    assert st["board"] == {"H8": 6, "H7": 5, "G7": 5}
    assert st["sheets"]["Ann"]["rows"][0] == {"x2": True, "10": 1, "11": 2, "12": None,
                                               "bonus": 0, "total": 6}
    assert st["bag"] == 118 and st["pending"] is None
    assert st["camera"]["source"] == "none"


def test_api_matches_and_match(client, playing, table):
    table.commit_turn({}, source="manual")
    table.finish({"Ann": 0, "Ben": 4})
    table.new_match(["Cleo", "Dan"], source="manual")
    data = client.get("/api/matches").get_json()
    assert data["total"] == 2 and [m["id"] for m in data["matches"]] == [2, 1]
    first = data["matches"][1]
    assert first["players"] == ["Ann", "Ben"] and first["totals"] == {"Ann": 6, "Ben": -4}
    assert first["winner"] == "Ann" and first["date"]
    assert data["matches"][0]["winner"] is None
    doc = client.get("/api/matches/1").get_json()
    assert doc["players"] == ["Ann", "Ben"] and doc["minus"] == {"Ann": 0, "Ben": 4}
    assert doc["turns"][0] == {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}}
    assert doc["result"]["sheets"]["Ann"]["total"] == 6
    assert doc["result"]["turns"][0]["points"] == {"10": 1, "11": 2, "12": 0}
    assert client.get("/api/matches?page=2").get_json()["matches"] == []


@pytest.mark.parametrize("url,code", [("/api/matches?page=0", 400), ("/api/matches?page=x", 400),
                                      ("/api/matches/99", 404), ("/matches/99", 404),
                                      ("/matches?page=-1", 400), ("/matches/99/export.csv", 404),
                                      ("/matches/1/turns/5/snapshot.jpg", 404),
                                      ("/tournaments/9", 404), ("/rankings?season=1850", 404),
                                      ("/nowhere", 404)])
def test_bad_reads_are_clear_4xx(client, playing, url, code):
    resp = client.get(url)
    assert resp.status_code == code
    if url.startswith("/api/"):
        assert resp.get_json()["error"]
    else:
        assert b"error-message" in resp.data


def test_events_stream(app, table, playing):
    client = app.test_client()
    resp = client.get("/events")
    assert resp.mimetype == "text/event-stream"
    chunks = (c.decode() for c in resp.response)
    assert next(chunks).startswith("retry:")
    first = next(chunks)
    assert first.startswith("event: state\ndata: ")
    state = json.loads(first.split("data: ", 1)[1])
    assert state["board"] == {"H8": 6, "H7": 5, "G7": 5}
    assert next(chunks) == ": keep-alive\n\n"  # keepalive_s is 0.2 in the tests
    table.set_cell("H8", 5)
    changed = json.loads(next(chunks).split("data: ", 1)[1])
    assert changed["board"]["H8"] == 5 and changed["version"] == state["version"] + 1
    table.close()
    assert list(chunks) == []  # the stream ends cleanly on shutdown
    assert table.subscriber_count == 0


@pytest.mark.parametrize("url", ADMIN_POSTS)
def test_writes_need_the_pin(client, playing, url):
    resp = client.post(url, json={}, headers={"Accept": "application/json"})
    assert resp.status_code == 401
    assert "PIN" in resp.get_json()["error"]
    assert client.post(url, json={}, headers={"X-Table-PIN": "0000"}).status_code == 401


def test_signed_in_without_csrf_token_is_refused(app, playing):
    c = app.test_client()
    with c.session_transaction() as sess:
        sess["csrf"] = "tok"
        sess["auth"] = context(app).pins.fingerprint()
    resp = c.post("/table/undo", json={})
    assert resp.status_code == 400 and "security token" in resp.get_json()["error"]
    resp = c.post("/table/undo", json={}, headers={"X-CSRF-Token": "other"})
    assert resp.status_code == 400
    assert c.post("/table/undo", json={}, headers={"X-CSRF-Token": "tok"}).status_code == 200


def test_login_form_flow(client, playing):
    page = client.get("/login").data.decode()
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    assert client.post("/login", data={"pin": PIN}).status_code == 400  # no token
    bad = client.post("/login", data={"pin": "1111", "csrf_token": token})
    assert bad.status_code == 401
    ok = client.post("/login", data={"pin": PIN, "csrf_token": token, "next": "/sheet"})
    assert ok.status_code == 302 and ok.headers["Location"].endswith("/sheet")
    assert b'id="controls"' in client.get("/").data
    evil = client.post("/login", data={"pin": PIN, "csrf_token": token, "next": "//evil.example"})
    assert evil.headers["Location"].endswith("/")
    client.post("/logout", data={"csrf_token": token})
    assert b'id="controls"' not in client.get("/").data


def test_wrong_pins_are_rate_limited(app, client, playing):
    now = [1000.0]
    context(app).pins.clock = lambda: now[0]
    for _ in range(3):
        assert client.post("/table/undo", headers={"X-Table-PIN": "0000"}).status_code == 401
    locked = client.post("/table/undo", headers={"X-Table-PIN": PIN})
    assert locked.status_code == 429 and locked.headers["Retry-After"] == "2"
    assert "try again in 2 s" in locked.get_json()["error"]
    now[0] += 2
    assert client.post("/table/undo", headers={"X-Table-PIN": PIN}).status_code == 200


def test_pin_header_for_club_tools(client, playing):
    resp = client.post("/table/turn", json={"placed": {"I8": 4}},
                       headers={"X-Table-PIN": PIN})
    assert resp.status_code == 200 and resp.get_json()["turn"]["legal"]
    assert resp.get_json()["state"]["board"]["I8"] == 4


def test_manual_turns_flags_overrides_and_undo(operator, playing):
    bad = operator.post_json("/table/turn", {"placed": {"I8": 6, "J8": 6}})
    assert bad.status_code == 200
    assert bad.get_json()["turn"]["legal"] is False
    state = bad.get_json()["state"]
    assert state["alerts"][0]["reasons"] == ["line H8-J8 sums to 18, more than 12"]
    again = operator.post_json("/table/turn", {"placed": {"I9": 1}})
    assert again.status_code == 409 and "flagged turn" in again.get_json()["error"]
    assert operator.post_json("/table/reject").status_code == 200
    assert operator.post_json("/table/reject").status_code == 409
    operator.post_json("/table/turn", {"placed": {"I8": 6, "J8": 6}})
    acc = operator.post_json("/table/accept")
    assert acc.get_json()["state"]["board"]["J8"] == 6
    assert acc.get_json()["state"]["last_turn"]["override"] is True
    assert operator.post_json("/table/undo").status_code == 200
    assert "J8" not in operator.get("/api/state").get_json()["board"]
    assert operator.post_json("/table/turn", {"placed": "I8=4"}).status_code == 200


@pytest.mark.parametrize("url,body,fragment", [
    ("/table/turn", {"placed": {"Z99": 4}}, "cell"),
    ("/table/turn", {"placed": {"H1": 4}}, "not a cell of the board"),
    ("/table/turn", {"placed": {"I8": 7}}, "1 to 6"),
    ("/table/turn", {"placed": {"I8": "four"}}, "1 to 6"),
    ("/table/turn", {"placed": ["I8"]}, "mapping"),
    ("/table/turn", {"placed": "I8:4"}, "H8=6"),
    ("/table/turn", {"placed": {"I8": 4}, "hand": [9]}, "1 to 6"),
    ("/table/cell", {"cell": "H8", "value": 0}, "1 to 6"),
    ("/table/cell", {"cell": 8, "value": 2}, "cell"),
    ("/table/cell", {"cell": "H8", "value": True}, "1 to 6"),
    ("/table/held", {"tiles": ""}, "held-back"),
    ("/table/held", {"tiles": "5 x"}, "1 to 6"),
    ("/table/finish", {"minus": {"Zed": 3}}, "unknown player"),
    ("/table/finish", {"minus": {"Ann": -2}}, "from 0 to 726"),
    ("/table/finish", {"minus": {"Ann": "lots"}}, "whole number"),
    ("/table/finish", {"minus": ["Ann"]}, "per player"),
    ("/table/profi", {"profi": "maybe"}, "on or off"),
    ("/setup", {"players": ["Ann"]}, "2 to 6"),
    ("/setup", {"players": ["Ann", "ann"]}, "different"),
    ("/setup", {"players": ["Ann", "<script>"]}, "usable name"),
    ("/setup", {"players": ["Ann", "Ben"], "starter": "Cleo"}, "starting player"),
    ("/setup", {"players": ["Ann", "Ben"], "camera": "../../etc"}, "camera source"),
    ("/setup", {"players": ["Ann", "Ben"], "teams": {"Ann": 9}}, "two partners per team"),
    ("/setup", {"players": ["Ann", "Ben"], "teams": {"Ann": 3, "Ben": 3}}, "4 or 6 players"),
    ("/setup", {"players": ["Ann", "Ben"], "teams": {"Ann": 1, "Ben": 1}}, "two partners"),
    ("/setup", {"players": ["Ann", "Ben"], "teams": {"Ann": 2}}, "4 or 6 players"),
    ("/setup", {"players": ["A", "B", "C", "D"], "team_game": "on"}, "4 or 6 players"),
    ("/table/draw", {"players": "Ann"}, "2 to 6"),
    ("/tournaments", {"name": "Cup", "players": "A,B"}, "3 to 16"),
    ("/tournaments", {"name": "", "players": "A,B,C"}, "name"),
])
def test_bad_input_is_a_clear_400(operator, playing, url, body, fragment):
    resp = operator.post_json(url, body)
    assert resp.status_code == 400, resp.get_json()
    assert fragment in resp.get_json()["error"]


def test_bad_bodies(operator, playing):
    r = operator.post("/table/turn", data="[1,2]", content_type="application/json",
                      headers={"X-CSRF-Token": "test-token"})
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
    big = operator.post("/table/turn", data="x" * 70000, content_type="text/plain",
                        headers={"X-CSRF-Token": "test-token"})
    assert big.status_code == 413


def test_corrections_recompute_the_sheets(operator, playing):
    r = operator.post_json("/table/cell", {"cell": "h8", "value": 5})
    sheet = r.get_json()["state"]["sheets"]["Ann"]
    assert sheet["rows"][0]["10"] == 2 and sheet["total"] == 4
    r = operator.post_json("/table/cell", {"cell": "G7", "value": None})
    assert "G7" not in r.get_json()["state"]["board"]
    r = operator.post_json("/table/cell", {"cell": "I8", "value": 1})  # a tile the camera missed
    assert r.get_json()["state"]["board"]["I8"] == 1
    events = context(operator.application).store.events(1)
    assert [e["kind"] for e in events].count("correction") == 3


def test_held_tiles_and_finish(operator, playing):
    playing.commit_turn({"G8": 5}, source="manual")  # Ben places one of his two tiles
    r = operator.post_json("/table/held", {"tiles": "6", "turn": 2})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["message"] == "Tiles 6 recorded as kept back by Ben in turn 2."
    st = r.get_json()["state"]
    assert st["held"] == {"Ben": [6]} and st["bag"] == 116
    assert st["turn_players"] == ["Ann", "Ben"]
    r = operator.post_json("/table/finish", {"minus": {"Ann": 0, "Ben": [6]}})
    st = r.get_json()["state"]
    assert st["finished"] and st["sheets"]["Ben"]["minus"] == 6 and st["winners"] == ["Ann"]
    assert operator.post_json("/table/finish", {"minus": {}}).status_code == 409


def test_profi_switch(operator, playing):
    assert operator.post_json("/table/profi", {"profi": True}).get_json()["state"]["hints"] == {}
    st = operator.post_json("/table/profi", {"profi": "off"}).get_json()["state"]
    assert st["hints"] and not st["profi"]


def test_setup_starts_a_match_with_a_draw(operator, table):
    r = operator.post_json("/setup", {"players": ["Ann", "Ben", "Cleo"], "starter": "draw",
                                      "camera": "none"})
    body = r.get_json()
    assert r.status_code == 200 and body["draw"]["starter"] in ("Ann", "Ben", "Cleo")
    assert body["state"]["turn"] == body["draw"]["starter"]
    r = operator.post_json("/setup", {"players": "Dora, Emil", "starter": "Emil",
                                      "teams": {"Dora": 2, "Emil": 2}})
    assert r.get_json()["state"]["teams"] == {"Dora": 2, "Emil": 2}
    assert operator.post_json("/table/draw", {"players": ["A", "B"]}).get_json()["starter"]


def test_the_setup_form_starts_a_team_game_of_two_partners_per_team(operator, table):
    page = operator.get("/setup").text
    assert 'name="team_game"' in page and "two partners" in page
    r = operator.post("/setup", data={"csrf_token": "test-token", "team_game": "on",
                                      "players[]": ["Dora", "Emil", "Fay", "", "", ""],
                                      "starter": "Fay", "camera": "none"})
    assert r.status_code == 302
    assert table.state()["teams"] == {"Dora": 2, "Emil": 2, "Fay": 2}


def test_first_setup_chooses_the_pin(databases):
    from zatre_vision.config import load_settings
    from zatre_vision.server import create_app
    from zatre_vision.table import Table

    store = databases.open()
    settings = load_settings(None, {"server": {"data_dir": str(databases.tmp_path / "data")}})
    app = create_app(settings, Table(store, "t"), store)
    c = app.test_client()
    page = c.get("/setup").data.decode()
    assert 'name="new_pin"' in page
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    assert c.post("/login", data={"pin": "1234", "csrf_token": token}).status_code == 409
    code = context(app).pins.setup_code()
    bad = c.post("/setup", data={"csrf_token": token, "new_pin": "12", "players[]": ["A", "B"],
                                 "setup_code": code})
    assert bad.status_code == 400
    ok = c.post("/setup", data={"csrf_token": token, "new_pin": "975310", "setup_code": code,
                                "players[]": ["Ann", "Ben", ""], "starter": "Ben",
                                "camera": "none"})
    assert ok.status_code == 302
    assert context(app).table.state()["players"] == ["Ann", "Ben"]
    assert c.post("/table/undo", headers={"X-Table-PIN": "975310"}).status_code == 409
    assert store.get_setting("pin_hash:t") != "975310"  # stored hashed


def test_records_pages_and_exports(operator, playing, table):
    table.commit_turn({"I8": 4}, snapshot_jpeg=b"\xff\xd8\xff\xe0fake", source="camera")
    table.commit_turn({}, source="manual")
    table.finish({"Ann": 2, "Ben": 0})
    html = operator.get("/matches/1").data.decode()
    assert "steps-data" in html and "snapshot.jpg" in html
    snap = operator.get("/matches/1/turns/2/snapshot.jpg")
    assert snap.mimetype == "image/jpeg" and snap.data.startswith(b"\xff\xd8")
    js = operator.get("/matches/1/export.json")
    assert json.loads(js.data)["result"]["sheets"]["Ann"]["minus"] == 2
    assert "attachment" in js.headers["Content-Disposition"]
    csv = operator.get("/matches/1/export.csv").data.decode()
    assert csv.splitlines()[0].startswith("match,turn,player,placed")
    assert "1,1,Ann,H8=6 H7=5 G7=5,1,0,1,2,0,2," in csv
    assert "pass" in csv
    printed = operator.get("/matches/1/print").data.decode()
    assert "Grand Total" in printed and "Minus" in printed
    ranks = operator.get("/rankings").data.decode()
    assert "Ann" in ranks and "Ben" in ranks
    assert operator.get("/rankings?season=2025").status_code == 200


def test_tournament_round_robin(operator, table):
    r = operator.post_json("/tournaments", {"name": "Spring cup", "players": "Ann, Ben, Cleo, Dan"})
    tid = r.get_json()["tournament_id"]
    page = operator.get(f"/tournaments/{tid}").data.decode()
    assert page.count("Play at this table") == 6
    r = operator.post_json(f"/tournaments/{tid}/play", {"a": "Ann", "b": "Dan"})
    assert r.status_code == 200
    st = r.get_json()["state"]
    assert st["players"] == ["Ann", "Dan"] and st["tournament_id"] == tid
    assert operator.post_json(f"/tournaments/{tid}/play", {"a": "Ann", "b": "Zed"}).status_code == 400
    assert operator.post_json("/tournaments/77/play", {"a": "Ann", "b": "Ben"}).status_code == 404
    assert operator.post_json("/table/turn", {"placed": {"H8": 6, "H7": 5, "G7": 5}}).status_code == 200
    operator.post_json("/table/turn", {"placed": {}})
    operator.post_json("/table/finish", {"minus": {"Ann": 0, "Dan": 0}})
    page = operator.get(f"/tournaments/{tid}").data.decode()
    assert "6 : 0" in page or "0 : 6" in page
    assert operator.get("/tournaments").status_code == 200


def test_setup_can_switch_to_the_demo_and_back(settings, table, store):
    from zatre_vision.server import create_app
    from zatre_vision.server.camera import CameraControl

    camera = CameraControl(table, demo_interval=60, demo_seed=1)
    app = create_app(settings, table, store, camera)
    c = app.test_client()
    hdr = {"X-Table-PIN": PIN}
    table.new_match(["Ann", "Ben"], source="manual")
    assert c.post("/setup", json={"players": ["Xia", "Yann"], "camera": "demo"},
                  headers=hdr).status_code == 200
    camera.runner.tick()  # a new simulated game with the chosen names, at once
    camera.runner.tick()
    st = table.state()
    assert st["players"] == ["Xia", "Yann"] and st["source"] == "demo" and st["turns_played"] == 1
    assert st["camera"]["state"] == "ok"
    assert c.post("/setup", json={"players": ["Ann", "Ben"], "camera": "none"},
                  headers=hdr).status_code == 200
    assert camera.runner is None and table.state()["camera"]["state"] == "off"
    c.post("/setup", json={"players": ["Ann", "Ben"], "camera": "picamera2"}, headers=hdr)
    assert table.state()["camera"]["state"] == "error"
    assert table.state()["alerts"][-1]["kind"] == "camera"
    camera.stop()


class _WatchingCamera:
    """A camera pipeline that takes events (as ``CameraControl.event`` does)."""

    def __init__(self):
        self.events = []

    def event(self, name):
        self.events.append(name)
        return True


@pytest.mark.parametrize("state, says", [
    ("ok", "the tiles on the board are committed"),
    ("unreadable", "the camera cannot read the board now, so the turn is committed once it can"),
    ("no-board", "the camera cannot read the board now, so the turn is committed once it can"),
])
def test_end_turn_says_when_the_camera_cannot_read_the_board(settings, playing, store, state,
                                                             says):
    camera = _WatchingCamera()
    app = create_app(settings, playing, store, camera)
    c = app.test_client()
    with c.session_transaction() as sess:
        sess["csrf"] = "t"
        sess["auth"] = context(app).pins.fingerprint()
    playing.set_camera_status({"state": state, "message": ""})
    r = c.post("/table/end-turn", json={}, headers={"X-CSRF-Token": "t"})
    assert r.status_code == 200
    assert says in r.get_json()["message"]
    assert camera.events == ["end_turn"]


def test_the_event_log_says_which_turn_a_late_tile_joined(operator, playing, table):
    table.commit_turn({"G8": 1}, source="camera")
    # a late tile's camera correction, as a stored match holds it: its event names the turn
    m = table.match
    m.add_to_turn(1, "F8", 4)
    table.store.save_match(table.match_id, record=m.to_record(), pending=None, finished=False,
                           totals=m.totals(), winners=[], kind="correction",
                           payload={"cell": "F8", "value": 4, "turn": 2}, source="camera")
    table.set_cell("G8", 2)
    html = operator.get("/matches/1").data.decode()
    assert "F8=4 read late and added to turn 2." in html
    # a correction by hand: its own line, with the turn's score after it
    assert re.search(r"G8 corrected to 2: turn 2 by \w+ now scores \d+ points?", html), html


def test_undo_after_the_end_says_the_match_reopens(operator, playing):
    assert operator.post_json("/table/finish", {"minus": {"Ann": 0, "Ben": 9}}).status_code == 200
    resp = operator.post_json("/table/undo")
    assert resp.status_code == 200 and "reopened" in resp.get_json()["message"]
    state = resp.get_json()["state"]
    assert not state["finished"] and state["turns_played"] == 1


def test_a_new_match_over_a_running_one_must_be_asked_for(operator, playing, store):
    refused = operator.post_json("/setup", {"players": ["Cleo", "Dan"], "camera": "none"})
    assert refused.status_code == 409 and "still running" in refused.get_json()["error"]
    assert playing.state()["players"] == ["Ann", "Ben"]
    assert 'name="replace"' in operator.get("/setup").get_data(as_text=True)
    ok = operator.post_json("/setup", {"players": ["Cleo", "Dan"], "camera": "none",
                                       "replace": True})
    assert ok.status_code == 200 and playing.state()["players"] == ["Cleo", "Dan"]
    history = operator.get("/matches").get_data(as_text=True)
    assert "unfinished" in history and "playing" in history
    assert store.active_match_ids() == {playing.match_id}


def test_undo_is_refused_in_the_demo_game(operator, table):
    table.new_match(["Ann", "Ben"], "Ann", source="demo")
    table.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="demo")
    resp = operator.post_json("/table/undo")
    assert resp.status_code == 409 and "demo" in resp.get_json()["error"]
    assert table.state()["turns_played"] == 1
