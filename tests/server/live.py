"""A real waitress server with the stream hub, in this process on an ephemeral
loopback port, for the tests that need sockets (streams, idle connections)."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request

from zatre_vision.server.context import context
from zatre_vision.server.stream_hub import StreamHub, make_server


class LiveServer:
    def __init__(self, app, table, *, threads=4, per_address=256, total=512,
                 idle_timeout_s=10.0, keepalive_s=15.0, connections_per_address=0,
                 max_connections=400, reserved_connections=0, headers_timeout_s=0.0,
                 request_timeout_s=0.0):
        self.table = table
        self.hub = StreamHub(table, keepalive_s=keepalive_s, per_address=per_address,
                             total=total)
        self.server = make_server(app, self.hub, host="127.0.0.1", port=0, threads=threads,
                                  idle_timeout_s=idle_timeout_s,
                                  max_connections=max_connections,
                                  connections_per_address=connections_per_address,
                                  reserved_connections=reserved_connections,
                                  headers_timeout_s=headers_timeout_s,
                                  request_timeout_s=request_timeout_s)
        self.policy = self.server.zatre_policy
        context(app).streams = self.hub
        self.port = int(self.server.effective_port)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def get_json(self, path: str, timeout: float = 5.0):
        with urllib.request.urlopen(self.url(path), timeout=timeout) as r:
            return r.status, json.loads(r.read())

    def post_json(self, path: str, body: dict, pin: str, timeout: float = 5.0):
        req = urllib.request.Request(self.url(path), data=json.dumps(body).encode(),
                                     method="POST",
                                     headers={"Content-Type": "application/json",
                                              "X-Table-PIN": pin})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())

    def stop(self) -> None:
        from waitress import wasyncore

        self.table.close()
        self.hub.join(5)
        # the request threads first: one still answering would wake the loop through
        # a trigger that close_all has closed (EBADF in its thread, at teardown)
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=10)
        done = threading.Event()

        def close_all():
            wasyncore.close_all(self.server._map)
            done.set()

        self.server.trigger.pull_trigger(close_all)
        self.thread.join(10)


class StreamReader:
    """A raw ``GET /events`` client: the response head, then state events."""

    def __init__(self, port: int, timeout: float = 5.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        self.buf = b""

    def head(self) -> tuple[int, bytes]:
        while b"\r\n\r\n" not in self.buf:
            self._more()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        return int(head.split()[1]), head

    def _more(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("the server closed the stream")
        self.buf += chunk

    def next_state(self) -> dict:
        while True:
            while b"\n\n" not in self.buf:
                self._more()
            block, self.buf = self.buf.split(b"\n\n", 1)
            lines = block.decode().split("\n")
            if "event: state" in lines:
                data = "".join(x[len("data: "):] for x in lines if x.startswith("data: "))
                return json.loads(data)

    def close(self) -> None:
        self.sock.close()


def wait_for(check, timeout: float = 5.0, what: str = "the condition") -> None:
    """Poll ``check`` until true: for what another thread does, bounded."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(0.02)
