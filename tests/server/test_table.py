"""The Table session: persistence of every change, exact resume, events, rollback."""

import json
import threading

import pytest

from zatre_vision.match import MatchError
from zatre_vision.table import Subscription, Table, draw_starter


def test_every_change_is_an_event_and_resumes_exactly(databases):
    store = databases.open()
    t = Table(store, "t")
    mid = t.new_match(["Ann", "Ben", "Cleo"], "Ben", source="manual")
    t.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="manual")
    t.commit_turn({"I8": 4}, source="manual")
    t.set_cell("I8", 5)
    t.commit_turn({"J8": 6, "K8": 6}, snapshot_jpeg=b"\xff\xd8jpeg", source="camera", frame=42)
    before = t.state()
    assert before["pending"]["placed"] == {"J8": 6, "K8": 6}
    assert before["alerts"][0]["kind"] == "illegal-turn"
    store.close()

    again = Table(databases.open(), "t")
    after = again.state()
    for key in ("players", "starter", "turn", "board", "sheets", "bag", "pending", "alerts",
                "last_turn", "hints", "match_id"):
        assert after[key] == before[key], key
    assert after["match_id"] == mid
    kinds = [e["kind"] for e in again.store.events(mid)]
    assert kinds == ["start", "turn", "turn", "correction", "turn"]
    assert again.store.snapshot(mid, 3) == b"\xff\xd8jpeg"
    again.reject_pending()
    assert again.state()["pending"] is None


def test_version_grows_and_subscribers_get_every_state(table):
    sub = table.subscribe()
    first = sub.get(0.1)
    table.new_match(["Ann", "Ben"])
    table.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="manual")
    table.set_camera_status({"state": "ok"})
    import json

    versions = [json.loads(first)["version"]]
    while (msg := sub.get(0.05)) is not None:
        versions.append(json.loads(msg)["version"])
    assert versions == list(range(versions[0], versions[0] + 4))
    table.close()
    with pytest.raises(Subscription.Closed):
        sub.get(0.1)
    with pytest.raises(Subscription.Closed):
        table.subscribe().get(0.1)


def test_slow_subscriber_drops_oldest_and_stays_current(table):
    sub = table.subscribe(maxsize=3)
    table.new_match(["Ann", "Ben"])
    for _ in range(5):
        table.set_camera_status({"state": "ok"})
    got = []
    while (msg := sub.get(0.05)) is not None:
        got.append(msg)
    assert len(got) == 3 and sub.dropped == 4
    assert f'"version":{table.version}' in got[-1]


def test_store_failure_rolls_the_match_back(table, monkeypatch):
    table.new_match(["Ann", "Ben"])

    def broken(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(table.store, "save_match", broken)
    with pytest.raises(RuntimeError):
        table.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="manual")
    assert table.state()["board"] == {}


def test_errors_are_match_errors(table):
    with pytest.raises(MatchError, match="no match"):
        table.undo()
    table.new_match(["Ann", "Ben"])
    with pytest.raises(MatchError):
        table.undo()
    with pytest.raises(MatchError):
        table.commit_turn({"H8": 6}, source="telepathy")
    with pytest.raises(MatchError):
        table.new_match(["Ann", "Ann"])


def test_concurrent_commits_are_serialised(table):
    """20 threads correct a cell and post a camera status at the same moment: every
    change gets its own version, none is lost, the store holds each once and in the
    order the match took them (the resumed match equals the live one), and a subscriber
    sees every version once and in order."""
    table.new_match(["Ann", "Ben"], "Ann")
    table.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="manual")
    assert table.state()["board"]["H8"] == 6
    sub = table.subscribe(maxsize=1000)
    start_version, start_revision = table.version, table.revision
    n = 20
    barrier = threading.Barrier(n)
    errors = []

    def worker(i):
        try:
            barrier.wait(5)
            table.set_cell("H8", i % 4 + 1)
            table.set_camera_status({"state": "ok", "n": i})
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    assert not errors
    assert table.version == start_version + 2 * n and table.revision == start_revision + n
    events = table.store.events(table.match_id)
    assert [e["kind"] for e in events] == ["start", "turn"] + ["correction"] * n
    values = [e["payload"]["value"] for e in events[2:]]
    assert sorted(values) == sorted(i % 4 + 1 for i in range(n))
    assert table.state()["board"]["H8"] == values[-1]   # the last one stored is the live one
    seen = []
    while (msg := sub.get(0.05)) is not None:
        seen.append(json.loads(msg)["version"])
    assert seen == list(range(start_version, start_version + 2 * n + 1))
    again = Table(table.store, "table-1")
    assert again.state()["board"] == table.state()["board"]
    assert again.state()["sheets"] == table.state()["sheets"]


def test_finish_and_winners(playing):
    playing.commit_turn({}, source="manual")  # Ben passes
    playing.finish({"Ann": 3, "Ben": 0})
    st = playing.state()
    assert st["finished"] and st["winners"] == ["Ann"]
    assert st["sheets"]["Ann"]["minus"] == 3
    row = playing.store.get_match(playing.match_id)
    assert row["finished"] and row["totals"] == {"Ann": 3, "Ben": 0}


def test_start_player_draw_is_a_rules_draw():
    import random

    d = draw_starter(["Ann", "Ben", "Cleo"], random.Random(3))
    assert d["starter"] in ("Ann", "Ben", "Cleo")
    last = d["rounds"][-1]
    assert last[d["starter"]] == max(last.values())
    assert list(last.values()).count(max(last.values())) == 1


def test_profi_hides_hints(playing):
    assert playing.state()["hints"]
    playing.set_profi(True)
    assert playing.state()["hints"] == {} and playing.state()["profi"] is True


def test_a_correction_rechecks_the_flagged_turn(playing):
    playing.commit_turn({"I8": 6, "J8": 6}, source="camera")
    assert "18" in playing.state()["alerts"][0]["reasons"][0]
    playing.set_cell("H8", 5)
    assert "17" in playing.state()["alerts"][0]["reasons"][0]
    again = Table(playing.store, "table-1")
    assert again.state()["pending"] == playing.state()["pending"]
