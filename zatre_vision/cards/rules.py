"""The Zatre card game (BrettspielWelt "Zatre-Kartenspiel"): layout, turns, sheet, moves.

The rules are those of ``rules.md`` (Variants) and the BrettspielWelt help page, with
what they leave open decided here:

- **Cards and sheet.** The card mix and the printed bonus values are not public.
  They live in one data file, ``cards_data.json`` (its ``note`` states the
  assumption): 8 zeros and 7 each of 1 to 6, 25 cards a round; the board game's
  printed bonus (3, 4, 5, 6 by blocks of four rows). A club corrects that file.
- **Layout.** Cards have no board: a position is an unbounded integer pair ``(x, y)``,
  ``x`` to the right, ``y`` downwards, named ``"x,y"`` in records (``"0,0"``,
  ``"-1,2"``). Cards touch side by side (orthogonally), as tiles do.
- **Lines** are the board game's: maximal runs of two or more cards along a row or a
  column (``line_directions`` in the data file). A zero is a card: it continues a
  line, so a zero laid between two runs joins them into one line, which is legal only
  while the joined total stays at 12 or less. A zero laid at the end of a line of 10,
  11 or 12 scores that line again (the line holds a card of this turn and sums to
  10..12, exactly the board game's "extending a line" rule). The seed is silent on
  this: it is the club setting ``zero_rule`` ("on", the default; "off": a line that
  only zeros of this turn lengthen, its sum unchanged, does not score again).
- **Points.** 10, 11 and 12 score 1, 3 and 5; all points of one sum in a turn go into
  one box (shared sheet code: :class:`CardSheet` is the board game's
  :class:`~zatre_vision.rules.sheet.ScoreSheet` with its own bonus table, no x2).
- **Super bonus.** "If a player scores a row of 10, a row of 11 and a row of 12 by
  placing a card ... [or] three rows of 12": judged per turn over the scoring lines
  the turn's cards lie in (a turn places one card, two on a round's first turn).
  Each such turn earns one super bonus of 6, written from the bottom of the total
  column (:attr:`CardSheet.super_bonuses`). With rows and columns only, one card lies
  in at most two lines, and a round's first turn (two cards on an empty table) makes
  one line, so *with the default geometry the super bonus cannot happen*; the rule
  is implemented and tested with diagonals added (``line_directions``), which is
  what a club would change if its cards score diagonally.
- **Turns.** A round's first turn places two cards touching each other anywhere;
  every later turn one card touching the layout. A player who cannot play records a
  turn with nothing placed (shows the hand); with the hand known that is
  ``tile-not-placed`` when a card of it fits. No minus points.

Violation codes reuse the board game's where they fit: ``not-connected``,
``cell-occupied``, ``line-over-12``, ``bad-tile`` (a value outside the card set),
``too-many-tiles`` (more cards of a value than the deck holds), ``tile-not-placed``
(and, from the record's referee, ``out-of-turn`` and ``wrong-draw``);
one is new: ``wrong-card-count`` (not two cards on a round's first turn, or more
than one later).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

from ..rules.sheet import SUMS, ScoreSheet
from ..rules.turn import Line, TurnResult, Violation, points_by_sum

Pos = tuple[int, int]

#: The most a line may sum to (rules.md, both games).
MAX_LINE = 12
#: Side-by-side neighbours: cards connect only through these.
ADJACENT: tuple[Pos, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
DATA_FILE = "cards_data.json"


class PositionError(ValueError):
    """A string that is not a card position ``"x,y"``: an input error, not a move."""


_POS_RE = re.compile(r"^(0|-?[1-9][0-9]*),(0|-?[1-9][0-9]*)$")


def parse_position(name: object) -> Pos:
    """``"x,y"`` -> ``(x, y)``. Raises PositionError with a one-line reason."""
    m = _POS_RE.match(name) if isinstance(name, str) else None
    if not m:
        raise PositionError(f"{name!r} is not a card position (write x,y in whole numbers, "
                            f"e.g. 0,0 or -1,2)")
    return int(m.group(1)), int(m.group(2))


def position_name(pos: Pos) -> str:
    return f"{pos[0]},{pos[1]}"


def is_position_name(name: object) -> bool:
    return isinstance(name, str) and bool(_POS_RE.match(name))


def _reading_order(pos: Pos) -> tuple[int, int]:
    return pos[1], pos[0]


# -- the data file -------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CardRules:
    """The numbers of the card game, from ``cards_data.json`` (see its ``note``)."""

    cards: Mapping[int, int]  # value -> how many cards the deck holds
    cards_per_round: int = 25
    hand: int = 3
    starter_hand: int = 4
    first_turn_cards: int = 2
    redraw: int = 3
    line_points: Mapping[int, int] = field(default_factory=lambda: {10: 1, 11: 3, 12: 5})
    super_bonus: int = 6
    printed_bonus: tuple[int, ...] = (3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6)
    line_directions: tuple[Pos, ...] = ((1, 0), (0, 1))
    note: str = ""
    #: The zero rule (a club setting): True ("on") when a zero laid at the end of a
    #: finished line of 10 to 12 scores that line again; False ("off") when it does not.
    zero_rule: bool = True

    @property
    def zero_rule_name(self) -> str:
        return "on" if self.zero_rule else "off"

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(sorted(self.cards))

    @property
    def deck_size(self) -> int:
        return sum(self.cards.values())

    def is_card(self, value: object) -> bool:
        return (isinstance(value, int) and not isinstance(value, bool)
                and value in self.cards)

    def value_range(self) -> str:
        vs = self.values
        return f"{vs[0]} to {vs[-1]}"

    def deck(self) -> list[int]:
        return [v for v in self.values for _ in range(self.cards[v])]

    def bonus(self, row: int) -> int:
        return self.printed_bonus[row - 1] if 1 <= row <= len(self.printed_bonus) else 0

    def with_directions(self, directions: Iterable[Pos]) -> CardRules:
        """The same rules with other line directions (a club's correction, tests)."""
        return replace(self, line_directions=tuple(tuple(d) for d in directions))

    def with_zero_rule(self, setting: str) -> CardRules:
        """The same rules with the zero rule "on" or "off" (ValueError otherwise)."""
        if setting not in ZERO_RULE_SETTINGS:
            raise ValueError(f"the zero rule is \"on\" or \"off\", not {setting!r}")
        return replace(self, zero_rule=setting == "on")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CardRules:
        """Build from the decoded data file; ValueError with a one-line reason."""
        try:
            cards = {int(k): int(n) for k, n in data["cards"].items()}
            points = {int(k): int(n) for k, n in data["line_points"].items()}
            dirs = tuple((int(d[0]), int(d[1])) for d in data["line_directions"])
            rules = cls(
                cards=cards,
                cards_per_round=int(data["cards_per_round"]),
                hand=int(data["hand"]),
                starter_hand=int(data["starter_hand"]),
                first_turn_cards=int(data["first_turn_cards"]),
                redraw=int(data["redraw"]),
                line_points=points,
                super_bonus=int(data["super_bonus"]),
                printed_bonus=tuple(int(b) for b in data["printed_bonus"]),
                line_directions=dirs,
                note=str(data.get("note", "")),
                zero_rule=_zero_rule(data.get("zero_rule", "on")),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"card data: missing or malformed field ({exc})") from None
        if any(v < 0 or n < 0 for v, n in cards.items()) or not cards:
            raise ValueError("card data: 'cards' must map values 0 or more to counts")
        if not set(points) <= set(SUMS):
            raise ValueError("card data: 'line_points' may only name the sums 10, 11, 12")
        if rules.cards_per_round * 2 > rules.deck_size:
            raise ValueError("card data: a round needs at most half the deck")
        if any(d == (0, 0) for d in dirs) or not dirs:
            raise ValueError("card data: 'line_directions' must be non-zero steps")
        return rules


#: The two settings of the zero rule.
ZERO_RULE_SETTINGS = ("on", "off")


def _zero_rule(setting: object) -> bool:
    if setting not in ZERO_RULE_SETTINGS:
        raise ValueError(f"card data: 'zero_rule' is \"on\" or \"off\", not {setting!r}")
    return setting == "on"


def load_card_rules(text: str | None = None) -> CardRules:
    """The card rules from ``text`` (JSON) or from the packaged data file."""
    if text is None:
        text = resources.files(__package__).joinpath(DATA_FILE).read_text(encoding="utf-8")
    return CardRules.from_json(json.loads(text))


#: The rules as shipped (read once; a frozen value).
CARD_RULES: CardRules = load_card_rules()


# -- the layout ------------------------------------------------------------------------------


class CardLayout:
    """Cards on the table in one round: position -> value (0 is a card, not a gap)."""

    __slots__ = ("cards",)

    def __init__(self, cards: Mapping[str, int] | Mapping[Pos, int] | None = None):
        self.cards: dict[Pos, int] = {}
        for key, value in (cards or {}).items():
            pos = parse_position(key) if isinstance(key, str) else (int(key[0]), int(key[1]))
            self.cards[pos] = value

    def put(self, pos: Pos, value: int) -> None:
        self.cards[pos] = value

    def copy(self) -> CardLayout:
        out = CardLayout()
        out.cards = dict(self.cards)
        return out

    def __len__(self) -> int:
        return len(self.cards)

    def __contains__(self, pos: object) -> bool:
        return pos in self.cards

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardLayout) and self.cards == other.cards

    def __repr__(self) -> str:
        return f"CardLayout({self.to_dict()!r})"

    def get(self, name: str) -> int | None:
        return self.cards.get(parse_position(name))

    def to_dict(self) -> dict[str, int]:
        """``{"x,y": value}`` in reading order (rows top to bottom)."""
        return {position_name(p): self.cards[p] for p in sorted(self.cards, key=_reading_order)}

    def frontier(self) -> set[Pos]:
        """Empty positions touching a card side by side."""
        out: set[Pos] = set()
        for x, y in self.cards:
            for dx, dy in ADJACENT:
                p = (x + dx, y + dy)
                if p not in self.cards:
                    out.add(p)
        return out

    def render(self) -> str:
        """A text picture: digits for cards, '.' for empty positions inside the box."""
        if not self.cards:
            return "(no cards)"
        xs = [p[0] for p in self.cards]
        ys = [p[1] for p in self.cards]
        rows = []
        for y in range(min(ys), max(ys) + 1):
            rows.append(" ".join(str(self.cards[(x, y)]) if (x, y) in self.cards else "."
                                 for x in range(min(xs), max(xs) + 1)))
        return "\n".join(rows)


