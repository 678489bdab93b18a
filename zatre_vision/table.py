"""The game session of one table: the interface between the camera pipeline, the
dashboard and the store.

A :class:`Table` owns the current :class:`~zatre_vision.match.Match`. Every change
(a turn from the camera or typed in by hand, an override, a correction, an undo, the
end of a match) goes through one of its methods, which

1. applies it to the match (``MatchError`` for an operation that does not fit:
   the caller maps it to a 4xx or an operator message),
2. writes the new record and the event that made it to the store in one transaction
   (if the write fails, the match is rolled back and the error raised), and
3. publishes the new state, as JSON, to every subscriber (the dashboard's event
   streams).

All methods are thread-safe: the camera thread and the web server's threads call
them concurrently. The state carries a ``version`` that grows by one on every change.

What differs between the board game and the card game (a new match, the dashboard's
state, the stored row, the end of a match) the table asks the match's
:class:`~zatre_vision.variants.Variant`; only the card game's own turns (a shown
hand, a pass, an early end of round) are refused by name on a board match.

The camera pipeline uses: ``commit_turn``, ``set_camera_status``, ``state``,
``undo`` (button on the Pi) and ``current_board`` (what the board should look like).
"""

from __future__ import annotations

import copy
import json
import queue
import random
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from . import variants
from .match import Match, MatchError
from .store import Store

SOURCES = ("camera", "manual", "demo")
VARIANTS = tuple(variants.VARIANTS)  # the board game; the card game (manual entry only)
CARDS = variants.CARDS.name

__all__ = ["Table", "Subscription", "MatchError", "draw_starter", "SOURCES", "VARIANTS"]


class Subscription:
    """A subscriber's queue of state messages (JSON text), newest last.

    ``get(timeout)`` returns the next message, ``None`` when none came in time (send a
    keep-alive), or raises :class:`StopIteration`-like ``Closed`` once the table closes.
    A subscriber that falls more than ``maxsize`` messages behind loses the oldest
    ones (each message is a full state, so it still ends up current); ``dropped``
    counts them.
    """

    class Closed(Exception):
        pass

    _CLOSE = object()

    def __init__(self, maxsize: int = 500):
        self._queue: queue.Queue = queue.Queue()
        self.maxsize = maxsize
        self.dropped = 0

    def put(self, message: str) -> None:
        while self._queue.qsize() >= self.maxsize:
            try:
                self._queue.get_nowait()
                self.dropped += 1
            except queue.Empty:
                break
        self._queue.put(message)

    def close(self) -> None:
        self._queue.put(self._CLOSE)

    def get(self, timeout: float | None = None) -> str | None:
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is self._CLOSE:
            self._queue.put(self._CLOSE)  # stays closed
            raise Subscription.Closed
        return item


def draw_starter(players: Sequence[str], rng: random.Random | None = None) -> dict:
    """The start-player draw of the rules: everyone draws a tile (1..6 as in the bag's
    mix); the highest starts; ties draw again among the tied. Returns the rounds and
    the starter."""
    rng = rng or random.SystemRandom()
    bag = [1] * 21 + [v for v in range(2, 7) for _ in range(20)]
    contenders = list(players)
    rounds = []
    while True:
        rng.shuffle(bag)
        draws = {p: bag[i] for i, p in enumerate(contenders)}
        rounds.append(draws)
        top = max(draws.values())
        contenders = [p for p in contenders if draws[p] == top]
        if len(contenders) == 1:
            return {"rounds": rounds, "starter": contenders[0]}


