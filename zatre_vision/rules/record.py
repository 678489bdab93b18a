"""Game records (the ``zatre score`` format): validation and replay through the engine.

Input and output formats are in ``shared/spec/contracts.md``. Validation raises
RecordError with a one-line reason for anything that is not a well-formed record:
malformed structure, an unknown player, a name outside the 15 x 15 grid (``Z99``),
a tile value other than 1..6, a missing field. A well-formed record whose moves
break the rules is not an error: those turns are reported illegal and skipped.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .board import Board, cell_index, is_grid_name
from .moves import placeable_values
from .sheet import ScoreSheet
from .tiles import is_tile_value
from .turn import TurnResult, Violation, check_turn

#: Tiles in the starting player's first hand: the start-draw tile and two more.
FIRST_HAND = 3


class RecordError(ValueError):
    """A record that cannot be replayed; the message is one line for the user."""


@dataclass(frozen=True)
class RecordTurn:
    player: str
    placed: dict[str, int]
    hand: tuple[int, ...] | None = None


@dataclass
class GameRecord:
    players: list[str]
    turns: list[RecordTurn]
    minus: dict[str, int] = field(default_factory=dict)
    teams: dict[str, int] = field(default_factory=dict)


def _fail(where: str, what: str) -> RecordError:
    return RecordError(f"{where}: {what}" if where else what)


def _int_list(value: object, where: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise _fail(where, "must be a list of tile values")
    for v in value:
        if not is_tile_value(v):
            raise _fail(where, f"{v!r} is not a tile value (1 to 6)")
    return tuple(value)


def parse_record(data: object) -> GameRecord:
    """Validate a decoded JSON record. Raises RecordError with a one-line reason."""
    if not isinstance(data, dict):
        raise RecordError("a game record must be a JSON object with 'players' and 'turns'")
    for key in ("players", "turns"):
        if key not in data:
            raise RecordError(f"missing field '{key}'")
    players = data["players"]
    if not isinstance(players, list) or not players:
        raise RecordError("'players' must be a non-empty list of names")
    if not all(isinstance(p, str) and p.strip() for p in players):
        raise RecordError("'players' must hold non-empty strings")
    if len(set(players)) != len(players):
        raise RecordError("'players' names a player twice")
    known = set(players)

    turns_data = data["turns"]
    if not isinstance(turns_data, list):
        raise RecordError("'turns' must be a list")
    turns = []
    for n, t in enumerate(turns_data, start=1):
        where = f"turn {n}"
        if not isinstance(t, dict):
            raise _fail(where, "must be an object with 'player' and 'placed'")
        for key in ("player", "placed"):
            if key not in t:
                raise _fail(where, f"missing field '{key}'")
        player = t["player"]
        if not isinstance(player, str) or player not in known:
            raise _fail(where, f"unknown player {player!r} (players: {', '.join(players)})")
        placed = t["placed"]
        if not isinstance(placed, dict):
            raise _fail(where, "'placed' must be an object of cell: value")
        for cell, value in placed.items():
            if not is_grid_name(cell):
                raise _fail(where, f"{cell!r} is not a cell name (columns A-O, rows 1-15)")
            if not is_tile_value(value):
                raise _fail(where, f"{value!r} on {cell} is not a tile value (1 to 6)")
        hand = None
        if "hand" in t and t["hand"] is not None:
            hand = _int_list(t["hand"], f"{where} 'hand'")
            missing = Counter(placed.values()) - Counter(hand)
            if missing:
                raise _fail(where, f"placed tiles {sorted(missing.elements())} are not in 'hand'")
        turns.append(RecordTurn(player, dict(placed), hand))

    minus = _player_ints(data.get("minus"), "minus", known, minimum=0)
    teams = _player_ints(data.get("teams"), "teams", known, minimum=1)
    return GameRecord(list(players), turns, minus, teams)


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


def _draw_check(board: Board, first: bool, hand: tuple[int, ...], leftover: list[int] | None,
                draw_size: int) -> list[Violation]:
    """Rule 6, where the previous hand is known: the hand must hold what was kept back
    and no more new tiles than the carry-over rule allows."""
    if first:
        allowed, kept = FIRST_HAND, []
    elif leftover is None:
        return []
    else:
        kept = leftover
        if Counter(kept) - Counter(hand):
            return [Violation("wrong-draw", (), f"the hand {list(hand)} lacks the tiles kept back "
                              f"last turn {sorted(kept)}")]
        if not kept:
            allowed = draw_size
        elif len(kept) >= 2 and placeable_values(board) & set(kept):
            allowed = 0
        else:
            allowed = 1
    drawn = len(hand) - len(kept)
    if drawn > allowed:
        return [Violation("wrong-draw", (), f"{drawn} tile(s) drawn, but the carry-over rule "
                          f"allows {allowed} with {len(kept)} kept back")]
    return []


def replay(record: GameRecord) -> dict:
    """Replay a validated record; returns the ``zatre score`` output object."""
    board = Board()
    sheets = {p: ScoreSheet() for p in record.players}
    leftovers: dict[str, list[int] | None] = {p: None for p in record.players}
    seen: set[str] = set()
    out_turns = []
    for turn in record.turns:
        first = board.count == 0
        result: TurnResult = check_turn(board, turn.placed, hand=turn.hand, first_turn=first)
        if turn.hand is not None and result.legal:
            leftover = leftovers[turn.player] if turn.player in seen else []
            extra = _draw_check(board, first, turn.hand, leftover,
                                2 * record.teams.get(turn.player, 1))
            if extra:
                result = TurnResult(placed=result.placed, legal=False, violations=extra,
                                    lines=result.lines)
        seen.add(turn.player)
        if result.legal:
            for name, value in turn.placed.items():
                board.put(cell_index(name), value)
            sheets[turn.player].enter(result.points, result.crosses)
            if turn.hand is not None:
                rest = Counter(turn.hand)
                rest.subtract(turn.placed.values())
                leftovers[turn.player] = sorted(rest.elements())
            else:
                leftovers[turn.player] = None
        else:
            leftovers[turn.player] = None
        entry = {"player": turn.player, **result.to_json()}
        if turn.hand is not None:
            entry["hand"] = list(turn.hand)
        out_turns.append(entry)
    for player, pips in record.minus.items():
        sheets[player].minus = pips
    return {
        "turns": out_turns,
        "sheets": {p: s.to_json() for p, s in sheets.items()},
        "board": board.to_dict(),
    }


def score_record(data: object) -> dict:
    """Validate and replay a decoded record (raises RecordError on bad input)."""
    return replay(parse_record(data))