def run_through(cards: Mapping[Pos, int], pos: Pos, step: Pos) -> tuple[tuple[Pos, ...], int]:
    """The run of cards through ``pos`` (which holds a card) along ``step``: its
    positions from the first and its sum. Zeros are cards: they continue the run."""
    dx, dy = step
    x, y = pos
    while (x - dx, y - dy) in cards:
        x, y = x - dx, y - dy
    cells: list[Pos] = []
    s = 0
    while (x, y) in cards:
        cells.append((x, y))
        s += cards[(x, y)]
        x, y = x + dx, y + dy
    return tuple(cells), s


def card_lines_through(cards: Mapping[Pos, int], positions: Iterable[Pos],
                       directions: Sequence[Pos]) -> list[tuple[tuple[Pos, ...], int]]:
    """Every line (run of two or more cards) through any of ``positions``, once each,
    ordered by the line's first card in reading order, then by direction."""
    seen: set[tuple[Pos, int]] = set()
    out: list[tuple[tuple[int, int, int], tuple[Pos, ...], int]] = []
    for p in positions:
        if p not in cards:
            continue
        for k, step in enumerate(directions):
            cells, s = run_through(cards, p, step)
            if len(cells) >= 2 and (cells[0], k) not in seen:
                seen.add((cells[0], k))
                out.append(((*_reading_order(cells[0]), k), cells, s))
    out.sort(key=lambda t: t[0])
    return [(cells, s) for _, cells, s in out]


