"""Slow clients from 32 addresses against the operator's phone: ``zatre bench
slow-clients``.

``zatre serve`` listens on every address, in its own process, with its settings as
installed. A guest opens ``sockets`` connections from 32 loopback addresses
(127.0.4.0/27, under the 64 a single address may hold) and sends one byte of a request
head on each every ``byte_every_s`` seconds, opening a new one at once for each the
server closes. Once it has held its connections for ``ramp_s``, the operator, from this
machine's address on its network (not a loopback address: where phones come from),
asks ``GET /api/state`` ``requests`` times, one a second, a new connection each: how
many are answered (200), and their p99. The guest's sockets are plain sockets; nothing
of the server's code. Result: ``benchmarks/results/slow_clients.json``."""

from __future__ import annotations

import contextlib
import errno
import selectors
import socket
import statistics
import threading
import time

from .served import Served, http_request, non_loopback_address, rss_mb

GUEST_ADDRESSES = [f"127.0.4.{n}" for n in range(32)]
HEAD = b"GET /api/state HTTP/1.1\r\nHost: table\r\nUser-Agent: slow\r\nX-Pad: " + b"a" * 400


def _pct(values: list[float], q: float) -> float | None:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(round(q * (len(values) - 1))))], 1) \
        if values else None


class SlowGuest(threading.Thread):
    """``sockets`` connections, one head byte each every ``every_s``; reopened when closed."""

    def __init__(self, port: int, sockets: int, every_s: float):
        super().__init__(daemon=True)
        self.port, self.n, self.every_s = port, sockets, every_s
        self.sel = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.closed_by_server = 0
        self.opened = 0
        self.held: list[int] = []      # connections held, sampled every 0.5 s
        self._state: dict[socket.socket, list] = {}

    def _open(self, k: int) -> None:
        s = socket.socket()
        s.setblocking(False)
        try:
            s.bind((GUEST_ADDRESSES[k % len(GUEST_ADDRESSES)], 0))
            err = s.connect_ex(("127.0.0.1", self.port))
        except OSError:
            s.close()
            return
        if err not in (0, errno.EINPROGRESS):
            s.close()
            return
        self.sel.register(s, selectors.EVENT_READ, k)
        self._state[s] = [0, time.monotonic() + (k % 30) * self.every_s / 30]
        self.opened += 1

    def _drop(self, s: socket.socket) -> int:
        k = self.sel.get_key(s).data
        self.sel.unregister(s)
        self._state.pop(s, None)
        s.close()
        return k

    def run(self) -> None:
        for k in range(self.n):
            self._open(k)
        last_sample = 0.0
        while not self.stop.is_set():
            for key, _ in self.sel.select(timeout=0.05):
                s = key.fileobj  # readable: the server closed it (or answered, then closes)
                with contextlib.suppress(OSError):
                    s.recv(4096)
                self.closed_by_server += 1
                self._open(self._drop(s))
            now = time.monotonic()
            for s, st in list(self._state.items()):
                if now >= st[1]:
                    try:
                        s.send(HEAD[st[0] % len(HEAD):st[0] % len(HEAD) + 1])
                        st[0] += 1
                    except (BlockingIOError, InterruptedError):
                        pass
                    except OSError:
                        self.closed_by_server += 1
                        self._open(self._drop(s))
                        continue
                    st[1] = now + self.every_s
            if now - last_sample >= 0.5:
                self.held.append(len(self._state))
                last_sample = now
        for s in list(self._state):
            with contextlib.suppress(KeyError, ValueError):
                self._drop(s)
        self.sel.close()


def run_slow_clients_benchmark(sockets: int = 1000, requests: int = 20,
                               byte_every_s: float = 3.0, ramp_s: float = 15.0) -> dict:
    operator_address = non_loopback_address()
    if operator_address is None:
        raise RuntimeError("this machine has no address but loopback: the operator needs one")
    served = Served(None, "--source", "none", host="0.0.0.0")
    try:
        guest = SlowGuest(served.port, sockets, byte_every_s)
        guest.start()
        time.sleep(ramp_s)
        answered, failed, ms = 0, [], []
        for _ in range(requests):
            t0 = time.perf_counter()
            try:
                status, _, _ = http_request(served.port, "GET", "/api/state",
                                            host=operator_address, source=operator_address,
                                            timeout=10)
            except OSError as exc:
                status = f"{type(exc).__name__}"
            elapsed = (time.perf_counter() - t0) * 1000
            if status == 200:
                answered += 1
                ms.append(elapsed)
            else:
                failed.append(str(status))
            time.sleep(max(0.0, 1.0 - (time.perf_counter() - t0)))
        held = guest.held[int(ramp_s * 2):] or guest.held
        rss = rss_mb(served.process.pid)
        guest.stop.set()
        guest.join(30)
    finally:
        served.close()
    p99 = _pct(ms, 0.99)
    ok = answered == requests and p99 is not None and p99 <= 200
    return {
        "ok": ok,
        "summary": {"ok": ok, "operator_answered": f"{answered} of {requests}",
                    "operator_p99_ms": p99, "guest_sockets": sockets,
                    "guest_addresses": len(GUEST_ADDRESSES),
                    "guest_connections_held_mean": round(statistics.mean(held), 1)
                    if held else None},
        "setup": {"server": "zatre serve --host 0.0.0.0, settings as installed "
                            "(max_connections 1000, 64 an address, headers 5 s)",
                  "guest": f"{sockets} sockets from 127.0.4.0/27, one head byte each every "
                           f"{byte_every_s:g} s, reopened when closed",
                  "operator": f"GET /api/state from {operator_address} (not loopback), a new "
                              f"connection each second, after {ramp_s:g} s of the guest"},
        "operator": {"answered": answered, "requests": requests, "failed": failed,
                     "p50_ms": round(statistics.median(ms), 1) if ms else None,
                     "p99_ms": p99, "max_ms": round(max(ms), 1) if ms else None},
        "guest": {"connections_opened": guest.opened, "closed_by_server": guest.closed_by_server,
                  "held_min": min(held, default=None), "held_max": max(held, default=None)},
        "server_rss_mb": rss,
        "targets": {"operator_answered": f"{requests} of {requests}", "operator_p99_ms_at_most": 200},
    }
