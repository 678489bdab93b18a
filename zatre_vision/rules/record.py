"""Game records (the ``zatre score`` format): validation and replay through the engine.

Input and output formats are in ``shared/spec/contracts.md``. Validation raises
RecordError with a one-line reason for anything that is not a well-formed record:
malformed structure, an unknown player, a name outside the 15 x 15 grid (``Z99``),
a tile value other than 1..6, a missing field, teams that are not two partners each
and 4 or 6 players in all. A well-formed record whose moves break the rules is not an
error: those turns are reported illegal and skipped. That includes a turn out of turn
(``out-of-turn``) and a turn whose tiles do not fit what the player can hold
(``wrong-draw``, decided by :mod:`.holdings`, also after refused turns).

This module knows the board game only (a card-game record is refused in one line);
:mod:`zatre_vision.variants` picks the engine by the record's ``"variant"``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from .board import CELL_SET, Board, cell_index, cell_name, grid_index, is_grid_name
from .holdings import (
    EMPTY,
    Allowance,
    Holding,
    after_turn,
    allowance,
    draw_violations,
    turn_hand,
)
from .moves import placeable_values
from .seats import checked_teams
from .sheet import ScoreSheet
from .tiles import is_tile_value
from .turn import TurnResult, Violation, check_turn, score_lines


class RecordError(ValueError):
    """A record that cannot be replayed; the message is one line for the user."""


@dataclass(frozen=True)
class RecordTurn:
    player: str
    placed: dict[str, int]
    hand: tuple[int, ...] | None = None
    override: bool = False  # an operator accepted it despite its violations

    def to_json(self) -> dict:
        out: dict = {"player": self.player, "placed": dict(self.placed)}
        if self.hand is not None:
            out["hand"] = list(self.hand)
        if self.override:
            out["override"] = True
        return out


@dataclass
class GameRecord:
    players: list[str]
    turns: list[RecordTurn]
    minus: dict[str, int] = field(default_factory=dict)
    teams: dict[str, int] = field(default_factory=dict)
    starter: str | None = None  # None: the first turn's player
    #: read "as recorded" (a stored match): the rules it breaks that are checked only
    #: since it was stored, one line each (not part of the record's JSON)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The record in the ``zatre score`` input format."""
        out: dict = {"players": list(self.players), "turns": [t.to_json() for t in self.turns]}
        if self.minus:
            out["minus"] = dict(self.minus)
        if self.teams:
            out["teams"] = dict(self.teams)
        if self.starter is not None:
            out["starter"] = self.starter
        return out


def _fail(where: str, what: str) -> RecordError:
    return RecordError(f"{where}: {what}" if where else what)


def checked_header(data: dict, most: int, players_message: str) -> tuple[list[str], list]:
    """The 'players' and 'turns' of a record object, checked (RecordError otherwise)."""
    for key in ("players", "turns"):
        if key not in data:
            raise RecordError(f"missing field '{key}'")
    players = data["players"]
    if not isinstance(players, list) or not 1 <= len(players) <= most:
        raise RecordError(players_message)
    if not all(isinstance(p, str) and p.strip() for p in players):
        raise RecordError("'players' must hold non-empty strings")
    if len(set(players)) != len(players):
        raise RecordError("'players' names a player twice")
    turns = data["turns"]
    if not isinstance(turns, list):
        raise RecordError("'turns' must be a list")
    return list(players), turns


def checked_turn(t: object, where: str, players: list[str], placed_kind: str
                 ) -> tuple[str, dict]:
    """A turn object's player and placed mapping, checked (RecordError otherwise)."""
    if not isinstance(t, dict):
        raise _fail(where, "must be an object with 'player' and 'placed'")
    for key in ("player", "placed"):
        if key not in t:
            raise _fail(where, f"missing field '{key}'")
    player = t["player"]
    if not isinstance(player, str) or player not in players:
        raise _fail(where, f"unknown player {player!r} (players: {', '.join(players)})")
    placed = t["placed"]
    if not isinstance(placed, dict):
        raise _fail(where, f"'placed' must be an object of {placed_kind}")
    return player, placed


