"""A match at a real table: the state the dashboard shows and the tracker feeds.

The truth of a match is its *record* (players, the turns as committed, corrections
folded in, minus points), in the ``zatre score`` format. Board and sheets are never
stored separately: they are derived by replaying the record through the rules
engine, so a correction anywhere in the past recomputes everything after it.

Every turn is judged by the record's referee (``rules.record.Referee``), as ``zatre
score`` judges it: the rules of the turn, turn order, and what the player can hold
(``rules.holdings``), so a turn that places more tiles than the player can have drawn
is flagged even when the hand is not declared. A turn that breaks the rules is not
applied: it waits as the *pending* turn, with an
alert, until the tiles are taken back (``reject_pending``), the operator overrides
it (``accept_pending``), or it is corrected. Committed turns stay on the board even
when a later correction shows they broke a rule: their violations are reported on
the turn instead. Pure logic, no I/O: persistence and
events are the caller's (see ``zatre_vision.store`` and the server).
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from .rules.board import CELL_SET, grid_index
from .rules.moves import cell_hints
from .rules.record import (
    GameRecord,
    RecordTurn,
    ReplayState,
    as_recorded_note,
    parse_record,
    run_replay,
)
from .rules.seats import checked_starter, checked_teams, leaders
from .rules.tiles import TILE_COUNT, is_tile_value
from .rules.turn import TurnResult


class MatchError(ValueError):
    """An operation that does not fit the match's state (one-line message)."""


@dataclass(frozen=True)
class PendingTurn:
    player: str
    placed: dict[str, int]
    hand: tuple[int, ...] | None
    result: TurnResult

    def to_json(self) -> dict:
        return {"player": self.player, "placed": dict(self.placed),
                "violations": [v.to_json() for v in self.result.violations]}


