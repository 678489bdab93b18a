"""Idempotent writes: every write sent twice from the same revision (a double click, a
resent form, a retried API call) changes the match once; the repeat is answered
"Already recorded". Through the API (X-Table-PIN) and the browser's way (session and
CSRF token: JSON from the table page, form fields from Setup and Tournaments)."""

import pytest

from zatre_vision.server import create_app
from zatre_vision.server.context import context

from .conftest import PIN


class _WatchingCamera:
    def __init__(self):
        self.events = []

    def event(self, name):
        self.events.append(name)
        return True

    def start(self, source, players=None, fresh=False):
        pass


def _playing(t):
    t.new_match(["Ann", "Ben"], "Ann", source="manual")
    t.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="manual")


def _two_turns(t):
    _playing(t)
    t.commit_turn({"G8": 5}, source="manual")  # Ben keeps his other tile back


def _flagged(t):
    _playing(t)
    t.commit_turn({"I8": 6, "J8": 6}, source="manual")   # 18: flagged


def _cards(t):
    t.new_match(["Ann", "Ben", "Cleo"], "Ann", source="manual", variant="cards")
    t.commit_turn({"0,0": 6, "1,0": 4}, source="manual")
    t.commit_turn({"2,0": 0}, source="manual")


def _blocked_cards(t):
    """A card round that can be blocked: only 0 and 1 still fit anywhere."""
    t.new_match(["Ann", "Ben", "Cleo"], "Ben", source="manual", variant="cards")
    t.commit_turn({"0,0": 6, "1,0": 6}, source="manual")
    t.commit_turn({"0,1": 5}, source="manual")
    t.pass_turn()
    t.commit_turn({"1,1": 6}, source="manual")


def _tournament(t):
    t.store.create_tournament("Cup", ["Ann", "Ben", "Cleo"], "2025")


def _nothing(t):
    pass


# (what the table holds first, the route, its JSON body, its HTML-form fields or None)
WRITES = [
    (_nothing, "/setup", {"players": ["Ann", "Ben"], "starter": "Ann", "camera": "none"},
     {"players": "Ann, Ben", "starter": "Ann", "camera": "none"}),
    (_playing, "/table/turn", {"placed": {"I8": 1}}, None),
    (_playing, "/table/turn", {"placed": {}}, None),                     # a pass
    (_flagged, "/table/accept", {}, None),
    (_flagged, "/table/reject", {}, None),
    (_playing, "/table/undo", {}, None),
    (_playing, "/table/end-turn", {}, None),
    (_playing, "/table/cell", {"cell": "H8", "value": 4}, None),
    (_two_turns, "/table/held", {"tiles": "6"}, None),
    (_playing, "/table/finish", {"minus": {"Ann": 0, "Ben": 3}}, None),
    (_nothing, "/tournaments", {"name": "Cup", "players": ["Ann", "Ben", "Cleo"]},
     {"name": "Cup", "players": "Ann, Ben, Cleo"}),
    (_tournament, "/tournaments/1/play", {"a": "Ann", "b": "Ben"}, {"a": "Ann", "b": "Ben"}),
    (_cards, "/cards/turn", {"placed": {"0,1": 4}}, None),
    (_cards, "/cards/show-hand", {}, None),
    (_cards, "/cards/pass", {}, None),
    (_blocked_cards, "/cards/end-round", {}, None),
    (_cards, "/cards/card", {"position": "0,1", "value": 2}, None),
    (_cards, "/cards/finish", {}, None),
]


def _footprint(table, camera):
    store = table.store
    rows, total = store.list_matches(1, 100)
    return {"revision": table.revision, "matches": total,
            "events": sum(len(store.events(r["id"])) for r in rows),
            "tournaments": len(store.tournaments()), "camera": list(camera.events)}


@pytest.fixture
def camera_app(settings, table, store):
    camera = _WatchingCamera()
    app = create_app(settings, table, store, camera)
    app.config["TESTING"] = True
    return app, camera