def side_sums(cards: Mapping[Pos, int], pos: Pos, directions: Sequence[Pos]) -> list[int | None]:
    """For an empty ``pos``: per direction, the sum of the cards that a card laid there
    would join (None where it would touch none in that direction)."""
    out: list[int | None] = []
    for dx, dy in directions:
        s, n = 0, 0
        for sign in (1, -1):
            x, y = pos[0] + sign * dx, pos[1] + sign * dy
            while (x, y) in cards:
                s += cards[(x, y)]
                n += 1
                x, y = x + sign * dx, y + sign * dy
        out.append(s if n else None)
    return out


def max_value_at(cards: Mapping[Pos, int], pos: Pos, directions: Sequence[Pos]) -> int:
    """The largest card value an empty ``pos`` takes by the 12 limit (-1: none, not
    even a zero, e.g. between two runs summing to 13)."""
    worst = max((s for s in side_sums(cards, pos, directions) if s is not None), default=0)
    return MAX_LINE - worst if worst <= MAX_LINE else -1


def placeable_card_values(layout: CardLayout, rules: CardRules = CARD_RULES,
                          first_turn: bool | None = None) -> set[int]:
    """Card values that could be laid now (on a round's first turn: any card)."""
    if first_turn if first_turn is not None else not layout.cards:
        return set(rules.values)
    best = max((max_value_at(layout.cards, p, rules.line_directions)
                for p in layout.frontier()), default=-1)
    return {v for v in rules.values if v <= best}


