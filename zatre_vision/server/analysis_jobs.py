"""The background analysis of finished matches (``rules.analysis``), stored so that the
analysis page opens at once.

``AnalysisRunner.ensure(match_id)`` queues a finished board-game match whose stored
analysis is missing or was computed from another version of its record (a correction
since); ``request`` queues it whatever is stored (the operator's "Analyse again"). One
worker thread runs the queue and ends when it is empty; it writes its progress (turns
done of all) to the store as it goes. ``notice_table`` is called after every request
to the dashboard: when the table's match has just finished (or was corrected after),
its analysis starts. The app's runner is a service of its ``ServerContext``
(``context.py``): ``stop`` (the server shutting down) takes no more jobs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import deque
from contextlib import suppress

from ..rules.analysis import ANALYSIS_LIMIT, analyse_record
from ..rules.record import RecordError, parse_record
from ..store import Store, StoreError
from ..store.analyses import AnalysisStore

log = logging.getLogger(__name__)

#: Progress is written to the store every this many turns.
PROGRESS_EVERY = 5
#: Changes when the analysis computes something else from the same record.
ANALYSIS_VERSION = 2


def record_key(row: dict, limit: int = ANALYSIS_LIMIT) -> str:
    """Names the version of a match that an analysis belongs to."""
    text = json.dumps({"record": row["record"], "finished": bool(row["finished"]),
                       "limit": limit, "version": ANALYSIS_VERSION}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def analysable(row: dict) -> bool:
    return bool(row["finished"]) and row["record"].get("variant", "board") == "board"


class AnalysisRunner:
    def __init__(self, store: Store, table=None, limit: int = ANALYSIS_LIMIT):
        self.store = store
        self.analyses = AnalysisStore(store)
        self.table = table
        self.limit = limit
        self._lock = threading.Lock()
        self._queue: deque[int] = deque()
        self._worker: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle.set()
        self._seen: tuple | None = None
        self._stopped = False

    # -- the service's lifecycle (ServerContext.start and stop) --------------------------
    def start(self) -> None:
        """Take jobs (a new runner does; again after ``stop``)."""
        with self._lock:
            self._stopped = False

    def stop(self, timeout: float | None = 0.0) -> None:
        """Take no more jobs and drop the queued ones; the running one ends as it would
        (its thread is a daemon), waited for up to ``timeout`` seconds (None: until it
        ends)."""
        with self._lock:
            self._stopped = True
            self._queue.clear()
            worker = self._worker
        if worker is not None and (timeout is None or timeout > 0):
            worker.join(timeout)

    # -- asking -------------------------------------------------------------------------
    def status(self, match_id: int) -> dict | None:
        """The stored analysis of a match as the page and the API show it (None: no
        such match). ``status``: ``not-finished``, ``cards``, ``none``, ``queued``,
        ``running``, ``done`` or ``failed``; ``stale`` when the match changed since."""
        row = self.store.get_match(match_id)
        if row is None:
            return None
        out = {"match_id": match_id, "status": "none", "done": 0, "total": 0,
               "stale": False, "error": None, "result": None}
        if row["record"].get("variant", "board") != "board":
            return {**out, "status": "cards"}
        if not row["finished"]:
            return {**out, "status": "not-finished"}
        got = self.analyses.get(match_id)
        if got is None:
            return out
        return {**out, "status": got["status"], "done": got["done"], "total": got["total"],
                "stale": got["record_key"] != record_key(row, self.limit),
                "error": got["error"], "result": got["result"]}

    def ensure(self, match_id: int) -> bool:
        """Queue the match when its analysis is missing or stale. True when queued."""
        row = self.store.get_match(match_id)
        if row is None or not analysable(row):
            return False
        got = self.analyses.get(match_id)
        key = record_key(row, self.limit)
        if got is not None and got["record_key"] == key:
            return False  # done, running, queued or failed for this very record
        return self._enqueue(match_id, key, len(row["record"].get("turns", [])))

    def request(self, match_id: int) -> bool:
        """Queue the match whatever is stored (False: not a finished board game)."""
        row = self.store.get_match(match_id)
        if row is None or not analysable(row):
            return False
        return self._enqueue(match_id, record_key(row, self.limit),
                             len(row["record"].get("turns", [])))

    def notice_table(self) -> None:
        """Start the analysis of the table's match once it is finished (again)."""
        table = self.table
        if table is None or table.match_id is None:
            return
        seen = (table.match_id, table.version)
        if seen == self._seen:
            return
        self._seen = seen
        if getattr(table.match, "finished", False):
            self.ensure(table.match_id)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the queue is empty and no job runs (True), or ``timeout``."""
        return self._idle.wait(timeout)

    # -- running ------------------------------------------------------------------------
    def _enqueue(self, match_id: int, key: str, turns: int) -> bool:
        with self._lock:
            if self._stopped or match_id in self._queue:
                return False
            self.analyses.set_status(match_id, key, "queued", total=turns)
            self._queue.append(match_id)
            self._idle.clear()
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="zatre-analysis",
                                                daemon=True)
                self._worker.start()
        return True

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._worker = None
                    self._idle.set()
                    return
                match_id = self._queue.popleft()
            try:
                self.run_one(match_id)
            except Exception:  # noqa: BLE001 - a fault of ours: logged, the next job runs
                log.exception("analysis of match %s failed", match_id)

    def run_one(self, match_id: int) -> None:
        """Analyse one match now (in the calling thread) and store the result."""
        row = self.store.get_match(match_id)
        if row is None or not analysable(row):
            return
        key = record_key(row, self.limit)
        try:
            record = parse_record(row["record"], as_recorded=True)  # kept by older versions too
        except RecordError as exc:
            self.analyses.set_status(match_id, key, "failed", error=f"bad record: {exc}")
            return
        total = len(record.turns)
        self.analyses.set_status(match_id, key, "running", total=total)

        def progress(done: int, of: int) -> None:
            if done % PROGRESS_EVERY == 0 and done < of:
                # progress is a courtesy; the result is what must be stored
                with suppress(StoreError):
                    self.analyses.progress(match_id, done)

        try:
            result = analyse_record(record, self.limit, progress).to_json()
        except Exception as exc:
            self.analyses.set_status(match_id, key, "failed", total=total,
                                     error=f"internal error ({type(exc).__name__})")
            raise
        self.analyses.set_status(match_id, key, "done", done=total, total=total, result=result)


#: The rankings column's definition, shown on the page.
MISSED_PER_TURN_DEFINITION = (
    "Points missed per turn: over the season's analysed matches, the points the best "
    "legal move of the player's hand would have added to the sheet at once, minus what "
    "the move played added, summed over the turns that count and divided by their "
    "number (turns that broke a rule do not count; where the hand was not fully known "
    "only other ways to place the tiles placed are compared, so those turns count at "
    "least what was missed). Matches not analysed yet are left out.")


def missed_per_turn(runner: AnalysisRunner, rows: list[dict]) -> dict[str, dict]:
    """The rankings' season column: per player, points missed per counted turn over
    the finished board matches in ``rows`` whose stored analysis is current. Matches
    whose analysis is missing or stale are queued and left out (``matches`` says how
    many counted of how many)."""
    acc: dict[str, dict] = {}
    for row in rows:
        if not analysable(row):
            continue
        got = runner.analyses.get(row["id"])
        current = (got is not None and got["status"] == "done" and got["result"]
                   and got["record_key"] == record_key(row, runner.limit))
        for player in row["players"]:
            a = acc.setdefault(player, {"missed": 0, "turns": 0, "matches": 0, "of": 0})
            a["of"] += 1
            if current:
                s = got["result"]["summary"].get(player)
                if s:
                    a["missed"] += s["points_missed"]
                    a["turns"] += s["turns_counted"]
                    a["matches"] += 1
        if not current:
            with suppress(StoreError):  # queued on a later visit; the rankings still show
                runner.ensure(row["id"])
    return {p: {"per_turn": round(a["missed"] / a["turns"], 2) if a["turns"] else None,
                "turns": a["turns"], "matches": a["matches"], "of": a["of"]}
            for p, a in acc.items()}
