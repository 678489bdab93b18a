"""The live-view streams (``GET /events``), served apart from waitress's request threads.

A stream that held a worker thread for its whole life let open tabs starve the table:
64 of them and the operator's turn got no answer. Here waitress parses ``GET /events``
as any request, but instead of queueing it for a worker thread the :class:`StreamHub`
adopts the connection: one hub thread writes every stream's response (the current
state at once, then every new state, a keep-alive comment every ``keepalive_s``), and
the connection costs a socket and a buffer, not a thread.

Capacity is bounded: at most ``per_address`` streams from one client address and
``total`` in all. A stream over either cap is not adopted; it reaches the Flask view,
which answers 503 with ``Retry-After`` and tells the page to poll ``GET /api/state``.
A client that reads too slowly (over ``max_backlog`` bytes unsent) is dropped; its
browser reconnects and gets the current state. A closed stream is noticed at once
(its socket reads end-of-file), not at the next keep-alive.

Idle and half-open connections (no complete request) are waitress's: they are closed
after ``server.idle_timeout_s`` (see :func:`make_server`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from waitress.channel import ClientDisconnected, HTTPChannel

from ..table import Subscription, Table

log = logging.getLogger("zatre.stream")

STREAM_PATH = "/events"
#: sent before the first event: the response head (the body runs until the connection
#: closes) and the browser's reconnect delay
HEAD = (b"HTTP/1.1 200 OK\r\n"
        b"Content-Type: text/event-stream; charset=utf-8\r\n"
        b"Cache-Control: no-cache\r\n"
        b"X-Accel-Buffering: no\r\n"
        b"X-Content-Type-Options: nosniff\r\n"
        b"Connection: close\r\n"
        b"Server: zatre-vision\r\n\r\n"
        b"retry: 2000\n\n")
KEEPALIVE = b": keep-alive\n\n"


def state_event(message: str) -> bytes:
    return f"event: state\ndata: {message}\n\n".encode()


#: the table's own machine (its display, the operator at the Pi): always finds a slot
LOCAL_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})


@dataclass
class ConnectionPolicy:
    """Who may hold a connection, and for how long a request may take to arrive.

    ``per_address``: connections one address may hold (0: no limit); ``shared``: the
    connections every address but the local ones may hold together (the rest of
    waitress's ``connection_limit`` is kept for the local ones, which no limit here
    refuses); ``headers_timeout_s``: from a request's first byte to the end of its
    head; ``request_timeout_s``: to the end of its body. A client that sends a byte now
    and then is active to waitress (its idle limit never fires); these deadlines close
    it all the same."""

    per_address: int = 0
    shared: int = 0
    headers_timeout_s: float = 0.0
    request_timeout_s: float = 0.0
    local: frozenset = LOCAL_ADDRESSES
    #: connections closed as they were accepted, and requests closed for being late
    refused: int = 0
    timed_out: int = 0
    #: waiting connections closed to make room for a new one (see ``admit``)
    evicted: int = 0
    by_address: Counter = field(default_factory=Counter)
    outside: int = 0
    #: addresses but the local ones that hold a connection
    outside_addresses: int = 0
    #: the connections of every address but the local ones, oldest first
    _outside_channels: dict = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def admit(self, address: str) -> bool:
        """Whether a connection from ``address`` may be served. When every address but
        the local ones together hold their share, an address that holds less than its
        fair part of it (the share over the addresses holding connections) gets the
        place of the oldest connection that is only *waiting* (no complete request,
        nothing being answered: a slow or idle client), so slow clients from any number
        of addresses cannot keep a phone out; one at its fair part, or over its own
        address's share, is refused as it is accepted (cheaply: no eviction, no churn)."""
        if address in self.local:
            return True
        with self._lock:
            mine = self.by_address[address]
            if self.per_address and mine >= self.per_address:
                self.refused += 1
                return False
            if not self.shared or self.outside < self.shared:
                return True
            fair = mine * max(1, self.outside_addresses) < self.shared
            victim = next((c for c in self._outside_channels if waiting(c)), None) \
                if fair else None
            if victim is None:
                self.refused += 1
                return False
            self.evicted += 1
        victim.handle_close()  # on waitress's loop thread, as this accept is
        return True

    def opened(self, address: str, channel=None) -> None:
        with self._lock:
            self.by_address[address] += 1
            if address not in self.local:
                self.outside += 1
                if self.by_address[address] == 1:
                    self.outside_addresses += 1
                if channel is not None:
                    self._outside_channels[channel] = None

    def closed(self, address: str, channel=None) -> None:
        with self._lock:
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]
                if address not in self.local:
                    self.outside_addresses -= 1
            if address not in self.local:
                self.outside -= 1
                self._outside_channels.pop(channel, None)

    def late(self, channel: StreamChannel, now: float) -> bool:
        """Whether ``channel``'s request in progress missed its deadline."""
        since = channel.partial_since
        if since is None or channel.streaming:
            return False
        request = channel.request
        if (self.headers_timeout_s and request is not None and not request.headers_finished
                and now - since > self.headers_timeout_s):
            return True
        return bool(self.request_timeout_s and now - since > self.request_timeout_s)