def _signed_in(app):
    c = app.test_client()
    with c.session_transaction() as sess:
        sess["csrf"] = "tok"
        sess["auth"] = context(app).pins.fingerprint()
    return c


# every write the API's way and the page's way; those of an HTML form its way too
CASES = [(*w, way) for w in WRITES for way in ("api", "page", "form") if way != "form" or w[3]]


@pytest.mark.parametrize("prepare, url, body, form, way", CASES,
                         ids=[f"{c[1]}{'-pass' if c[2] == {'placed': {}} else ''}-{c[4]}"
                              for c in CASES])
def test_a_write_sent_twice_changes_the_match_once(camera_app, table, prepare, url, body, form,
                                                   way):
    app, camera = camera_app
    prepare(table)
    made_from = {"revision": table.revision, "boot": table.boot}
    c = _signed_in(app)

    def send():
        if way == "api":
            return c.post(url, json={**body, **made_from}, headers={"X-Table-PIN": PIN})
        if way == "page":
            return c.post(url, json={**body, **made_from}, headers={"X-CSRF-Token": "tok"})
        return c.post(url, data={**form, **made_from, "csrf_token": "tok"},
                      headers={"Accept": "text/html"})

    before = _footprint(table, camera)
    first = send()
    assert first.status_code in (200, 302), first.data
    after_first = _footprint(table, camera)
    assert after_first != before, "the first write changed nothing"
    second = send()
    assert _footprint(table, camera) == after_first       # the repeat changed nothing
    if way == "form":
        assert second.status_code == 302
        with c.session_transaction() as sess:
            flashed = [m for _, m in sess.get("_flashes", [])]
        assert any(m.startswith("Already recorded: ") for m in flashed), flashed
    else:
        assert second.status_code == 200, second.data
        reply = second.get_json()
        assert reply["already"] is True and reply["message"].startswith("Already recorded: ")


def test_a_different_write_from_an_older_revision_is_refused(operator, playing):
    old = playing.revision
    assert operator.post_json("/table/turn", {"placed": {"I8": 1}, "revision": old}).status_code == 200
    r = operator.post_json("/table/turn", {"placed": {"F8": 1}, "revision": old})
    assert r.status_code == 409 and "changed since" in r.get_json()["error"]
    assert "F8" not in playing.state()["board"]


def test_a_write_from_before_a_restart_is_refused(operator, playing):
    r = operator.post_json("/table/turn", {"placed": {"I8": 1}, "revision": playing.revision,
                                           "boot": "deadbeef"})
    assert r.status_code == 409 and "restarted" in r.get_json()["error"]
    assert "I8" not in playing.state()["board"]


def test_a_write_without_a_revision_is_applied_as_before(operator, playing):
    for _ in range(2):
        assert operator.post_json("/table/turn", {"placed": {}}).status_code == 200
    assert playing.state()["turn_number"] == 4


def test_a_revision_that_is_no_number_is_a_400(operator, playing):
    r = operator.post_json("/table/turn", {"placed": {}, "revision": "x"})
    assert r.status_code == 400 and "revision" in r.get_json()["error"]


def test_tiles_on_taken_cells_cannot_be_accepted(operator, playing):
    playing.commit_turn({"H8": 1, "I8": 1}, source="camera")   # H8 holds a 6
    alert = playing.state()["alerts"][0]
    assert any(v["code"] == "cell-occupied" for v in alert["violations"])
    r = operator.post_json("/table/accept")
    assert r.status_code == 409 and "H8 already holds a tile" in r.get_json()["error"]
    assert playing.state()["pending"] is not None
    assert operator.post_json("/table/reject").status_code == 200


def test_the_page_offers_no_accept_anyway_for_taken_cells():
    from zatre_vision.server.paths import web_dir

    for script in ("app.js", "cards.js"):
        text = (web_dir() / "static" / script).read_text()
        accept = text.index('text: _("Accept anyway")')
        guard = text.rindex('"cell-occupied"', 0, accept)
        assert accept - guard < 300, script   # the button is made only behind that test