class Table:
    """One table's live match, persisted through ``store`` and published to subscribers."""

    def __init__(self, store: Store, name: str = "table-1", *, season: str | None = None,
                 profi: bool = False, camera_source: str = "none"):
        self.store = store
        self.name = name
        self.season = season
        self.profi = profi
        self._lock = threading.RLock()
        self._subs: set[Subscription] = set()
        self._closed = False
        self.boot = uuid.uuid4().hex[:8]
        self.version = 0
        #: grows by one on every change of the match (not of the camera's status): the
        #: revision a write was made from (see server.once)
        self.revision = 0
        self.match: Any = None  # a Match, or the card game's TableCardMatch
        self.match_id: int | None = None
        self.match_source: str | None = None
        self.tournament_id: int | None = None
        self.camera: dict[str, Any] = {"source": camera_source,
                                       "state": "off" if camera_source == "none" else "starting",
                                       "message": "manual entry" if camera_source == "none" else "",
                                       "updated": time.time()}
        #: an ended turn the camera cannot commit until a cell is read or entered (see
        #: ``set_waiting_turn``); None when none waits
        self.waiting_turn: dict[str, Any] | None = None
        self._state_text: str | None = None
        self.resume_note: str | None = None
        self._resume()

    # -- loading -----------------------------------------------------------------------
    def _resume(self) -> None:
        """Pick up the table's active match from the store exactly where it was."""
        match_id = self.store.active_match_id(self.name)
        if match_id is None:
            return
        row = self.store.get_match(match_id)
        if row is None:
            return
        try:
            self.match = match_from_row(row)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            # a stored record no version of the rules can replay: the server starts all
            # the same, the match stays in the history, and the table says why
            self.resume_note = (f"match {match_id} could not be resumed: "
                                f"{' '.join(str(exc).split())[:200]}; it stays in the history")
            return
        self.match_id = match_id
        self.match_source = row.get("source")
        self.tournament_id = row.get("tournament_id")
        self.season = row.get("season") or self.season

    # -- subscribers ------------------------------------------------------------------------
    def subscribe(self, maxsize: int = 500) -> Subscription:
        """A new subscriber; its first message is the current state."""
        sub = Subscription(maxsize)
        with self._lock:
            if self._closed:
                sub.close()
                return sub
            self._subs.add(sub)
            sub.put(self._state_json())
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subs)

    def close(self) -> None:
        """End every event stream (server shutdown)."""
        with self._lock:
            self._closed = True
            for sub in self._subs:
                sub.close()
            self._subs.clear()

    def _publish(self) -> None:
        self.version += 1
        self._state_text = None
        text = self._state_json()
        for sub in self._subs:
            sub.put(text)

    # -- views ----------------------------------------------------------------------------------
    def state(self) -> dict:
        """The live match (``GET /api/state``): Match.state() plus the table's fields."""
        with self._lock:
            return json.loads(self._state_json())

    def _state_json(self) -> str:
        if self._state_text is None:
            self._state_text = json.dumps(self._build_state(), ensure_ascii=False,
                                          separators=(",", ":"))
        return self._state_text

    def _build_state(self) -> dict:
        if self.match is None:
            base = {"players": [], "starter": None, "teams": {}, "turn": None,
                    "turn_number": 0, "board": {}, "sheets": {}, "bag": 121, "pending": None,
                    "alerts": [], "last_turn": None, "hints": {}, "finished": False,
                    "winners": [], "held": {}}
        else:
            base = self._game().dashboard_state(self.match)
            base["turns_played"] = len(self.match.turns)
        if self.match is None and self.resume_note:
            base["alerts"] = [{"kind": "as-recorded", "reasons": [self.resume_note]}]
        if self.camera.get("state") == "error":
            base["alerts"] = [*base["alerts"], {"kind": "camera", "reasons": [
                self.camera.get("message") or "the camera stopped"]}]
        base.update({
            "version": self.version,
            "revision": self.revision,
            "boot": self.boot,
            "table": self.name,
            "match_id": self.match_id,
            "source": self.match_source,
            "tournament_id": self.tournament_id,
            "season": self.season,
            "profi": self.profi,
            "camera": dict(self.camera),
            "waiting_turn": copy.deepcopy(self.waiting_turn),
        })
        if self.profi:
            base["hints"] = {}
        return base

    def current_board(self) -> dict[str, int]:
        with self._lock:
            return {} if self.match is None else self.match.board.to_dict()

    # -- changes ---------------------------------------------------------------------------------
    @property
    def variant(self) -> str | None:
        """``"board"`` or ``"cards"`` for the current match (None: no match)."""
        return None if self.match is None else self.match.variant

    def _game(self) -> variants.Variant:
        """The current match's variant (there must be a match)."""
        return variants.variant_of_match(self.match)

    def _require_match(self) -> Match:
        if self.match is None:
            raise MatchError("no match at this table: start one in Setup")
        return self.match

    def _save(self, kind: str, payload: dict, source: str | None = None,
              turn_number: int | None = None, snapshot: bytes | None = None) -> None:
        m = self.match
        assert m is not None and self.match_id is not None
        record = m.record_text() if hasattr(m, "record_text") else m.to_record()
        self.store.save_match(self.match_id, record=record, **self._game().stored(m),
                              kind=kind, payload=payload, source=source,
                              turn_number=turn_number, snapshot=snapshot)

    def _change(self, kind: str, fn, payload: dict, *, source: str | None = None,
                snapshot: bytes | None = None, turn_number=None):
        """Apply ``fn(match)``, persist, publish; roll the match back if the store fails."""
        with self._lock:
            m = self._require_match()
            # the board match copies only what a change can touch (a deep copy grew
            # with the match); the card game's is deep
            backup = m.rollback_copy() if hasattr(m, "rollback_copy") else copy.deepcopy(m)
            try:
                try:
                    result = fn(m)
                except self._game().errors as exc:  # the variant's own one-line errors
                    raise MatchError(str(exc)) from None
                number = turn_number(m) if callable(turn_number) else turn_number
                self._save(kind, payload, source, number, snapshot)
            except BaseException:
                self.match = backup
                raise
            self.revision += 1
            self._publish()
            return result

    def new_match(self, players: Sequence[str], starter: str | None = None,
                  teams: Mapping[str, int] | None = None, *, source: str = "manual",
                  tournament_id: int | None = None, pairing: str | None = None,
                  season: str | None = None, variant: str = "board",
                  zero_rule: str | None = None) -> int:
        """Start a new match at this table (the previous one stays in the records).
        ``variant="cards"``: a card game (2 to 4 players, manual entry), scored with the
        club's ``zero_rule`` ("on" / "off"; None: the data file's)."""
        if source not in SOURCES:
            raise MatchError(f"unknown source {source!r}")
        if variant not in VARIANTS:
            raise MatchError(f"unknown game {variant!r} (board or cards)")
        players = [str(p).strip() for p in players]
        match = variants.VARIANTS[variant].new_match(players, starter, teams, zero_rule)
        with self._lock:
            # a tournament pairing's match that never began (no turn played): a new
            # match withdraws it, so no empty "unfinished" pairing stays in the records
            old = self.match
            if (old is not None and self.match_id is not None and self.tournament_id is not None
                    and not old.turns and getattr(old, "pending", None) is None
                    and not old.finished):
                self.store.withdraw_match(self.match_id)
                self.match = self.match_id = self.match_source = self.tournament_id = None
            season = season or self.season or time.strftime("%Y")
            match_id = self.store.create_match(
                self.name, players, match.to_record(), season=season, source=source,
                totals=match.totals(), tournament_id=tournament_id, pairing=pairing)
            self.match, self.match_id, self.match_source = match, match_id, source
            self.waiting_turn = None
            self.tournament_id = tournament_id
            self.season = season
            self.revision += 1
            self._publish()
            return match_id

    def annul(self, match_id: int, reason: str, source: str = "manual") -> None:
        """Annul a match (see ``Store.annul_match``); the table's own match leaves the
        table, which waits for the next one."""
        with self._lock:
            row = self.store.get_match(match_id)
            if row is None:
                raise MatchError(f"no match {match_id}")
            if row.get("annulled"):
                raise MatchError(f"match {match_id} is already annulled")
            self.store.annul_match(match_id, reason, source)
            if match_id == self.match_id:
                self.match = self.match_id = self.match_source = self.tournament_id = None
                self.waiting_turn = None
            self.revision += 1
            self._publish()

    def commit_turn(self, placed: Mapping[str, int], hand: Sequence[int] | None = None,
                    snapshot_jpeg: bytes | None = None, source: str = "camera",
                    frame: int | None = None, player: str | None = None) -> dict:
        """A turn seen by the camera (or typed in): legal turns are applied, illegal ones
        wait as the pending turn with an alert. An empty ``placed`` is a pass. Returns
        the turn's verdict as JSON."""
        if source not in SOURCES:
            raise MatchError(f"unknown source {source!r}")
        placed = dict(placed)
        payload = {"placed": placed, "hand": list(hand) if hand is not None else None,
                   "frame": frame, "player": player}

        def apply(m: Match):
            result = m.propose(placed, hand, player)
            payload["legal"] = result.legal
            payload["violations"] = [v.to_json() for v in result.violations]
            if result.legal:  # the score as placed: a later correction gets its own line
                payload.update(turn_score(m, len(m.turns)))
            return result

        with self._lock:
            result = self._change("turn", apply, payload, source=source,
                                  snapshot=snapshot_jpeg,
                                  turn_number=lambda m: len(m.turns) + (m.pending is not None))
            return {"player": self.match.turns[-1].player if result.legal
                    else self.match.pending.player, **result.to_json()}

    def accept_pending(self, source: str = "manual") -> None:
        payload: dict = {}

        def apply(m: Match) -> None:
            m.accept_pending()
            payload.update(turn_score(m, len(m.turns)))

        self._change("accept", apply, payload, source=source, turn_number=lambda m: len(m.turns))

    def reject_pending(self, source: str = "manual") -> None:
        self._change("reject", lambda m: m.reject_pending(), {}, source=source)

    def undo(self, source: str = "manual") -> None:
        self._change("undo", lambda m: m.undo(), {}, source=source)

    def set_cell(self, cell: str, value: int | None, source: str = "manual") -> None:
        # Match.set_cell also judges a flagged turn again on the corrected board
        payload: dict = {"cell": cell, "value": value}

        def apply(m: Match) -> None:
            was = turn_of_cell(m, cell)
            m.set_cell(cell, value)
            # the turn the cell belongs to now (a cleared cell: the one it left), and
            # what that turn scores after the correction: the event log's own line
            number = turn_of_cell(m, cell) or was
            if number and number <= len(m.turns):
                payload.update(in_turn=number, **turn_score(m, number))

        self._change("correction", apply, payload, source=source)

    def declare_held(self, tiles: Sequence[int], player: str | None = None,
                     source: str = "manual", turn: int | None = None) -> int:
        """The tiles ``player`` kept back in turn ``turn`` (see ``Match.declare_held``);
        the event names both. Returns the turn number."""
        tiles = list(tiles)
        payload = {"tiles": tiles, "player": player, "turn": turn}

        def apply(m: Match) -> int:
            number = m.declare_held(tiles, player, turn)
            payload.update(turn=number, player=m.turns[number - 1].player)
            return number

        return self._change("held", apply, payload, source=source)

    def finish(self, minus: Mapping[str, int], source: str = "manual") -> None:
        minus = dict(minus)
        payload: dict = {}  # the variant's: the minus points of the board game

        def apply(m) -> None:
            payload.update(self._game().finish(m, minus))

        self._change("finish", apply, payload, source=source)

    # -- the card game ---------------------------------------------------------------------------
    def _require_cards(self):
        m = self._require_match()
        if m.variant != CARDS:  # the board game has no shown hands, passes or rounds
            raise MatchError("this table plays the board game, not the card game")
        return m

    def show_hand(self, hand: Sequence[int] | None = None, player: str | None = None,
                  source: str = "manual") -> dict:
        """Card game: the player cannot lay a card, shows the hand and takes three new
        cards; the same player goes on. Returns the turn's verdict as JSON."""
        self._require_cards()
        payload = {"placed": {}, "hand": list(hand) if hand is not None else None,
                   "player": player, "show_hand": True}

        def apply(m):
            result = m.show_hand(hand, player)
            payload["legal"] = result.legal
            payload["violations"] = [v.to_json() for v in result.violations]
            return result

        with self._lock:
            result = self._change("turn", apply, payload, source=source,
                                  turn_number=lambda m: len(m.turns) + (m.pending is not None))
            return {"player": self.match.turns[-1].player if result.legal
                    else self.match.pending.player, **result.to_json()}

    def pass_turn(self, player: str | None = None, source: str = "manual") -> None:
        """Card game: no card of the stack fits; the next seat plays."""
        self._require_cards()
        payload = {"placed": {}, "player": player, "pass": True}

        def apply(m):
            result = m.pass_turn(player)
            payload["legal"] = result.legal
            payload["violations"] = [v.to_json() for v in result.violations]

        self._change("turn", apply, payload, source=source,
                     turn_number=lambda m: len(m.turns) + (m.pending is not None))

    def end_round(self, source: str = "manual") -> None:
        """Card game: end a blocked round early (the next turn starts a new layout)."""
        self._require_cards()
        self._change("end-round", lambda m: m.end_round(), {}, source=source)

    def set_camera_status(self, status: Mapping[str, Any]) -> None:
        """Camera pipeline health: ``{"state": "ok"|"no-board"|"unreadable"|"moving"|
        "error"|"off", "message": str, "fps": float, ...}`` (merged into the current
        status)."""
        with self._lock:
            self.camera = {**self.camera, **dict(status), "updated": time.time()}
            self._publish()

    def set_waiting_turn(self, waiting: Mapping[str, Any] | None) -> None:
        """The camera's turn that waits for a cell it cannot read (``{"turn": n,
        "player": p, "cells": [...], "ambiguous": [...], "queued": k, "message": ...}``),
        or None; published only when it changes."""
        waiting = dict(waiting) if waiting else None
        with self._lock:
            if waiting == self.waiting_turn:
                return
            self.waiting_turn = waiting
            self._publish()

    def set_profi(self, profi: bool) -> None:
        with self._lock:
            self.profi = bool(profi)
            self._publish()


def turn_of_cell(match: Any, cell: str) -> int | None:
    """The committed turn (1 first) that placed ``cell``, or None."""
    for number, turn in enumerate(getattr(match, "turns", None) or [], start=1):
        if cell in getattr(turn, "placed", {}):
            return number
    return None


def turn_score(match: Any, number: int) -> dict:
    """Turn ``number`` (1 first) of a board match as scored now: its player, points
    (the sums of 10, 11 and 12) and gain (the x2 and a bonus included); {} when the
    match has no such turn (a card game keeps its own)."""
    turns = getattr(getattr(match, "replayed", None), "turns", None) or []
    if not 0 < number <= len(turns) or not hasattr(turns[number - 1], "gain"):
        return {}
    t = turns[number - 1]
    return {"player": t.turn.player, "points": int(sum(t.result.points.values())),
            "gain": int(t.gain)}


def match_from_row(row: Mapping[str, Any]) -> Any:
    """Rebuild a stored match exactly, as its variant does (record, finished flag, pending
    turn and whatever else the variant keeps with it)."""
    return variants.variant_of(row["record"]).from_row(row)