def waiting(channel) -> bool:
    """A connection that holds a slot without being served: no complete request queued
    or in a worker, nothing left to send, not a live-view stream."""
    return (channel.connected and not channel.streaming and not channel.requests
            and not channel.total_outbufs_len and not channel.will_close)


class StreamChannel(HTTPChannel):
    """waitress's connection, which the hub may adopt for a stream: an adopted one
    ignores what the client sends and is closed as soon as the client hangs up. Each
    one is counted per address (:class:`ConnectionPolicy`); one over its address's
    share is closed as it is accepted; one over the share of every address but the
    local ones takes the place of the oldest connection that is only waiting."""

    streaming = False
    #: set by :func:`make_server` (None: no limits, no deadlines)
    policy: ConnectionPolicy | None = None
    #: when the request now arriving sent its first byte (None: none in progress)
    partial_since: float | None = None
    _partial = None
    address = "?"
    counted = False

    def __init__(self, server, sock, addr, adj, map=None):
        address = str(addr[0]) if addr else "?"
        if self.policy is not None and not self.policy.admit(address):
            with contextlib.suppress(OSError):
                sock.close()  # never served: no parser, no buffers, no slot
            self.connected = False
            return
        self.address = address
        super().__init__(server, sock, addr, adj, map)

    def add_channel(self, map=None):
        super().add_channel(map)
        if self.policy is not None and not self.counted:
            self.counted = True
            self.policy.opened(self.address, self)

    def del_channel(self, map=None):
        super().del_channel(map)
        if self.counted:
            self.counted = False
            self.policy.closed(self.address, self)

    def readable(self):
        if self.streaming:  # only to see the client hang up
            return not (self.will_close or self.close_when_flushed)
        return super().readable()

    def received(self, data):
        if self.streaming:
            return True
        out = super().received(data)
        if self.request is None:
            self.partial_since = self._partial = None
        elif self.request is not self._partial:  # a new request began in this data
            self._partial = self.request
            self.partial_since = time.monotonic()
        return out

    def handle_read(self):
        super().handle_read()
        if self.streaming and not self.connected:  # end of file: the tab was closed
            self.handle_close()


