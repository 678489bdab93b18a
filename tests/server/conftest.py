import pytest

from zatre_vision.config import load_settings
from zatre_vision.server import create_app
from zatre_vision.server.context import context
from zatre_vision.table import Table

from ..databases import databases_fixture

PIN = "2468"


databases = databases_fixture()


@pytest.fixture
def store(databases):
    """The store on SQLite and, in a second run of the test, on PostgreSQL."""
    s = databases.open()
    yield s
    s.close()


@pytest.fixture
def settings(tmp_path):
    return load_settings(None, {"server": {"pin": PIN, "data_dir": str(tmp_path / "data"),
                                           "keepalive_s": 0.2}})


@pytest.fixture
def table(store):
    t = Table(store, "table-1", season="2025")
    yield t
    t.close()


@pytest.fixture
def app(settings, table, store):
    app = create_app(settings, table, store)
    app.config["TESTING"] = True
    yield app
    context(app).stop()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def operator(app):
    """A client signed in with the PIN, with a CSRF token; ``operator.post_json``."""
    c = app.test_client()
    with c.session_transaction() as sess:
        sess["csrf"] = "test-token"
        sess["auth"] = context(app).pins.fingerprint()

    def post_json(url, body=None, **kw):
        return c.post(url, json=body or {}, headers={"X-CSRF-Token": "test-token"}, **kw)

    c.post_json = post_json
    return c


@pytest.fixture
def playing(table):
    """A match with a legal first turn by Ann."""
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    table.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="manual")
    return table
