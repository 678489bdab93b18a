"""Card-game records for ``zatre score`` (a record with ``"variant": "cards"``).

Input: the board game's record shape with card positions and two optional fields::

    {"variant": "cards", "players": ["Ann", "Ben"],
     "turns": [{"player": "Ann", "placed": {"0,0": 6, "1,0": 4}, "hand": [6, 4, 0, 2]},
               {"player": "Ben", "placed": {"2,0": 0}, "round": 1},
               {"player": "Ann", "placed": {}, "hand": [6, 6, 6]}]}

- ``placed`` maps positions ``"x,y"`` to card values; ``{}`` is a player who shows
  the hand and takes three new cards (or passes).
- ``hand`` (optional): the cards held for the turn, placed ones included.
- ``round`` (optional, 1 .. number of players): a round ends by itself when its 25
  cards are laid out; ``round`` starts the next one early (a blocked round: only when
  the round can be blocked, see ``unblocked_reason``) and is checked against the count
  otherwise (RecordError: a round before the one under way, a round skipped).
- ``starter`` (optional): who begins round 1 (default: the first turn's player); turn
  order is checked (``out-of-turn``, see :class:`CardReferee`).
- ``zero_rule`` (optional, "on" / "off"): the club's zero rule (``cards.py``).
- ``minus`` and ``teams`` have no meaning in the card game and are refused.

Output: as for the board game (``turns`` with legal / violations / lines / points /
crosses, ``sheets``, ``board``), plus per turn ``super_bonus`` and ``round``, per
sheet the ``super_bonus`` entries, ``"variant": "cards"``, ``rounds`` (each
round's layout; ``board`` is the last one) and ``zero_rule``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from ..rules.record import (
    RecordError,
    as_recorded_note,
    broken_turn_notes,
    checked_header,
    checked_turn,
)
from ..rules.turn import Violation
from .rules import (
    CARD_RULES,
    ZERO_RULE_SETTINGS,
    CardLayout,
    CardRules,
    CardSheet,
    CardTurnResult,
    check_card_turn,
    is_position_name,
    parse_position,
    placeable_card_values,
    score_card_lines,
)

VARIANT = "cards"


@dataclass(frozen=True)
class CardRecordTurn:
    player: str
    placed: dict[str, int]
    hand: tuple[int, ...] | None = None
    round: int | None = None
    override: bool = False

    def to_json(self) -> dict:
        out: dict = {"player": self.player, "placed": dict(self.placed)}
        if self.hand is not None:
            out["hand"] = list(self.hand)
        if self.round is not None:
            out["round"] = self.round
        if self.override:
            out["override"] = True
        return out


@dataclass
class CardRecord:
    players: list[str]
    turns: list[CardRecordTurn]
    starter: str | None = None
    zero_rule: str | None = None  # "on" / "off"; None: the club's data file decides
    #: a stored match from an earlier version: a ``round`` that does not fit the count is
    #: replayed as recorded with a note (``CardReferee.notes``) instead of refused
    as_recorded: bool = False

    @property
    def rounds(self) -> int:
        return len(self.players)

    def rules(self, base: CardRules = CARD_RULES) -> CardRules:
        """The card rules this record is scored by (the zero rule it names)."""
        return base if self.zero_rule is None else base.with_zero_rule(self.zero_rule)

    def to_json(self) -> dict:
        out: dict = {"variant": VARIANT, "players": list(self.players),
                     "turns": [t.to_json() for t in self.turns]}
        if self.starter is not None:
            out["starter"] = self.starter
        if self.zero_rule is not None:
            out["zero_rule"] = self.zero_rule
        return out


def _fail(where: str, what: str) -> RecordError:
    return RecordError(f"{where}: {what}")


def is_card_record(data: object) -> bool:
    return isinstance(data, dict) and data.get("variant") == VARIANT


def parse_card_record(data: object, rules: CardRules = CARD_RULES) -> CardRecord:
    """Validate a decoded card record. Raises RecordError with a one-line reason."""
    if not is_card_record(data):
        raise RecordError('a card-game record must be a JSON object with "variant": "cards"')
    players, turns_data = checked_header(
        data, 4, "'players' must list 1 to 4 names (the card game is for 2 to 4)")
    for key in ("minus", "teams"):
        if data.get(key):
            raise RecordError(f"'{key}' has no meaning in the card game")
    starter = data.get("starter")
    if starter is not None and (not isinstance(starter, str) or starter not in players):
        raise RecordError(f"unknown starting player {starter!r}")
    zero_rule = data.get("zero_rule")
    if zero_rule is not None and zero_rule not in ZERO_RULE_SETTINGS:
        raise RecordError(f"'zero_rule' is \"on\" or \"off\", not {zero_rule!r}")
    turns = []
    last_round = 1
    for n, t in enumerate(turns_data, start=1):
        where = f"turn {n}"
        player, placed = checked_turn(t, where, players, "position: card value")
        for pos, value in placed.items():
            if not is_position_name(pos):
                raise _fail(where, f"{pos!r} is not a card position (write x,y in whole "
                                   f"numbers, e.g. 0,0 or -1,2)")
            if not isinstance(value, int) or isinstance(value, bool):
                raise _fail(where, f"{value!r} on {pos} is not a card value ({rules.value_range()})")
            # a whole number outside the card set is a move reported as bad-tile
        hand = None
        if t.get("hand") is not None:
            if not isinstance(t["hand"], list) or not all(rules.is_card(v) for v in t["hand"]):
                raise _fail(where, f"'hand' must be a list of card values ({rules.value_range()})")
            hand = tuple(t["hand"])
            missing = Counter(v for v in placed.values() if rules.is_card(v)) - Counter(hand)
            if missing:
                raise _fail(where, f"placed cards {sorted(missing.elements())} are not in 'hand'")
        rnd = t.get("round")
        if rnd is not None:
            if not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= len(players):
                raise _fail(where, f"'round' must be a whole number from 1 to {len(players)} "
                                   f"(as many rounds as players)")
            if rnd < last_round:
                raise _fail(where, f"round {rnd} comes after round {last_round}")
            last_round = rnd
        override = t.get("override", False)
        if not isinstance(override, bool):
            raise _fail(where, "'override' must be true or false")
        turns.append(CardRecordTurn(player, dict(placed), hand, rnd, override))
    return CardRecord(list(players), turns, starter, zero_rule)


@dataclass(frozen=True)
class ReplayedCardTurn:
    turn: CardRecordTurn
    round: int
    result: CardTurnResult
    applied: bool

    def to_json(self) -> dict:
        entry = {"player": self.turn.player, **self.result.to_json(), "round": self.round}
        if self.turn.hand is not None:
            entry["hand"] = list(self.turn.hand)
        if self.turn.override:
            entry["override"] = True
        return entry


@dataclass
class CardReplayState:
    layouts: list[CardLayout]  # one per round begun; the last is the current one
    sheets: dict[str, CardSheet]
    turns: list[ReplayedCardTurn]
    rounds: int
    referee: CardReferee | None = None

    @property
    def layout(self) -> CardLayout:
        return self.layouts[-1]

    @property
    def round(self) -> int:
        return len(self.layouts)

    def to_json(self) -> dict:
        return {
            "variant": VARIANT,
            "turns": [t.to_json() for t in self.turns],
            "sheets": {p: s.to_json() for p, s in self.sheets.items()},
            "board": self.layout.to_dict(),
            "rounds": [layout.to_dict() for layout in self.layouts],
            "zero_rule": (self.referee.rules if self.referee else CARD_RULES).zero_rule_name,
        }


def _wrong_hand_size(hand: tuple[int, ...] | None, first: bool, rules: CardRules) -> list[Violation]:
    """What a player may hold in the card game: four on a round's first turn (the
    starter), else three (a hand, or the three new cards after showing it)."""
    if hand is None:
        return []
    most = rules.starter_hand if first else max(rules.hand, rules.redraw)
    if len(hand) > most:
        return [Violation("wrong-draw", (), f"{len(hand)} cards in hand, but a player holds at "
                          f"most {most}" + (" on a round's first turn" if first else ""))]
    return []


def unblocked_reason(layout: CardLayout, earlier: CardLayout | None, round_number: int,
                     rules: CardRules = CARD_RULES) -> str | None:
    """Why the round cannot be blocked yet (None: it may be). A round ends early only
    when no card left in it fits anywhere, so every card of the round not yet laid
    must be one that fits nowhere. A round's cards: 25 of a fresh shuffle of the deck
    (rounds 1 and 3), or the 25 set aside (rounds 2 and 4: the deck less the round
    before's, whose laid cards ``earlier`` holds)."""
    fits = placeable_card_values(layout, rules, not layout.cards)
    pool = Counter(rules.cards)
    if round_number % 2 == 0 and earlier is not None:
        pool.subtract(earlier.cards.values())
    pool.subtract(layout.cards.values())
    to_come = rules.cards_per_round - len(layout)
    dead = sum(max(0, n) for v, n in pool.items() if v not in fits)
    if dead >= to_come:
        return None
    return (f"cards {', '.join(map(str, sorted(fits)))} still fit, and at most {dead} cards "
            f"that fit nowhere are left for the {to_come} still to come")


class CardReferee:
    """Rounds, turn order and the verdict on each card turn, turn after turn.

    ``judge`` gives the verdict on a turn without changing anything (RecordError for a
    ``round`` that does not fit the count); ``commit`` enters it. Turn order: a round's
    first turn is its starter's (the record's ``starter``, else the first turn's
    player, moving one seat clockwise each round); after a turn with cards the next
    seat plays; after a turn with nothing placed (the hand shown, or a pass) the same
    player or the next; after a refused turn the same player plays again, or the next
    (the turn given up)."""

    def __init__(self, record: CardRecord, rules: CardRules):
        self.players = list(record.players)
        self.rounds = record.rounds
        self.rules = rules
        self.starter = record.starter
        self.layouts = [CardLayout()]
        self.sheets = {p: CardSheet(rules) for p in record.players}
        self.allowed: set[str] = set()  # who may play next (empty: the round's starter)
        self.as_recorded = record.as_recorded
        self.notes: list[str] = []  # as recorded: the round checks it breaks, one line each

    def _seat(self, player: str, offset: int) -> str:
        return self.players[(self.players.index(player) + offset) % len(self.players)]

    def round_of(self, turn: CardRecordTurn, n: int) -> int:
        """The round ``turn`` (number ``n``) is played in; RecordError when its ``round``
        does not fit the count."""
        return self.placed_round(turn, n)[0]

    def placed_round(self, turn: CardRecordTurn, n: int) -> tuple[int, str | None]:
        """``round_of`` with, for a record read as recorded, the round check it breaks
        (a note) instead of the RecordError, and the round the earlier versions gave."""
        rules = self.rules
        rnd = len(self.layouts)
        layout = self.layouts[-1]
        full = len(layout) >= rules.cards_per_round
        note = None

        def refuse(message: str) -> None:
            nonlocal note
            if not self.as_recorded:
                raise RecordError(message)
            note = as_recorded_note(message)

        marked = turn.round
        if marked is not None and marked < rnd:
            refuse(f"turn {n}: marked round {marked}, but round {rnd} has begun "
                   f"(each round ends after its {rules.cards_per_round} cards)")
            marked = None
        if (marked is not None and marked > rnd) or (marked is None and full):
            target = marked if marked is not None else rnd + 1
            if target > self.rounds:
                raise RecordError(f"turn {n}: the game is over after {self.rounds} round(s) "
                                  f"of {rules.cards_per_round} cards (as many rounds as players)")
            if target > rnd + 1:
                refuse(f"turn {n}: marked round {target}, but round {rnd + 1} was never played")
            elif not full:
                earlier = self.layouts[-2] if len(self.layouts) > 1 else None
                why = unblocked_reason(layout, earlier, rnd, rules)
                if why:
                    refuse(f"turn {n}: round {target} begins after {len(layout)} of round "
                           f"{rnd}'s {rules.cards_per_round} cards, but round {rnd} cannot "
                           f"be blocked yet: {why}")
            return target, note
        if full:
            raise RecordError(f"turn {n}: round {rnd} already has its "
                              f"{rules.cards_per_round} cards laid out")
        return rnd, note

    def expected(self, rnd: int) -> set[str]:
        """Who may play a turn of round ``rnd`` now (empty: anyone, before the first)."""
        if rnd > len(self.layouts) or not self.allowed:
            if self.starter is None:
                return set()
            return {self._seat(self.starter, rnd - 1)}
        return self.allowed

    def judge(self, turn: CardRecordTurn, n: int) -> tuple[CardTurnResult, int, bool]:
        """The verdict on ``turn``, its round, and whether it was the player's turn."""
        rnd = self.round_of(turn, n)
        layout = CardLayout() if rnd > len(self.layouts) else self.layouts[-1]
        first = len(layout) == 0
        result = check_card_turn(layout, turn.placed, hand=turn.hand, first_turn=first,
                                 rules=self.rules)
        expected = self.expected(rnd)
        in_turn = not expected or turn.player in expected
        order = [] if in_turn else [Violation(
            "out-of-turn", (), f"{turn.player} plays out of turn: it is "
                               f"{' or '.join(p for p in self.players if p in expected)}'s turn")]
        draw = _wrong_hand_size(turn.hand, first, self.rules)
        if order or draw:
            result = CardTurnResult(placed=result.placed, legal=False,
                                    violations=order + result.violations + draw,
                                    lines=result.lines)
        return result, rnd, in_turn

    def commit(self, turn: CardRecordTurn, n: int, apply_all: bool = False) -> ReplayedCardTurn:
        result, rnd, in_turn = self.judge(turn, n)
        note = self.placed_round(turn, n)[1]
        if note:
            self.notes.append(note)
        if rnd > len(self.layouts):
            self.allowed = set()
        while rnd > len(self.layouts):  # as recorded: a round skipped is an empty layout
            self.layouts.append(CardLayout())
        if self.starter is None:
            self.starter = turn.player
        layout = self.layouts[-1]
        if not result.legal and (turn.override or apply_all):
            result = _overridden(layout, turn, result, self.rules)
        applied = result.legal or turn.override or apply_all
        if applied:
            for name, value in turn.placed.items():
                p = parse_position(name)
                if p not in layout.cards:
                    layout.put(p, value)
            self.sheets[turn.player].enter(result.points, super_bonus=result.super_bonus)
        if applied and turn.placed:
            self.allowed = {self._seat(turn.player, 1)}
        elif applied or in_turn:
            self.allowed = {turn.player, self._seat(turn.player, 1)}
        return ReplayedCardTurn(turn, len(self.layouts), result, applied)


def _overridden(layout: CardLayout, turn: CardRecordTurn, result: CardTurnResult,
                rules: CardRules) -> CardTurnResult:
    """An operator accepted an illegal turn: its cards go on the free positions and it
    scores what its lines make. The violations stay on record."""
    cards = dict(layout.cards)
    new = []
    for name, v in turn.placed.items():
        p = parse_position(name)
        if p not in layout.cards:
            cards[p] = v
            new.append(p)
    lines, points, bonus = score_card_lines(cards, new, rules)
    return CardTurnResult(placed=result.placed, legal=False, violations=result.violations,
                          lines=lines, points=points, super_bonus=bonus)


def run_card_replay(record: CardRecord, apply_all: bool = False,
                    rules: CardRules | None = None) -> CardReplayState:
    """Replay a validated card record turn by turn (illegal turns are skipped unless
    overridden or ``apply_all``). RecordError when a ``round`` does not fit the count.
    ``rules`` default to the shipped ones with the record's zero rule."""
    referee = CardReferee(record, rules or record.rules())
    out = [referee.commit(turn, n, apply_all) for n, turn in enumerate(record.turns, start=1)]
    return CardReplayState(referee.layouts, referee.sheets, out, record.rounds, referee)


def score_card_record(data: object) -> dict:
    """Validate and replay a decoded card record (raises RecordError on bad input)."""
    return run_card_replay(parse_card_record(data)).to_json()


def score_card_as_recorded(data: object) -> dict:
    """A stored card match replayed as the table scored it (``record.score_as_recorded``)."""
    rec = replace(parse_card_record(data), as_recorded=True)
    state = run_card_replay(rec, apply_all=True)
    notes = (state.referee.notes if state.referee else []) + broken_turn_notes(state.turns)
    return {**state.to_json(), "notes": notes}


__all__ = [
    "VARIANT",
    "CardRecord",
    "CardRecordTurn",
    "CardReferee",
    "CardReplayState",
    "ReplayedCardTurn",
    "is_card_record",
    "parse_card_record",
    "run_card_replay",
    "score_card_as_recorded",
    "score_card_record",
    "unblocked_reason",
]