class StreamHub:
    """Adopts ``GET /events`` connections and writes to all of them from one thread."""

    def __init__(self, table: Table, *, keepalive_s: float, per_address: int, total: int,
                 max_backlog: int = 1 << 20, tick_s: float = 0.02,
                 clock: Callable[[], float] = time.monotonic):
        self.table = table
        self.keepalive_s = keepalive_s
        self.per_address = per_address
        self.total = total
        self.max_backlog = max_backlog
        self.tick_s = tick_s
        self.clock = clock
        self._lock = threading.Lock()
        self._joining: list[StreamChannel] = []
        self._streams: dict[StreamChannel, str] = {}
        self._by_address: Counter[str] = Counter()
        self._thread: threading.Thread | None = None
        self._trigger: Callable[[], None] = lambda: None
        self.refused = 0
        self.dropped_slow = 0

    # -- called from waitress (its main loop, or a worker ending a pipelined request) --
    def adopt(self, channel: HTTPChannel) -> bool:
        """Take ``channel``'s first waiting request if it is a stream within the caps."""
        request = channel.requests[0] if channel.requests else None
        if (request is None or request.command != "GET" or request.path != STREAM_PATH
                or not isinstance(channel, StreamChannel)):
            return False
        address = str(channel.addr[0]) if channel.addr else "?"
        with self._lock:
            if (len(self._streams) >= self.total
                    or self._by_address[address] >= self.per_address):
                self.refused += 1
                return False
            channel.streaming = True
            self._streams[channel] = address
            self._by_address[address] += 1
            self._joining.append(channel)
        return True

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._streams)

    # -- the hub's thread ------------------------------------------------------------
    def start(self, trigger: Callable[[], None]) -> None:
        """``trigger`` wakes waitress's main loop (to send or close what was queued)."""

        def wake() -> None:
            # the loop has closed (shutting down): nothing to wake
            with contextlib.suppress(OSError):
                trigger()

        self._trigger = wake
        sub = self.table.subscribe()
        self._thread = threading.Thread(target=self._run, args=(sub,), name="zatre-streams",
                                        daemon=True)
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self, sub: Subscription) -> None:
        last: bytes | None = None
        quiet_since = self.clock()
        try:
            while True:
                try:
                    message = sub.get(timeout=self.tick_s)
                except Subscription.Closed:
                    return
                if message is not None:
                    last = state_event(message)
                    self._broadcast(last)
                    quiet_since = self.clock()
                with self._lock:
                    joining, self._joining = self._joining, []
                for channel in joining:
                    if last is not None:
                        self._send(channel, HEAD + last)
                    else:
                        self._send(channel, HEAD)
                if self.clock() - quiet_since >= self.keepalive_s:
                    self._broadcast(KEEPALIVE)
                    quiet_since = self.clock()
                self._sweep()
        except Exception:  # noqa: BLE001 - a fault of ours must not end the streams silently
            log.exception("the stream hub stopped")
        finally:
            self.table.unsubscribe(sub)
            with self._lock:
                channels = list(self._streams)
            for channel in channels:
                self._drop(channel)

    def _broadcast(self, data: bytes) -> None:
        with self._lock:
            channels = [c for c in self._streams if c not in self._joining]
        for channel in channels:
            self._send(channel, data)

    def _send(self, channel: StreamChannel, data: bytes) -> None:
        if not channel.connected:
            self._drop(channel)
            return
        if channel.total_outbufs_len > self.max_backlog:
            self.dropped_slow += 1
            self._drop(channel)
            return
        try:
            channel.write_soon(data)
        except (ClientDisconnected, OSError):
            self._drop(channel)
            return
        if channel.total_outbufs_len:
            self._trigger()

    def _sweep(self) -> None:
        with self._lock:
            gone = [c for c in self._streams if not c.connected]
        for channel in gone:
            self._drop(channel)

    def _drop(self, channel: StreamChannel) -> None:
        with self._lock:
            address = self._streams.pop(channel, None)
            if address is None:
                return
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]
        channel.will_close = True  # waitress's loop closes it on its next pass
        self._trigger()


