"""The PIN changed from the dashboard with the current one: the form on the sign-in page,
what it refuses, and who stays signed in."""

import pytest

from zatre_vision.config import load_settings
from zatre_vision.server import create_app
from zatre_vision.server.context import context
from zatre_vision.table import Table

JSON = {"Accept": "application/json"}


@pytest.fixture
def hashed_app(databases):
    """A table whose PIN was chosen on first setup (stored hashed)."""
    store = databases.open()
    settings = load_settings(None, {"server": {"data_dir": str(databases.tmp_path / "data")}})
    table = Table(store, "table-1")
    app = create_app(settings, table, store)
    context(app).pins.set_pin("975310")
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    yield app
    table.close()
    store.close()


def _signed_in(app, pin="975310"):
    c = app.test_client()
    with c.session_transaction() as sess:
        sess["csrf"] = "token"
    assert c.post("/login", data={"pin": pin, "csrf_token": "token"}, headers=JSON).status_code == 200
    return c


def _change(c, current, new, again=None):
    return c.post("/pin", data={"pin": current, "new_pin": new, "new_pin_again": again or new,
                                "csrf_token": "token"}, headers=JSON)


def test_the_pin_changes_with_the_current_one_and_other_browsers_sign_in_again(hashed_app):
    c, other = _signed_in(hashed_app), _signed_in(hashed_app)
    assert 'id="pin-form"' in c.get("/login").data.decode()
    assert _change(c, "111111", "864200").status_code == 401
    short = _change(c, "975310", "86420")
    assert short.status_code == 400 and "6 to 12 digits" in short.get_json()["error"]
    differs = _change(c, "975310", "864200", "864201")
    assert differs.status_code == 400 and "repetition" in differs.get_json()["error"]
    assert c.post("/pin", data={"pin": "975310", "new_pin": "864200"}, headers=JSON
                  ).status_code == 400          # no CSRF token
    ok = _change(c, "975310", "correct horse battery")
    assert ok.status_code == 200 and "PIN changed" in ok.get_json()["message"]
    undo = {"headers": {**JSON, "X-CSRF-Token": "token"}}
    assert c.post("/table/undo", **undo).status_code == 409         # still signed in
    assert other.post("/table/undo", **undo).status_code == 401     # signed in again
    fresh = hashed_app.test_client()
    assert fresh.post("/table/undo", headers={"X-Table-PIN": "975310"}).status_code == 401
    assert fresh.post("/table/undo", headers={"X-Table-PIN": "correct horse battery"}
                      ).status_code == 409


def test_a_pin_from_the_settings_file_is_changed_there(app, operator):
    operator.get("/")
    assert 'id="pin-form"' not in operator.get("/login").data.decode()
    r = operator.post("/pin", data={"pin": "2468", "new_pin": "864200", "csrf_token": "test-token"},
                      headers=JSON)
    assert r.status_code == 409 and "settings file" in r.get_json()["error"]