def super_bonuses(line_sums: Iterable[int]) -> int:
    """Super bonuses a turn earns from the sums of its lines: one when they include
    a 10, an 11 and a 12, or three 12s (never more than one a turn)."""
    sums = [s for s in line_sums if s in SUMS]
    if {10, 11, 12} <= set(sums) or sums.count(12) >= 3:
        return 1
    return 0


# -- one turn --------------------------------------------------------------------------------


@dataclass
class CardTurnResult(TurnResult):
    """A card turn's verdict: the board game's fields (``crosses`` always 0) plus
    ``super_bonus``, the super-bonus points the turn earns (0 or 6)."""

    super_bonus: int = 0

    def to_json(self) -> dict:
        out = super().to_json()
        out["super_bonus"] = self.super_bonus
        return out


def _names(positions: Iterable[Pos]) -> tuple[str, ...]:
    return tuple(position_name(p) for p in sorted(positions, key=_reading_order))


def score_card_lines(cards: Mapping[Pos, int], new: Sequence[Pos], rules: CardRules = CARD_RULES
                     ) -> tuple[list[Line], dict[int, int], int]:
    """Lines through the new cards (``cards`` holds them), points by sum, super bonus."""
    found = card_lines_through(cards, new, rules.line_directions)
    lines = [Line(tuple(position_name(p) for p in cells), s) for cells, s in found]
    scoring = [s for cells, s in found
               if rules.zero_rule or not _lengthened_by_zeros(cells, set(new), cards)]
    points = points_by_sum(scoring, rules.line_points)
    bonus = super_bonuses(scoring) * rules.super_bonus
    return lines, points, bonus


def _lengthened_by_zeros(cells: Sequence[Pos], new: set[Pos], cards: Mapping[Pos, int]) -> bool:
    """The line was already a line of the same sum before the turn: this turn's cards
    in it are zeros at its ends (a zero between two runs makes a new line)."""
    old = [k for k, p in enumerate(cells) if p not in new]
    return (len(old) >= 2 and old[-1] - old[0] + 1 == len(old)
            and all(cards[p] == 0 for p in cells if p in new))


