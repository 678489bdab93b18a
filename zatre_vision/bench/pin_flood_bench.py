"""Wrong PINs from 256 addresses against the operator: ``zatre bench pin-flood``.

A table whose PIN was set at its console (``zatre pin set``: stored as a scrypt hash)
is served by ``zatre serve`` in its own process. The operator's phone signs in and
starts a match before the flood. Then, for ``seconds``, a guest sends wrong 6-digit
PINs as fast as the server takes them (``X-Table-PIN`` on a write, and ``POST /login``
with the form's token), each from the next of 256 loopback addresses (127.0.2.0/24),
from ``workers`` threads. Meanwhile the operator:

- writes with its session every second (a pass, then its undo): every one answered;
- signs out and in again with the PIN every ``resign_every_s``, on the same phone;
- once, from a new phone, tries the PIN (refused while the whole network waits) and
  then signs in with a code from the console (``zatre pin grant``).

An operator lock-out is any of these refused. The guest counts its PINs checked (a 401
says "wrong PIN") and refused (429, each with the wait). Its clients are plain sockets
from ``bench/served.py``: nothing of the server's code. Result:
``benchmarks/results/pin_flood.json``."""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections import Counter

from .served import (
    Browser,
    Served,
    console_code,
    data_folder_with_pin,
    http_request,
    rss_mb,
)

PIN = "864213"
ADDRESSES = [f"127.0.2.{n}" for n in range(256)]
OPERATOR = "127.0.3.10"
NEW_PHONE = "127.0.3.11"
#: what a write refused for want of a sign-in gets (a 409 is the match's answer: signed in)
LOCKED_OUT = (0, 400, 401, 403, 429)


def _pct(values: list[float], q: float) -> float | None:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(round(q * (len(values) - 1))))], 1) \
        if values else None


