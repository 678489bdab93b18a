"""What a seat may hold at each turn: drawn, placed, kept back, returned.

The one place that decides it, for records (``zatre score``), live matches (the
tracker and the camera) and the dashboard's manual entry. From ``rules.md``:

- The starting seat's first hand (the turn that opens the board) is three tiles (the start draw and two more); any
  other seat's first draw is two tiles per member (a team draws two per partner).
- Carry-over (rule 6): with an empty hand a seat draws two per member; holding two or
  more tiles of which one can be placed, nothing; holding one tile, or tiles none of
  which can be placed, one.
- Tiles not placed stay in the hand ("kept back"). An illegal turn that is refused
  puts its tiles back into the hand ("returned"): the seat plays again with the same
  tiles and draws nothing more for that turn.

Where the record declares no hand, what is known is checked: a turn that places more
tiles than the seat can possibly hold is flagged all the same (a tile borrowed from the
next player), and so is one that, the tiles kept back known exactly, places more new
values than the seat may draw. Where the hand follows for certain (``turn_hand``) the
``Referee`` judges the turn with it, so a tile held back that could have been placed is
flagged too. Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .tiles import FIRST_HAND, VALUES, is_tile_value
from .turn import Violation

#: Tiles a seat draws with an empty hand, per member (rules.md, rule 6).
DRAW_PER_MEMBER = 2


def draw_size(members: int = 1) -> int:
    """Tiles a seat draws with an empty hand: two per member."""
    return DRAW_PER_MEMBER * members


@dataclass(frozen=True)
class Holding:
    """What one seat holds between turns, as far as the turns so far tell.

    ``tiles``: the exact tiles held, when known (None: only ``most`` is known).
    ``most``: the most tiles the seat can hold now. ``started``: the seat has drawn
    its first hand. ``open``: the seat's turn was refused, its tiles went back to the
    hand, and it plays again without drawing."""

    tiles: tuple[int, ...] | None = ()
    most: int = 0
    started: bool = False
    open: bool = False


#: A seat before its first turn: nothing in hand.
EMPTY = Holding()


@dataclass(frozen=True)
class Allowance:
    """What a seat may hold for the turn it is about to play.

    ``kept``: the tiles it brings from before, when known exactly. ``kept_most``: how
    many it may bring. ``most``: the most tiles its hand can hold for the turn, the
    draw included. ``why``: a plain account of that number."""

    kept: tuple[int, ...] | None
    kept_most: int
    most: int
    why: str


def allowance(holding: Holding, placeable: set[int], opens: bool, members: int = 1
              ) -> Allowance:
    """What the seat may hold for its next turn. ``placeable``: the values that can be
    placed on the board as it is now (``moves.placeable_values``); ``opens``: the turn
    is played on the empty board (that first hand is three tiles)."""
    full = draw_size(members)
    if holding.open:
        kept_most = holding.most if holding.tiles is None else len(holding.tiles)
        return Allowance(holding.tiles, kept_most, kept_most,
                         f"its refused turn's {kept_most} tile(s) went back to the hand, "
                         "and it draws nothing more for the same turn")
    if not holding.started:
        first = FIRST_HAND if opens else full
        return Allowance((), 0, first, f"a first hand is {first} tiles"
                         + (" (the start draw and two more)" if opens else ""))
    if holding.tiles is not None:
        kept = holding.tiles
        if not kept:
            drawn = full
        elif len(kept) >= 2 and placeable & set(kept):
            drawn = 0
        else:
            drawn = 1
        return Allowance(kept, len(kept), len(kept) + drawn,
                         f"{len(kept)} kept back {sorted(kept)} and {drawn} drawn")
    k = holding.most
    if k == 0:
        most = full
    elif k == 1:
        most = max(full, 2)
    else:  # two or more kept: nothing drawn if one can be placed, else one
        most = max(full, k if placeable >= set(VALUES) else k + 1)
    return Allowance(None, k, most, f"at most {k} kept back, and the draw for that")


def draw_violations(allow: Allowance, hand: Sequence[int] | None, placed: Sequence[int]
                    ) -> list[Violation]:
    """``wrong-draw`` when the turn's hand (or, hand unknown, its placed tiles) does not
    fit what the seat may hold. ``placed``: the values placed (every one counts toward
    the number; only tile values toward the values).

    With no hand declared but the tiles kept back known exactly, a placed value beyond
    those kept back must have been drawn: more such tiles than the seat may draw is
    ``wrong-draw`` (a 4 placed by a seat holding [1, 3] that draws nothing). Only what
    is certain is flagged: a bag that ran short only makes the draw smaller."""
    if hand is None:
        if len(placed) > allow.most:
            return [Violation("wrong-draw", (), f"{len(placed)} tiles placed, but the player "
                              f"can hold at most {allow.most}: {allow.why}")]
        if allow.kept is not None:
            new = Counter(v for v in placed if is_tile_value(v)) - Counter(allow.kept)
            may = allow.most - len(allow.kept)
            if sum(new.values()) > may:
                return [Violation("wrong-draw", (), f"{', '.join(map(str, sorted(new.elements())))}"
                                  f" placed beyond the tiles kept back {sorted(allow.kept)}, "
                                  f"but the player may draw only {may} ({allow.why})")]
        return []
    out = []
    if allow.kept is not None and Counter(allow.kept) - Counter(hand):
        out.append(Violation("wrong-draw", (), f"the hand {list(hand)} lacks the tiles kept "
                             f"back {sorted(allow.kept)}"))
    if len(hand) > allow.most:
        out.append(Violation("wrong-draw", (), f"{len(hand)} tiles in hand, but the player "
                             f"can hold at most {allow.most}: {allow.why}"))
    return out


def turn_hand(allow: Allowance, hand: Sequence[int] | None, placed: Sequence[int],
              fits: bool = True) -> tuple[int, ...] | None:
    """The whole hand the seat held for the turn, when it is certain; None when only the
    tiles placed (and at most ``allow.most`` tiles in all) are.

    A declared ``hand`` is the hand when it ``fits`` (passed ``draw_violations``). With
    none declared, the hand follows from the rules when the tiles kept back are known
    and those placed beyond them are as many as the seat may draw (so the whole draw:
    nothing drawn, the one tile drawn shown, a full draw all placed), or when the turn
    placed as many tiles as the seat can hold. ``placed``: the values placed (tiles)."""
    if hand is not None:
        return tuple(sorted(hand)) if fits else None
    if not fits:
        return None
    if allow.kept is not None:
        drawn = Counter(placed) - Counter(allow.kept)
        if sum(drawn.values()) == allow.most - len(allow.kept):
            return tuple(sorted([*allow.kept, *drawn.elements()]))
        return None
    return tuple(sorted(placed)) if len(placed) == allow.most else None


def after_turn(allow: Allowance, hand: Sequence[int] | None, placed: Sequence[int],
               applied: bool, fits: bool) -> Holding:
    """What the seat holds after the turn. ``fits``: the hand passed ``draw_violations``
    (a hand that does not fit is not believed; only the bound stays). An applied turn
    keeps back what was not placed; a refused one gets all its tiles back. A hand not
    declared is known when ``turn_hand`` finds it certain."""
    if hand is None and allow.kept is not None and allow.most == len(allow.kept):
        hand, fits = allow.kept, True  # nothing could be drawn: the hand is what was kept
    elif hand is None:
        hand = turn_hand(allow, None, placed, fits)
    if hand is not None and fits:
        rest = Counter(hand)
        if applied:
            rest.subtract(placed)
        tiles = tuple(sorted(rest.elements()))
        return Holding(tiles, len(tiles), started=True, open=not applied)
    most = allow.most if hand is None else min(len(hand), allow.most)
    if applied:
        most = max(0, most - len(placed))
    return Holding(None, most, started=True, open=not applied)


__all__ = ["DRAW_PER_MEMBER", "EMPTY", "Allowance", "Holding", "after_turn", "allowance",
           "draw_size", "draw_violations", "turn_hand"]
