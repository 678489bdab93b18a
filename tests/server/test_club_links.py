"""The club overview's links and list (issue 62): a table on every interface links by
its mDNS name, a table reached by its IP address on the network by that address, a
forged or loopback Host changes nothing; a table started with no match is listed."""

import pytest

from zatre_vision.server.club import dashboard_url, overview_data, reached_at
from zatre_vision.store.leases import Holder, TableLeases


@pytest.mark.parametrize(("host", "name", "url"), [
    ("0.0.0.0", "zatre", "http://zatre.local:8000/"),
    ("0.0.0.0", "pi.club.example", "http://pi.club.example:8000/"),
    ("::", "zatre-2", "http://zatre-2.local:8000/"),
    ("192.168.4.1", "zatre", "http://192.168.4.1:8000/"),
    ("fe80::1", "zatre", "http://[fe80::1]:8000/"),
])
def test_a_table_links_by_the_name_phones_resolve(host, name, url):
    assert dashboard_url(host, 8000, hostname=name) == url


@pytest.mark.parametrize(("header", "url"), [
    ("192.168.4.1:8000", "http://192.168.4.1:8000/"),
    ("[fd00::7]:8000", "http://[fd00::7]:8000/"),
    ("192.168.4.1:9000", None),          # another port: not this dashboard
    ("127.0.0.1:8000", None), ("localhost:8000", None), ("evil.example:8000", None),
    ("192.168.4.1", None), ("0.0.0.0:8000", None), ("", None),
])
def test_the_address_a_table_was_reached_at(header, url):
    assert reached_at(header, 8000) == url


def test_a_request_by_ip_address_becomes_the_tables_link(app, client, store):
    client.get("/api/state", headers={"Host": "localhost:8000"})
    assert store.get_setting("dashboard_url:table-1") is None
    client.get("/api/state", headers={"Host": "192.168.4.7:8000"})
    assert store.get_setting("dashboard_url:table-1") == "http://192.168.4.7:8000/"
    client.get("/api/state", headers={"Host": "phish.example:8000"})
    assert store.get_setting("dashboard_url:table-1") == "http://192.168.4.7:8000/"


def test_a_started_table_with_no_match_is_listed(store, table):
    TableLeases(store).acquire("table-3", Holder("http://zatre-3.local:8000/", "b", 1), 30)
    table.new_match(["Ann", "Ben"], "Ann", source="manual")       # table-1 plays
    entries = {e["table"]: e for e in overview_data(store)}
    assert sorted(entries) == ["table-1", "table-3"]
    assert entries["table-3"]["match_id"] is None and entries["table-3"]["served"]
    assert entries["table-3"]["url"] == "http://zatre-3.local:8000/"
    assert entries["table-1"]["match_id"] is not None and not entries["table-1"]["served"]