@dataclass
class Match:
    """Players in seating (clockwise) order; ``starter`` plays first."""

    #: the game, as ``zatre_vision.variants`` names it
    variant: ClassVar[str] = "board"

    players: list[str]
    starter: str | None = None
    teams: dict[str, int] = field(default_factory=dict)
    turns: list[RecordTurn] = field(default_factory=list)
    minus: dict[str, int] = field(default_factory=dict)
    finished: bool = False
    pending: PendingTurn | None = None
    #: a stored match from an earlier version (``from_record``): teams the rules now
    #: refuse are kept as recorded, with a note in ``notes`` and in the state's alerts
    as_recorded: bool = False
    notes: list[str] = field(default_factory=list, init=False)
    _replayed: ReplayState | None = field(default=None, repr=False)
    #: what the views read, kept in step with ``_replayed`` as turns are appended
    _derived: _Derived | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.starter = checked_starter(self.players, self.starter, 6, MatchError,
                                       "players or teams")
        try:
            self.teams = checked_teams(self.players, self.teams, MatchError)
        except MatchError as exc:
            if not self.as_recorded:
                raise
            self.notes.append(as_recorded_note(exc))

    # -- derived state -------------------------------------------------------------------
    def record(self) -> GameRecord:
        return GameRecord(list(self.players), list(self.turns), dict(self.minus), dict(self.teams),
                          self.starter)

    @property
    def replayed(self) -> ReplayState:
        if self._replayed is None:
            self._replayed = run_replay(self.record(), apply_all=True)
            self._derived = None
        return self._replayed

    def _changed(self) -> None:
        self._replayed = None
        self._derived = None

    def _appended(self) -> None:
        """The last of ``turns`` was just added at the end: the replay goes on from where
        it stood (one turn's work) instead of starting again from the first turn, so a
        turn costs the same at turn 500 as at turn 5. A correction, an undo or the end
        of the match replays the whole record (``_changed``)."""
        rep = self._replayed
        if rep is None or rep.referee is None or self.minus or len(rep.turns) != len(self.turns) - 1:
            self._changed()
            return
        turn = self.turns[-1]
        rep.turns.append(rep.referee.commit(turn, apply_all=True))
        if self._derived is not None:
            self._derived.add(len(self.turns), turn, rep.turns[-1])

    @property
    def derived(self) -> _Derived:
        rep = self.replayed
        if self._derived is None:
            d = _Derived()
            for number, (turn, replayed) in enumerate(zip(self.turns, rep.turns, strict=True), 1):
                d.add(number, turn, replayed)
            self._derived = d
        return self._derived

    @property
    def board(self):
        return self.replayed.board

    @property
    def current_player(self) -> str:
        """Whose turn it is: clockwise from the starter, the seat after the last turn's."""
        return self.replayed.referee.next_player

    def hand_limit(self, player: str | None = None) -> int:
        """The most tiles ``player`` (default: whose turn it is) can hold for a turn played
        now, from what they drew, placed and kept back (``rules.holdings``)."""
        return self.replayed.referee.allowance(player or self.current_player).most

    def held_tiles(self) -> dict[str, list[int]]:
        """Tiles each player is known to hold back (from the hands declared)."""
        return {p: list(v) for p, v in self.derived.held.items()}

    def turn_players(self) -> list[str]:
        """Who played each turn (1 first)."""
        return list(self.derived.players)

    @property
    def bag_count(self) -> int:
        """Tiles left in the bag, as far as the table knows: 121 minus the tiles on the
        board, minus the tiles players are known to hold back."""
        held = sum(len(v) for v in self.held_tiles().values())
        return max(0, TILE_COUNT - self.board.count - held)

    # -- turns -------------------------------------------------------------------------------
    def _require_open(self) -> None:
        if self.finished:
            raise MatchError("the match is finished")

    def propose(self, placed: Mapping[str, int], hand: Sequence[int] | None = None,
                player: str | None = None) -> TurnResult:
        """Commit a turn. Legal: applied at once. Illegal: held as the pending turn.

        Raises MatchError for input that is not a turn at all (unknown cell name,
        value not 1..6, a turn already pending)."""
        self._require_open()
        if self.pending is not None:
            raise MatchError("a flagged turn is waiting: accept, reject or correct it first")
        player = player or self.current_player
        if player not in self.players:
            raise MatchError(f"unknown player {player!r}")
        placed = _validated(placed)
        hand_t = tuple(hand) if hand is not None else None
        if hand_t is not None and not all(is_tile_value(v) for v in hand_t):
            raise MatchError("hand tiles must be values 1 to 6")
        if hand_t is not None and Counter(placed.values()) - Counter(hand_t):
            raise MatchError("the hand must include every placed tile")
        # the record's referee: turn order and what the player can hold, as in zatre score
        result, _, _ = self.replayed.referee.judge(RecordTurn(player, placed, hand_t))
        if result.legal:
            self.turns.append(RecordTurn(player, placed, hand_t))
            self._appended()
        else:
            self.pending = PendingTurn(player, placed, hand_t, result)
        return result

    def accept_pending(self) -> None:
        """The operator overrides the rules: the flagged turn is applied as placed."""
        p = self._take_pending()
        self.turns.append(RecordTurn(p.player, p.placed, p.hand, override=True))
        self._appended()

    def reject_pending(self) -> PendingTurn:
        """The tiles were taken back: the flagged turn is dropped."""
        return self._take_pending()

    def _take_pending(self) -> PendingTurn:
        if self.pending is None:
            raise MatchError("no flagged turn is waiting")
        p, self.pending = self.pending, None
        return p

    def undo(self) -> RecordTurn | PendingTurn | None:
        """Drop the flagged turn if there is one; on a finished match, the end of the
        match (its minus points: the turns stay; None); else the last committed turn."""
        if self.pending is not None:
            return self._take_pending()
        if self.finished:
            self.finished = False
            self.minus = {}
            self._changed()
            return None
        if not self.turns:
            raise MatchError("nothing to undo")
        turn = self.turns.pop()
        self._changed()
        return turn

    def declare_held(self, tiles: Sequence[int], player: str | None = None,
                     turn: int | None = None) -> int:
        """Record the tiles ``player`` kept back in turn ``turn`` (1 is the first; the
        turn's hand becomes placed + held). ``turn`` None: that player's last turn;
        ``player`` None: the player of ``turn`` (or of the last turn). Returns the turn
        number. A hand the player cannot have held (more than the draws allow, say five
        tiles on the first turn) is refused with that one reason and changes nothing."""
        if not all(is_tile_value(v) for v in tiles):
            raise MatchError("held tiles must be values 1 to 6")
        if player is not None and player not in self.players:
            raise MatchError(f"unknown player {player!r}")
        if turn is not None:
            if not 1 <= turn <= len(self.turns):
                raise MatchError(f"there is no turn {turn} yet (turns played: {len(self.turns)})")
            k = turn - 1
            if player is not None and self.turns[k].player != player:
                raise MatchError(f"turn {turn} was {self.turns[k].player}'s, not {player}'s")
        else:
            mine = [k for k, t in enumerate(self.turns) if player is None or t.player == player]
            if not mine:
                raise MatchError(f"{player} has played no turn to keep tiles back from"
                                 if player else "no turn to attach held tiles to")
            k = mine[-1]
        t = self.turns[k]
        hand = tuple(sorted([*t.placed.values(), *tiles]))
        turns = list(self.turns)
        turns[k] = RecordTurn(t.player, t.placed, hand, t.override)
        trial = run_replay(GameRecord(list(self.players), turns, dict(self.minus),
                                      dict(self.teams), self.starter), apply_all=True)
        wrong = [v.message for v in trial.turns[k].result.violations if v.code == "wrong-draw"]
        if wrong:
            raise MatchError(f"{t.player} cannot have kept back {' '.join(map(str, tiles))} "
                             f"in turn {k + 1}: {wrong[0]}")
        self.turns = turns
        self._changed()
        return k + 1

    # -- corrections -----------------------------------------------------------------------
    def set_cell(self, cell: str, value: int | None) -> None:
        """Correct one cell: change or clear a tile, or add one the camera missed (to
        the last turn). Everything after is recomputed, and a flagged turn is judged
        again on the corrected board."""
        _cell(cell)  # a cell name, or a one-line error
        if value is not None and not is_tile_value(value):
            raise MatchError(f"{value!r} is not a tile value (1 to 6)")
        if self.pending is not None and cell in self.pending.placed:
            p = self._take_pending()
            placed, hand = _corrected(p.placed, p.hand, cell, value)
            if placed:
                self.propose(placed, hand, p.player)
            return
        for k, t in enumerate(self.turns):
            if cell in t.placed:
                placed, hand = _corrected(t.placed, t.hand, cell, value)
                self.turns[k] = RecordTurn(t.player, placed, hand, t.override)
                self._changed()
                self._recheck_pending()
                return
        if value is None:
            return  # already empty
        if not self.turns:
            raise MatchError("no turn yet: propose the first turn instead")
        self.add_to_turn(len(self.turns) - 1, cell, value)

    def add_to_turn(self, index: int, cell: str, value: int) -> None:
        """Add a tile to turn ``index`` (0 is the first; the flagged turn, when one
        waits, is ``len(turns)``): one the camera missed, or read only after the turn
        was committed. The cell must be empty. Everything after is recomputed; a
        flagged turn is judged again (with the tile, it may now be legal and applied)."""
        if not is_tile_value(value):
            raise MatchError(f"{value!r} is not a tile value (1 to 6)")
        if _cell(cell) not in CELL_SET:
            raise MatchError(f"{cell} is not a cell of the board")
        last = len(self.turns) if self.pending is not None else len(self.turns) - 1
        if not 0 <= index <= last:
            raise MatchError(f"no turn {index + 1} to add a tile to")
        if cell in self.board.to_dict() or (self.pending is not None
                                            and cell in self.pending.placed):
            raise MatchError(f"{cell} already holds a tile")
        if index == len(self.turns):
            self._require_open()
            p = self._take_pending()
            hand = None if p.hand is None else tuple(sorted([*p.hand, value]))
            self.propose({**p.placed, cell: value}, hand, p.player)
            return
        t = self.turns[index]
        hand = None if t.hand is None else tuple(sorted([*t.hand, value]))
        self.turns[index] = RecordTurn(t.player, {**t.placed, cell: value}, hand, t.override)
        self._changed()
        self._recheck_pending()

    def _recheck_pending(self) -> None:
        """The board under a flagged turn changed: judge it again."""
        if self.pending is not None:
            p = self._take_pending()
            self.propose(p.placed, p.hand, p.player)

    # -- end ------------------------------------------------------------------------------------
    def finish(self, minus: Mapping[str, int]) -> None:
        """End the match with the pips left in each hand."""
        self._require_open()
        if self.pending is not None:
            raise MatchError("a flagged turn is waiting: accept or reject it first")
        for p, n in minus.items():
            if p not in self.players:
                raise MatchError(f"unknown player {p!r}")
            if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 6 * TILE_COUNT:
                raise MatchError(f"minus points for {p} must be a whole number, 0 or more")
        self.minus = {p: int(minus.get(p, 0)) for p in self.players}
        self.finished = True
        self._changed()

    def totals(self) -> dict[str, int]:
        return {p: s.total for p, s in self.replayed.sheets.items()}

    def winners(self) -> list[str]:
        return leaders(self.totals())

    # -- views -------------------------------------------------------------------------------------
    def state(self) -> dict:
        """The live match as JSON (``GET /api/state`` without the camera part)."""
        rep = self.replayed
        last = {**rep.turns[-1].to_json(), "gain": rep.turns[-1].gain} if rep.turns else None
        alerts = []
        if self.pending is not None:
            alerts.append({"kind": "illegal-turn", "player": self.pending.player,
                           "cells": sorted(self.pending.placed),
                           "reasons": [v.message for v in self.pending.result.violations],
                           "violations": [v.to_json() for v in self.pending.result.violations]})
        # a committed turn that a later correction shows to break a rule (an operator's
        # override aside): it stays scored as placed, and the table is told
        for number in self.derived.broken:
            turn, violations = self.turns[number - 1], rep.turns[number - 1].result.violations
            alerts.append({"kind": "broken-turn", "player": turn.player, "turn": number,
                           "cells": sorted(turn.placed),
                           "reasons": [v.message for v in violations],
                           "violations": [v.to_json() for v in violations]})
        if self.notes:
            alerts.append({"kind": "as-recorded", "reasons": list(self.notes)})
        return {
            "players": list(self.players),
            "starter": self.starter,
            "teams": dict(self.teams),
            "turn": None if self.finished else self.current_player,
            "turn_number": len(self.turns) + 1,
            "board": rep.board.to_dict(),
            "sheets": {p: s.to_json() for p, s in rep.sheets.items()},
            "bag": self.bag_count,
            "pending": self.pending.to_json() if self.pending else None,
            "alerts": alerts,
            "last_turn": last,
            "hints": cell_hints(rep.board),
            "finished": self.finished,
            "winners": self.winners() if self.finished else [],
        }

    def to_record(self) -> dict:
        """The match as a ``zatre score`` input record (plus the starter).

        A committed turn that a later correction shows to break a rule stays on the
        board at the table; the record marks it ``override`` so that ``zatre score``
        replays the match exactly as the table scored it."""
        out = self.record().to_json()
        for entry, replayed in zip(out["turns"], self.replayed.turns, strict=True):
            if not replayed.result.legal:
                entry["override"] = True
        out["starter"] = self.starter
        return out

    def record_text(self) -> str:
        """``json.dumps(self.to_record())``, from each turn's text kept as the match
        grew: no work per turn already played (the store writes this)."""
        tail: dict = {}
        if self.minus:
            tail["minus"] = dict(self.minus)
        if self.teams:
            tail["teams"] = dict(self.teams)
        tail["starter"] = self.starter
        return (json.dumps({"players": list(self.players)})[:-1] + ', "turns": ['
                + ", ".join(self.derived.texts) + "], " + json.dumps(tail)[1:])

    def rollback_copy(self) -> Match:
        """A copy to go back to if a change cannot be stored: the turns (which are
        frozen) are shared, the lists that hold them are not; its replay is made again
        only if it is used."""
        back = copy.copy(self)
        back.players, back.turns = list(self.players), list(self.turns)
        back.teams, back.minus, back.notes = dict(self.teams), dict(self.minus), list(self.notes)
        back._replayed = back._derived = None
        return back

    @classmethod
    def from_record(cls, data: object, finished: bool = False, as_recorded: bool = False
                    ) -> Match:
        """Rebuild a match from its record (raises RecordError on a bad record).
        ``as_recorded``: a stored match, whose teams are kept even where the rules now
        refuse them (with a note)."""
        rec = parse_record(data, as_recorded=as_recorded)
        starter = data.get("starter") if isinstance(data, dict) else None
        if starter is not None and starter not in rec.players:
            raise MatchError(f"unknown starting player {starter!r}")
        match = cls(rec.players, starter, rec.teams, list(rec.turns), rec.minus,
                    as_recorded=as_recorded)
        match.finished = finished
        return match