class Guest:
    """Wrong PINs from the next address each, from ``workers`` threads."""

    def __init__(self, port: int, workers: int, seed: int):
        self.port, self.workers = port, workers
        self.rng = random.Random(seed)
        self.replies: Counter = Counter()
        self.addresses_used: set[str] = set()
        self.sent = 0
        self.refusal_waits: list[int] = []
        self._lock = threading.Lock()

    def _next(self) -> tuple[str, str, int]:
        with self._lock:
            n = self.sent
            self.sent += 1
            pin = f"{self.rng.randrange(10**6):06d}"
        while pin == PIN:
            pin = f"{(int(pin) + 1) % 10**6:06d}"
        return ADDRESSES[n % len(ADDRESSES)], pin, n

    def _one(self) -> None:
        address, pin, n = self._next()
        try:
            if n % 2:
                status, headers, _ = http_request(
                    self.port, "POST", "/table/turn", source=address,
                    body=b'{"placed": {}}', headers={"Content-Type": "application/json",
                                                     "Accept": "application/json",
                                                     "X-Table-PIN": pin})
            else:
                phone = Browser(self.port, address)
                phone.open_page()
                status, _ = phone.post("/login", {"pin": pin})
                headers = {}
        except OSError:
            status, headers = 0, {}
        with self._lock:
            self.replies[status] += 1
            self.addresses_used.add(address)
            if status == 429 and headers.get("retry-after", "").isdigit():
                self.refusal_waits.append(int(headers["retry-after"]))

    def run(self, seconds: float) -> None:
        end = time.monotonic() + seconds

        def loop():
            while time.monotonic() < end:
                self._one()

        threads = [threading.Thread(target=loop, daemon=True) for _ in range(self.workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(seconds + 60)


def _operator(served: Served, phone: Browser, seconds: float, resign_every_s: float) -> dict:
    writes, write_ms, resigns, refused = Counter(), [], Counter(), []
    new_phone = {}
    end = time.monotonic() + seconds
    next_resign = time.monotonic() + resign_every_s
    step = 0
    while time.monotonic() < end:
        path = "/table/turn" if step % 2 == 0 else "/table/undo"
        body = {"placed": {}} if path == "/table/turn" else {}
        t0 = time.perf_counter()
        try:
            status, reply = phone.post(path, body)
        except OSError:
            status, reply = 0, {}
        write_ms.append((time.perf_counter() - t0) * 1000)
        writes[status] += 1
        if status in LOCKED_OUT:
            refused.append(f"{path}: {status} {reply.get('error', '')}"[:200])
        step += 1
        if time.monotonic() >= next_resign:
            phone.post("/logout", {})
            status, reply = phone.sign_in(PIN)
            resigns[status] += 1
            if status != 200:
                refused.append(f"sign-in again: {status} {reply.get('error', '')}"[:200])
            next_resign += resign_every_s
        if not new_phone and time.monotonic() > end - seconds / 2:
            fresh = Browser(served.port, NEW_PHONE)
            status, reply = fresh.sign_in(PIN)
            new_phone["pin_reply"] = {"status": status, "error": reply.get("error")}
            status, reply = fresh.sign_in(console_code(served.data))
            new_phone["console_code_reply"] = status
            wrote, reply = fresh.post("/table/turn", {"placed": {}})
            new_phone["write_after"] = {"status": wrote, "error": reply.get("error")}
            if status != 200 or wrote in LOCKED_OUT:
                refused.append(f"new phone with the console's code: {status}, write {wrote}")
        time.sleep(max(0.0, 1.0 - (time.perf_counter() - t0)))
    return {"writes": dict(writes), "write_p50_ms": round(statistics.median(write_ms), 1)
            if write_ms else None, "write_p99_ms": _pct(write_ms, 0.99),
            "signed_in_again": dict(resigns), "new_phone": new_phone,
            "lockouts": len(refused), "refusals": refused[:20]}


def run_pin_flood_benchmark(seconds: float = 60.0, workers: int = 16,
                            resign_every_s: float = 10.0, seed: int = 63) -> dict:
    served = Served(data_folder_with_pin(PIN), "--source", "none")
    try:
        phone = Browser(served.port, OPERATOR)
        phone.sign_in(PIN)
        status, reply = phone.post("/setup", {"players": ["Ann", "Ben"], "camera": "none",
                                              "replace": True})
        if status != 200:
            raise RuntimeError(f"setup failed: {status} {reply}")
        guest = Guest(served.port, workers, seed)
        rss_before = rss_mb(served.process.pid)
        flood = threading.Thread(target=guest.run, args=(seconds,), daemon=True)
        started = time.monotonic()
        flood.start()
        operator = _operator(served, phone, seconds, resign_every_s)
        flood.join(seconds + 120)
        elapsed = time.monotonic() - started
        rss_after = rss_mb(served.process.pid)
    finally:
        served.close()
    checked = guest.replies.get(401, 0)
    let_in = sum(v for k, v in guest.replies.items() if 200 <= k < 300)
    ok = checked <= 40 and let_in == 0 and operator["lockouts"] == 0
    return {
        "ok": ok,
        "summary": {"ok": ok, "pins_checked_in_all": checked, "guesses_sent": guest.sent,
                    "addresses": len(guest.addresses_used), "seconds": round(elapsed, 1),
                    "guesses_let_in": let_in, "operator_lockouts": operator["lockouts"],
                    "operator_write_p99_ms": operator["write_p99_ms"]},
        "setup": {"pin": "6 digits, set at the console (zatre pin set), stored as a scrypt "
                         "hash", "addresses": "127.0.2.0/24 (256), the next one each guess",
                  "guesses": "half X-Table-PIN on POST /table/turn, half POST /login with "
                             "the page's token", "workers": workers, "seconds": seconds,
                  "operator": f"{OPERATOR}, signed in before the flood; a new phone "
                              f"{NEW_PHONE} halfway"},
        "guest": {"replies": {str(k): v for k, v in sorted(guest.replies.items())},
                  "checked_wrong_401": checked, "refused_429": guest.replies.get(429, 0),
                  "longest_wait_told_s": max(guest.refusal_waits, default=None)},
        "operator": operator,
        "server_rss_mb": {"before": rss_before, "after": rss_after},
        "targets": {"pins_checked_in_all_at_most": 40, "operator_lockouts": 0,
                    "guesses_let_in": 0},
    }
