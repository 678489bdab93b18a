"""Live-view streams under zatre serve: served by the hub, not the request threads;
capped per address and in all (later ones are told to poll); closed ones and idle
connections are let go quickly."""

import contextlib
import http.client
import json
import selectors
import socket
import threading
import time

import pytest

from zatre_vision.server.context import context

from .conftest import PIN
from .live import LiveServer, StreamReader, wait_for


@pytest.fixture
def live(app, table):
    servers = []

    def start(**kw):
        s = LiveServer(app, table, **kw)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


def test_streams_hold_no_request_thread_and_get_every_version(live, table):
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    srv = live(threads=4)
    readers = [StreamReader(srv.port) for _ in range(24)]  # six times the threads
    try:
        for r in readers:
            assert r.head()[0] == 200
            assert r.next_state()["version"] == table.version
        wait_for(lambda: srv.hub.count == 24, what="24 streams adopted")
        status, state = srv.get_json("/api/state")   # a request thread is still free
        assert status == 200 and state["version"] == table.version
        first = table.version
        srv.post_json("/table/turn", {"placed": {"H8": 6, "H7": 5, "G7": 5}}, PIN)
        srv.post_json("/table/turn", {"placed": {}}, PIN)
        for r in readers:
            assert [r.next_state()["version"] for _ in range(2)] == [first + 1, first + 2]
    finally:
        for r in readers:
            r.close()


def test_a_stream_over_the_cap_is_told_to_poll(live, table):
    srv = live(per_address=2, total=10)
    readers = [StreamReader(srv.port) for _ in range(3)]
    try:
        codes = [r.head()[0] for r in readers[:2]]
        status, head = readers[2].head()
        assert codes == [200, 200] and status == 503
        assert b"Retry-After: 30" in head
        while len(readers[2].buf) < 10:
            readers[2]._more()
        body = json.loads(readers[2].buf[readers[2].buf.index(b"{"):])
        assert body["poll"] == "/api/state" and "too many live views" in body["error"]
        assert srv.hub.refused == 1
    finally:
        for r in readers:
            r.close()


def test_a_closed_stream_is_let_go_at_once(live, table):
    srv = live(keepalive_s=300)   # no keep-alive would notice it
    r = StreamReader(srv.port)
    r.head()
    wait_for(lambda: srv.hub.count == 1, what="the stream adopted")
    r.close()
    wait_for(lambda: srv.hub.count == 0, timeout=3, what="the closed stream let go")


def test_idle_and_half_open_connections_are_closed(live):
    srv = live(idle_timeout_s=1)
    idle = socket.create_connection(("127.0.0.1", srv.port), timeout=6)
    half = socket.create_connection(("127.0.0.1", srv.port), timeout=6)
    half.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")   # never ends its head
    try:
        assert idle.recv(100) == b""   # closed by the server within seconds
        assert half.recv(100) == b""
    finally:
        idle.close()
        half.close()


def test_without_a_hub_the_view_streams_itself_within_its_cap(app, client):
    slots = context(app).stream_slots
    slots.per_address = 1
    first = client.get("/events", buffered=False)
    assert first.status_code == 200
    second = client.get("/events")
    assert second.status_code == 503 and second.get_json()["poll"] == "/api/state"
    first.close()
    third = client.get("/events", buffered=False)
    assert third.status_code == 200
    third.close()


def _from(address: str, port: int) -> socket.socket:
    s = socket.socket()
    s.settimeout(5)
    s.bind((address, 0))
    s.connect(("127.0.0.1", port))
    return s


def _get_state(s: socket.socket) -> bytes:
    s.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    return s.recv(100)


def test_one_address_cannot_take_every_connection(live, table):
    srv = live(connections_per_address=3)
    mine = [_from("127.0.0.2", srv.port) for _ in range(3)]
    extra = _from("127.0.0.2", srv.port)
    other = _from("127.0.0.3", srv.port)
    local = [_from("127.0.0.1", srv.port) for _ in range(5)]   # this machine: no limit
    try:
        assert extra.recv(100) == b""          # closed at once: over its address's share
        assert _get_state(other).startswith(b"HTTP/1.1 200")   # another address is served
        assert all(_get_state(s).startswith(b"HTTP/1.1 200") for s in local)
        assert srv.policy.refused == 1
    finally:
        for s in (*mine, extra, other, *local):
            s.close()


def test_a_head_sent_a_byte_at_a_time_is_closed_at_its_deadline(live, table):
    """Each byte is activity, so the idle limit never fires; the head's deadline does."""
    srv = live(headers_timeout_s=1.0, idle_timeout_s=30)
    slow = _from("127.0.0.2", srv.port)
    slow.settimeout(0.2)
    closed = False
    try:
        for byte in b"GET /api/state HTTP/1.1\r\nHost: a-very-long-host-name\r\n":
            try:
                slow.sendall(bytes([byte]))
                closed = slow.recv(100) == b""
            except TimeoutError:
                continue
            except OSError:
                closed = True
            if closed:
                break
        assert closed, "a head 60 bytes long at 5 bytes a second was never cut off"
        assert srv.policy.timed_out == 1
        assert _get_state(_from("127.0.0.2", srv.port)).startswith(b"HTTP/1.1 200")
    finally:
        slow.close()