def check_card_turn(layout: CardLayout, placed: Mapping[str, int],
                    hand: Sequence[int] | None = None, first_turn: bool | None = None,
                    rules: CardRules = CARD_RULES) -> CardTurnResult:
    """Judge one card turn. ``layout`` is the round's layout before the turn (it is not
    changed); ``placed`` maps ``"x,y"`` names to card values; ``first_turn`` (the
    round's first: two cards) defaults to "no card laid yet".

    ``placed`` empty is a player showing the hand (cannot play). With ``hand`` known
    (the cards held, placed ones included) that is ``tile-not-placed`` when a card of
    the hand fits somewhere. Malformed names raise PositionError (input errors).
    """
    if first_turn is None:
        first_turn = not layout.cards
    violations: list[Violation] = []
    new: dict[Pos, int] = {}
    for name, value in placed.items():
        pos = parse_position(name)
        if not rules.is_card(value):
            violations.append(Violation(
                "bad-tile", (name,), f"{value!r} on {name} is not a card value ({rules.value_range()})"))
        elif pos in layout.cards:
            violations.append(Violation(
                "cell-occupied", (name,), f"{name} already holds a {layout.cards[pos]}"))
        else:
            new[pos] = value

    allowed = rules.first_turn_cards if first_turn else 1
    if placed and len(placed) != allowed and (first_turn or len(placed) > allowed):
        violations.append(Violation(
            "wrong-card-count", _names(new),
            f"{len(placed)} cards laid, but "
            + (f"a round's first turn lays {allowed}" if first_turn else "a turn lays one card")))

    held = _held_back(hand, list(new.values()), rules)
    in_play = Counter(layout.cards.values()) + Counter(new.values()) + Counter(held)
    for value, n in sorted(in_play.items()):
        if value in rules.cards and n > rules.cards[value]:
            violations.append(Violation(
                "too-many-tiles", _names(p for p, v in new.items() if v == value),
                f"{n} cards of {value} in play, but the deck has only {rules.cards[value]}"))

    cards = dict(layout.cards)
    cards.update(new)
    loose = _unconnected(cards, layout, new, first_turn)
    if loose:
        violations.append(Violation(
            "not-connected", _names(loose),
            f"{', '.join(_names(loose))} not connected to the cards on the table"
            if layout.cards and not first_turn else
            f"{', '.join(_names(loose))} not touching the other card of the first turn"))

    lines, points, bonus = score_card_lines(cards, list(new), rules)
    for line in lines:
        if line.sum > MAX_LINE:
            violations.append(Violation(
                "line-over-12", line.cells,
                f"line {line.cells[0]} to {line.cells[-1]} sums to {line.sum}, more than 12"))

    if not violations and not placed and hand is not None:
        fitting = placeable_card_values(layout, rules, first_turn) & set(held)
        if fitting:
            violations.append(Violation(
                "tile-not-placed", (),
                f"no card laid, but {', '.join(map(str, sorted(fitting)))} from the hand "
                f"{list(hand)} fits"))

    legal = not violations
    result = CardTurnResult(placed=dict(placed), legal=legal, violations=violations, lines=lines)
    if legal:
        result.points = points
        result.super_bonus = bonus
    return result


def _held_back(hand: Sequence[int] | None, placed_values: list[int], rules: CardRules) -> list[int]:
    if hand is None:
        return []
    rest = Counter(v for v in hand if rules.is_card(v))
    rest.subtract(placed_values)
    return sorted(rest.elements())


def _unconnected(cards: Mapping[Pos, int], layout: CardLayout, new: Mapping[Pos, int],
                 first_turn: bool) -> set[Pos]:
    """New cards no side-by-side path joins to the layout (first turn: to each other)."""
    if not new:
        return set()
    fresh = first_turn or not layout.cards
    roots = [min(new, key=_reading_order)] if fresh else list(layout.cards)
    reached = set(roots)
    stack = list(roots)
    while stack:
        x, y = stack.pop()
        for dx, dy in ADJACENT:
            p = (x + dx, y + dy)
            if p in cards and p not in reached:
                reached.add(p)
                stack.append(p)
    return {p for p in new if p not in reached}


# -- legal moves ----------------------------------------------------------------------------------


