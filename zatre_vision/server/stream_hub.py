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

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable

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


class StreamChannel(HTTPChannel):
    """waitress's connection, which the hub may adopt for a stream: an adopted one
    ignores what the client sends and is closed as soon as the client hangs up."""

    streaming = False
    #: connections one client address may hold at once; more are closed at once
    per_address_limit = 0

    def __init__(self, server, sock, addr, adj, map=None):
        super().__init__(server, sock, addr, adj, map)
        if self.per_address_limit and addr:
            mine = sum(1 for c in server.active_channels.values()
                       if c.addr and c.addr[0] == addr[0])
            if mine > self.per_address_limit:
                self.will_close = True  # waitress's loop closes it on its next pass

    def readable(self):
        if self.streaming:  # only to see the client hang up
            return not (self.will_close or self.close_when_flushed)
        return super().readable()

    def received(self, data):
        if self.streaming:
            return True
        return super().received(data)

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
        self._trigger = trigger
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
                connections_per_address: int = 0, **extra):
    """waitress with the hub attached: its connections are :class:`StreamChannel`,
    streams go to the hub, every other request to the worker threads. Idle and
    half-open connections close after ``idle_timeout_s`` (checked every second); one
    address holds at most ``connections_per_address`` connections (0: no limit), so
    that one guest cannot take every connection from the operator;
    ``poll`` instead of ``select`` so that more than 1024 sockets can be open."""
    import waitress
    from waitress.server import BaseWSGIServer

    server = waitress.create_server(
        app, host=host, port=port, threads=threads,
        channel_timeout=max(1, round(idle_timeout_s)), cleanup_interval=1,
        connection_limit=max_connections, asyncore_use_poll=True,
        max_request_body_size=1 << 20, ident="zatre-vision", **extra)
    listeners = ([server] if isinstance(server, BaseWSGIServer)
                 else [s for s in server.map.values() if isinstance(s, BaseWSGIServer)])
    channel_class = type("StreamChannel", (StreamChannel,),
                         {"per_address_limit": connections_per_address})
    for listener in listeners:
        listener.channel_class = channel_class
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