def test_slow_clients_from_two_addresses_leave_the_operator_a_slot(live, table):
    """Two guests keep opening connections and send a head byte now and then (in the
    benchmark 1,000 of them, `zatre bench load`): their connections are held to their
    addresses' shares and cut at the head's deadline, and the operator, on this machine
    or on a third address, is answered every time."""
    srv = live(max_connections=64, reserved_connections=16, connections_per_address=20,
               headers_timeout_s=1.0, idle_timeout_s=30, threads=4)
    stop = threading.Event()
    held = {"most_outside": 0}

    def guests():
        sel = selectors.DefaultSelector()
        open_ = 0
        while not stop.is_set():
            while open_ < 60:      # 60 each from two addresses: 120 against 48 shared
                address = ("127.0.0.2", "127.0.0.3")[open_ % 2]
                try:
                    s = _from(address, srv.port)
                except OSError:
                    break
                s.setblocking(False)
                sel.register(s, selectors.EVENT_READ)
                open_ += 1
            for key, _ in sel.select(timeout=0.2):
                sel.unregister(key.fileobj)     # closed by the server: open another
                key.fileobj.close()
                open_ -= 1
            for key in list(sel.get_map().values()):
                with contextlib.suppress(OSError):
                    key.fileobj.send(b"G")
            held["most_outside"] = max(held["most_outside"], srv.policy.outside)
        for key in list(sel.get_map().values()):
            key.fileobj.close()
        sel.close()

    crowd = threading.Thread(target=guests, daemon=True)
    crowd.start()
    try:
        wait_for(lambda: srv.policy.outside >= 40, what="the guests' connections held")
        answers = []
        for k in range(16):
            operator = "127.0.0.1" if k % 2 else "127.0.0.4"
            s = _from(operator, srv.port)
            try:
                answers.append(_get_state(s)[:12])
            finally:
                s.close()
            time.sleep(0.1)
        wait_for(lambda: srv.policy.timed_out > 0, what="a slow head cut off")
    finally:
        stop.set()
        crowd.join(10)
    assert answers == [b"HTTP/1.1 200"] * 16
    assert held["most_outside"] <= 48          # the 16 kept for this machine stayed free
    assert srv.policy.refused > 0


def test_slow_clients_from_32_addresses_cannot_keep_the_operator_out(live, table):
    """Slow clients from 32 addresses, each under its own share, together hold every
    connection the other addresses may have; a new connection from yet another
    address takes the place of the oldest that is only waiting, so the operator is
    answered every time (before, it was closed as it was accepted)."""
    srv = live(max_connections=64, reserved_connections=16, connections_per_address=8,
               headers_timeout_s=30.0, idle_timeout_s=60, threads=4)
    guests = [f"127.0.0.{10 + n}" for n in range(32)]
    held = []
    stop = threading.Event()

    def refill():
        while not stop.is_set():
            for address in guests:
                if sum(1 for a, _ in held if a == address) < 4:
                    with contextlib.suppress(OSError):
                        s = _from(address, srv.port)
                        s.send(b"G")              # one byte of a head, then nothing
                        held.append((address, s))
            for pair in list(held):               # the ones the server closed
                pair[1].setblocking(False)
                try:
                    gone = pair[1].recv(1) == b""
                except BlockingIOError:
                    gone = False
                except OSError:
                    gone = True
                if gone:
                    held.remove(pair)
                    pair[1].close()
            time.sleep(0.05)

    crowd = threading.Thread(target=refill, daemon=True)
    crowd.start()
    try:
        wait_for(lambda: srv.policy.outside >= 48, what="the guests holding the share")
        answers = []
        for _ in range(20):
            s = _from("127.0.0.4", srv.port)
            try:
                answers.append(_get_state(s)[:12])
            finally:
                s.close()
    finally:
        stop.set()
        crowd.join(10)
        for _, s in held:
            s.close()
    assert answers == [b"HTTP/1.1 200"] * 20
    assert srv.policy.evicted > 0 and srv.policy.outside <= 48


def test_head_events_is_answered_without_a_stream(live, table):
    """A HEAD (a link checker, a proxy's health check) gets the stream's head, not a
    503 "too many live views", and takes no stream slot."""
    srv = live(per_address=2, total=10)
    for _ in range(3):
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        conn.request("HEAD", "/events")
        resp = conn.getresponse()
        assert resp.status == 200
        assert resp.getheader("Content-Type").startswith("text/event-stream")
        assert resp.read() == b""
        conn.close()
    assert srv.hub.count == 0 and srv.hub.refused == 0