def iter_card_moves(layout: CardLayout, hand: Sequence[int], first_turn: bool | None = None,
                    rules: CardRules = CARD_RULES) -> Iterator[dict[Pos, int]]:
    """Every legal way to lay cards of ``hand`` this turn (as position -> value).

    Later turns: one card on a frontier position where it leaves no line over 12.
    A round's first turn: two cards side by side; the table is unbounded and empty,
    so positions are fixed up to translation and mirror: the first card on (0, 0),
    the second to its right or below it, both orders of the values.
    """
    first = not layout.cards if first_turn is None else first_turn
    values = sorted({v for v in hand if rules.is_card(v)})
    if first:
        counts = Counter(v for v in hand if rules.is_card(v))
        for a in values:
            for b in values:
                if b == a and counts[a] < 2:
                    continue
                for second in ((1, 0), (0, 1)):
                    move = {(0, 0): a, second: b}
                    if _fits_all(move, rules):
                        yield move
        return
    for pos in sorted(layout.frontier(), key=_reading_order):
        top = max_value_at(layout.cards, pos, rules.line_directions)
        for v in values:
            if v <= top:
                yield {pos: v}


def _fits_all(cards: Mapping[Pos, int], rules: CardRules) -> bool:
    return all(s <= MAX_LINE for _, s in card_lines_through(cards, cards, rules.line_directions))


def legal_card_moves(layout: CardLayout, hand: Sequence[int], first_turn: bool | None = None,
                     rules: CardRules = CARD_RULES) -> list[dict[str, int]]:
    """Every legal move as ``{"x,y": value}``; an empty list means the player cannot
    play and must show the hand."""
    return [{position_name(p): v for p, v in m.items()}
            for m in iter_card_moves(layout, hand, first_turn, rules)]


# -- the sheet ---------------------------------------------------------------------------------------


class CardSheet(ScoreSheet):
    """The board game's sheet with the card game's bonus table and no x2 column, plus
    the super bonuses entered from the bottom of the total column.

    ``super_bonuses`` lists each super bonus (6 each); the first is written in the
    last printed row's total box, the next one row above, and so on. They count in
    the grand total. There are no minus points in the card game.
    """

    def __init__(self, rules: CardRules = CARD_RULES, columns: dict[int, list[int]] | None = None,
                 super_bonuses: Iterable[int] = ()):
        super().__init__(0, columns if columns is not None else {s: [] for s in SUMS}, 0)
        self.rules = rules
        self.super_bonuses: list[int] = list(super_bonuses)

    def enter(self, points: Mapping[int, int], crosses: int = 0, super_bonus: int = 0) -> None:
        """Write one turn: each sum's points into one box; a super bonus from the bottom."""
        if crosses:
            raise ValueError("the card game has no x2 crosses")
        if super_bonus < 0:
            raise ValueError("a super bonus cannot be negative")
        super().enter(points, 0)
        if super_bonus:
            self.super_bonuses.append(super_bonus)

    def bonus_for(self, number: int) -> int:
        return self.rules.bonus(number)

    def copy(self) -> CardSheet:
        return CardSheet(self.rules, {s: list(c) for s, c in self.columns.items()},
                         self.super_bonuses)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, CardSheet) and self.columns == other.columns
                and self.super_bonuses == other.super_bonuses)

    def super_bonus_rows(self) -> list[int]:
        """The printed rows whose total box holds each super bonus, from the bottom up."""
        last = max(len(self.rules.printed_bonus), 1)
        return [max(last - k, 1) for k in range(len(self.super_bonuses))]

    @property
    def total(self) -> int:
        """Grand total: the rows' totals plus the super bonuses."""
        return self.rows_total + sum(self.super_bonuses) - self.minus

    def to_json(self) -> dict:
        return {
            "rows": [r.to_json() for r in self.rows()],
            "super_bonus": [{"row": r, "points": p}
                            for r, p in zip(self.super_bonus_rows(), self.super_bonuses, strict=True)],
            "minus": self.minus,
            "total": self.total,
        }


__all__ = [
    "ADJACENT",
    "CARD_RULES",
    "CardLayout",
    "CardRules",
    "CardSheet",
    "CardTurnResult",
    "MAX_LINE",
    "ZERO_RULE_SETTINGS",
    "Pos",
    "PositionError",
    "card_lines_through",
    "check_card_turn",
    "is_position_name",
    "iter_card_moves",
    "legal_card_moves",
    "load_card_rules",
    "max_value_at",
    "parse_position",
    "placeable_card_values",
    "position_name",
    "run_through",
    "score_card_lines",
    "side_sums",
    "super_bonuses",
]