def make_server(app, hub: StreamHub | None, *, host: str, port: int, threads: int,
                idle_timeout_s: float, max_connections: int,
                connections_per_address: int = 0, reserved_connections: int = 0,
                headers_timeout_s: float = 0.0, request_timeout_s: float = 0.0,
                local_addresses: frozenset = LOCAL_ADDRESSES, **extra):
    """waitress with the hub attached: its connections are :class:`StreamChannel`,
    streams go to the hub, every other request to the worker threads. Idle and
    half-open connections close after ``idle_timeout_s`` (checked every second), and a
    request whose head takes over ``headers_timeout_s`` (whole, ``request_timeout_s``)
    to arrive is closed too, however often its client sends a byte; one address holds
    at most ``connections_per_address`` connections (0: no limit), and every address
    but the local ones at most ``max_connections - reserved_connections`` (a new one
    beyond it closes their oldest waiting one), so that neither one guest nor slow
    clients from any number of addresses keep the operator or the table's own display
    out; ``poll`` instead of ``select`` so that more than 1024 sockets can be open.
    The server's :class:`ConnectionPolicy` is ``server.zatre_policy``."""
    import waitress
    from waitress.server import BaseWSGIServer

    server = waitress.create_server(
        app, host=host, port=port, threads=threads,
        channel_timeout=max(1, round(idle_timeout_s)), cleanup_interval=1,
        connection_limit=max_connections, asyncore_use_poll=True,
        max_request_body_size=1 << 20, ident="zatre-vision", **extra)
    listeners = ([server] if isinstance(server, BaseWSGIServer)
                 else [s for s in server.map.values() if isinstance(s, BaseWSGIServer)])
    policy = ConnectionPolicy(
        per_address=connections_per_address,
        shared=max(1, max_connections - reserved_connections) if reserved_connections else 0,
        headers_timeout_s=headers_timeout_s, request_timeout_s=request_timeout_s,
        local=frozenset(local_addresses))
    channel_class = type("StreamChannel", (StreamChannel,), {"policy": policy})
    server.zatre_policy = policy
    for listener in listeners:
        listener.channel_class = channel_class
        plain_maintenance = listener.maintenance

        def maintenance(now, _plain=plain_maintenance, _listener=listener):
            _plain(now)
            mono = time.monotonic()
            for channel in list(_listener.active_channels.values()):
                if (isinstance(channel, StreamChannel) and not channel.will_close
                        and policy.late(channel, mono)):
                    policy.timed_out += 1
                    channel.will_close = True  # closed on the loop's next pass

        listener.maintenance = maintenance
        listener.handle_accept = _batch_accept(listener)
    if hub is None:
        return server
    for listener in listeners:
        plain_add_task = listener.add_task

        def add_task(channel, _plain=plain_add_task):
            if not hub.adopt(channel):
                _plain(channel)

        listener.add_task = add_task
    hub.start(listeners[0].pull_trigger)
    return server


#: connections taken from the listen queue per pass of waitress's loop
ACCEPT_BATCH = 64


def _batch_accept(listener):
    """waitress accepts one connection per pass of its loop, and a pass asks every open
    connection whether it reads or writes: with a thousand slow clients reconnecting
    as fast as they are refused, the operator's connection waited behind them in the
    listen queue. This takes up to ``ACCEPT_BATCH`` a pass (as waitress does each)."""

    def handle_accept():
        for _ in range(ACCEPT_BATCH):
            if len(listener._map) >= listener.adj.connection_limit:
                return
            try:
                got = listener.accept()
            except OSError:  # a bogus socket
                continue
            if got is None:
                return
            conn, addr = got
            try:
                listener.set_socket_options(conn)
            except OSError:  # its client closed it already
                conn.close()
                continue
            listener.channel_class(listener, conn, listener.fix_addr(addr), listener.adj,
                                   map=listener._map)

    return handle_accept


def raise_open_files_limit(wanted: int) -> None:
    """Let this process hold ``wanted`` sockets if the system allows (soft limit up to
    the hard one)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Linux
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            log.warning("cannot raise the open-files limit to %d", target)