class _Derived:
    """Per turn, what the views and the store read, in turn order: each turn's record
    text (``override`` where its replay found it illegal), the turns a correction
    showed to be broken, each player's declared held tiles, who played each turn."""

    def __init__(self):
        self.texts: list[str] = []
        self.broken: list[int] = []
        self.held: dict[str, list[int]] = {}
        self.players: list[str] = []

    def add(self, number: int, turn: RecordTurn, replayed) -> None:
        entry = turn.to_json()
        if not replayed.result.legal:
            entry["override"] = True
            if not turn.override:
                self.broken.append(number)
        self.texts.append(json.dumps(entry))
        if turn.hand is not None and replayed.applied:
            rest = Counter(turn.hand)
            rest.subtract(turn.placed.values())
            self.held[turn.player] = sorted(rest.elements())
        self.players.append(turn.player)


def _corrected(placed: Mapping[str, int], hand: tuple[int, ...] | None, cell: str,
               value: int | None) -> tuple[dict[str, int], tuple[int, ...] | None]:
    """A turn's tiles and hand with ``cell`` set to ``value`` (None: removed). The hand
    keeps the tile's old value as a held tile when the tile is removed."""
    old = placed[cell]
    placed = dict(placed)
    if value is None:
        del placed[cell]
    else:
        placed[cell] = value
        if hand is not None:
            hand = tuple(sorted((Counter(hand) - Counter([old]) + Counter([value])).elements()))
    return placed, hand


def _cell(name: object) -> int:
    if not isinstance(name, str):
        raise MatchError("a cell is named like H8")
    try:
        return grid_index(name)
    except ValueError as exc:
        raise MatchError(str(exc)) from None


def _validated(placed: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(placed, Mapping):
        raise MatchError("placed tiles must be a mapping of cell to value")
    out = {}
    for cell, value in placed.items():
        _cell(cell)
        if not is_tile_value(value):
            raise MatchError(f"{value!r} on {cell} is not a tile value (1 to 6)")
        out[cell] = value
    return out