def _int_list(value: object, where: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise _fail(where, "must be a list of tile values")
    for v in value:
        if not is_tile_value(v):
            raise _fail(where, f"{v!r} is not a tile value (1 to 6)")
    return tuple(value)


def as_recorded_note(reason: object) -> str:
    """The one-line note on a stored match that breaks a rule checked only since."""
    return f"{reason} (stored before this rule was checked; shown as recorded)"


def parse_record(data: object, as_recorded: bool = False) -> GameRecord:
    """Validate a decoded JSON record. Raises RecordError with a one-line reason.

    ``as_recorded``: a match the store kept from an earlier version. Teams that are not
    two partners each, 4 or 6 players in all, are kept as recorded with a note
    (``GameRecord.notes``) instead of refused; anything else is checked as usual."""
    if not isinstance(data, dict):
        raise RecordError("a game record must be a JSON object with 'players' and 'turns'")
    variant = data.get("variant", "board")
    if variant != "board":
        if variant == "cards":
            raise RecordError("a card-game record: it is read by the card engine, not the board game's")
        raise RecordError(f"unknown 'variant' {variant!r} (\"board\" or \"cards\")")
    players, turns_data = checked_header(data, 6, "'players' must list 1 to 6 names")
    known = set(players)
    turns = []
    for n, t in enumerate(turns_data, start=1):
        where = f"turn {n}"
        player, placed = checked_turn(t, where, players, "cell: value")
        for cell, value in placed.items():
            if not is_grid_name(cell):
                raise _fail(where, f"{cell!r} is not a cell name (columns A-O, rows 1-15)")
            if not isinstance(value, int) or isinstance(value, bool):
                raise _fail(where, f"{value!r} on {cell} is not a tile value (1 to 6)")
            # a whole number outside 1..6 is a move the engine reports as bad-tile
        hand = None
        if "hand" in t and t["hand"] is not None:
            # a placed tile the hand lacks is the turn's violation tile-not-in-hand
            hand = _int_list(t["hand"], f"{where} 'hand'")
        override = t.get("override", False)
        if not isinstance(override, bool):
            raise _fail(where, "'override' must be true or false")
        turns.append(RecordTurn(player, dict(placed), hand, override))

    minus = _player_ints(data.get("minus"), "minus", known, minimum=0)
    teams = _player_ints(data.get("teams"), "teams", known, minimum=1)
    notes = []
    try:
        teams = checked_teams(players, teams, RecordError)
    except RecordError as exc:
        if not as_recorded:
            raise
        notes.append(as_recorded_note(exc))
    starter = data.get("starter")
    if starter is not None and (not isinstance(starter, str) or starter not in known):
        raise RecordError(f"unknown starting player {starter!r}")
    return GameRecord(list(players), turns, minus, teams, starter, notes)


def _player_ints(value: object, key: str, known: set[str], minimum: int) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RecordError(f"'{key}' must be an object of player: number")
    for player, n in value.items():
        if player not in known:
            raise RecordError(f"'{key}': unknown player {player!r}")
        if not isinstance(n, int) or isinstance(n, bool) or n < minimum:
            raise RecordError(f"'{key}': {player} must be a whole number, at least {minimum}")
    return dict(value)


@dataclass(frozen=True)
class ReplayedTurn:
    turn: RecordTurn
    result: TurnResult
    applied: bool
    #: what the turn added to its sheet's rows total: its points, doubled where its
    #: cross (or an earlier one) doubles a row, plus a row's bonus it completed
    gain: int = 0

    def to_json(self) -> dict:
        entry = {"player": self.turn.player, **self.result.to_json()}
        if self.turn.hand is not None:
            entry["hand"] = list(self.turn.hand)
        if self.turn.override:
            entry["override"] = True
        return entry


def hand_holds(hand: tuple[int, ...], placed: list[int]) -> bool:
    """Whether a declared hand holds every tile placed (else: ``tile-not-in-hand``)."""
    return not Counter(placed) - Counter(hand)


class Referee:
    """Whose turn it is and what each seat may hold, turn after turn.

    ``judge`` gives the verdict on a turn without changing anything; ``commit`` enters
    it. Turn order: play goes clockwise from the starter (the record's ``starter``, else
    the first turn's player). After a turn that is applied the next seat plays. After a
    refused one its tiles go back to the player's hand, and the same player plays again
    or, the turn given up, the next seat plays. What a seat may hold is
    :mod:`.holdings`'s, whether or not its turns were applied."""

    def __init__(self, players: list[str], teams: dict[str, int], starter: str | None):
        self.players = list(players)
        self.teams = dict(teams)
        self.starter = starter
        self.board = Board()
        self.sheets = {p: ScoreSheet() for p in players}
        self.holdings: dict[str, Holding] = dict.fromkeys(players, EMPTY)
        self.expected: str | None = starter
        self.retry: str | None = None  # refused last: may play again

    @property
    def next_player(self) -> str:
        """The seat to play next (a refused player may also play again)."""
        return self.retry or self.expected or self.players[0]

    def _in_turn(self, player: str) -> bool:
        return self.starter is None or player in (self.expected, self.retry)

    def _holding(self, player: str) -> Holding:
        held = self.holdings[player]
        if held.open and player != self.retry:  # its refused turn was given up
            held = replace(held, open=False)
        return held

    def allowance(self, player: str) -> Allowance:
        """What ``player`` may hold for a turn played now."""
        opens = self.board.count == 0  # the turn that opens the board holds three
        return allowance(self._holding(player), placeable_values(self.board), opens,
                         self.teams.get(player, 1))

    def judge(self, turn: RecordTurn) -> tuple[TurnResult, Allowance, bool]:
        """The verdict on ``turn`` played now, the seat's allowance, and whether it was
        the player's turn."""
        in_turn = self._in_turn(turn.player)
        first = self.board.count == 0
        allow = self.allowance(turn.player)
        values = list(turn.placed.values())
        draw = draw_violations(allow, turn.hand, values)
        # a declared hand the seat cannot hold is not believed: the turn is judged on its
        # tiles alone, so the one reason given is the hand's (wrong-draw), not a rule 4/5
        # verdict built on tiles the player never had
        hand = turn.hand if not draw else None
        if hand is None and in_turn and not draw:  # the hand where the rules make it certain
            hand = turn_hand(allow, None, [v for v in values if is_tile_value(v)])
        result = check_turn(self.board, turn.placed, hand=hand, first_turn=first)
        extra = [] if in_turn else [Violation(
            "out-of-turn", (), f"{turn.player} plays out of turn: it is "
                               f"{self.next_player}'s turn")]
        if extra or draw:
            result = TurnResult(placed=result.placed, legal=False,
                                violations=extra + result.violations + draw,
                                lines=result.lines)
        return result, allow, in_turn

    def commit(self, turn: RecordTurn, apply_all: bool = False) -> ReplayedTurn:
        """Judge ``turn`` and enter it: applied when legal, overridden or ``apply_all``."""
        result, allow, in_turn = self.judge(turn)
        board = self.board
        if self.starter is None:
            self.starter = turn.player
        if not result.legal and (turn.override or apply_all):
            result = _overridden(board, turn, result)
        applied = result.legal or turn.override or apply_all
        gain = 0
        if applied:
            for name, value in turn.placed.items():
                index = grid_index(name)
                if index in CELL_SET and not board.values[index]:
                    board.put(index, value)
            sheet = self.sheets[turn.player]
            before = sheet.rows_total
            sheet.enter(result.points, result.crosses)
            gain = sheet.rows_total - before
        if not (applied or in_turn):
            return ReplayedTurn(turn, result, applied)  # out of turn, refused: nothing drawn
        if self.retry is not None and self.retry != turn.player:
            self.holdings[self.retry] = self._holding(self.retry)
        placed = [v for v in turn.placed.values() if is_tile_value(v)]
        fits = not any(v.code == "wrong-draw" for v in result.violations)
        # a declared hand that lacks a tile placed is not believed: what the seat holds
        # then follows from the rules alone (its allowance)
        hand = turn.hand if turn.hand is None or hand_holds(turn.hand, placed) else None
        self.holdings[turn.player] = after_turn(allow, hand, placed, applied,
                                                fits and hand is turn.hand)
        k = self.players.index(turn.player)
        self.expected = self.players[(k + 1) % len(self.players)]
        self.retry = None if applied else turn.player
        return ReplayedTurn(turn, result, applied, gain)


@dataclass
class ReplayState:
    """Board, sheets and per-turn verdicts after replaying a record; ``referee`` judges
    the turn that would come next."""

    board: Board
    sheets: dict[str, ScoreSheet]
    turns: list[ReplayedTurn]
    referee: Referee | None = None

    def to_json(self) -> dict:
        return {
            "turns": [t.to_json() for t in self.turns],
            "sheets": {p: s.to_json() for p, s in self.sheets.items()},
            "board": self.board.to_dict(),
        }


def _overridden(board: Board, turn: RecordTurn, result: TurnResult) -> TurnResult:
    """An operator accepted an illegal turn: its tiles go down where they can (an
    existing, empty cell) and it scores what its lines make. The violations stay on
    record."""
    cells = [cell_index(n) for n in turn.placed if grid_index(n) in CELL_SET
             and not board.values[grid_index(n)]]
    values = list(board.values)
    for i in cells:
        values[i] = turn.placed[cell_name(i)]
    lines, points, crosses = score_lines(values, cells)
    return TurnResult(placed=result.placed, legal=False, violations=result.violations,
                      lines=lines, points=points, crosses=crosses)


def run_replay(record: GameRecord, apply_all: bool = False) -> ReplayState:
    """Replay a validated record turn by turn. Illegal turns are skipped unless the
    record marks them ``override`` (accepted by an operator), or ``apply_all`` is set
    (a live match, whose committed turns are on the table whatever a later correction
    reveals about them)."""
    referee = Referee(record.players, record.teams, record.starter)
    out = [referee.commit(turn, apply_all) for turn in record.turns]
    for player, pips in record.minus.items():
        referee.sheets[player].minus = pips
    return ReplayState(referee.board, referee.sheets, out, referee)


def replay(record: GameRecord) -> dict:
    """Replay a validated record; returns the ``zatre score`` output object."""
    return run_replay(record).to_json()


def score_record(data: object) -> dict:
    """Validate and replay a decoded board-game record (raises RecordError on bad
    input; ``variants.score_record`` takes either game)."""
    return replay(parse_record(data))


def broken_turn_notes(turns: list) -> list[str]:
    """One line per replayed turn that breaks a rule and that no operator overrode:
    in a stored match, a turn the table scored before that rule was checked."""
    return [f"turn {n} ({t.turn.player}): {'; '.join(v.message for v in t.result.violations)}"
            " (kept as the table scored it)"
            for n, t in enumerate(turns, start=1) if not t.result.legal and not t.turn.override]


def score_as_recorded(data: object) -> dict:
    """A stored match's record replayed as the table scored it: every turn in it was
    committed at the table and is applied, and a rule checked only since it was stored
    is noted instead of refused. The ``zatre score`` output plus ``notes`` (one line
    each). RecordError only for a record no version could store (malformed)."""
    rec = parse_record(data, as_recorded=True)
    state = run_replay(rec, apply_all=True)
    return {**state.to_json(), "notes": rec.notes + broken_turn_notes(state.turns)}

