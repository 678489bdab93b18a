"""After the match: every turn set against the best move its hand allowed.

Pure: a validated record in, an analysis out (no I/O). For each turn it finds the
hand the player certainly held (``turn_known_hand``), finds the best legal moves of
that hand on the board as it was (``search_moves``) and values moves by two measures:

- **points**: what the move adds to the sheet's total at once (its lines' points in
  their boxes, a row's printed bonus completed, doubled in a crossed row);
- **value**: the change of ``moves.sheet_value`` (the total plus what open rows,
  crosses and the doubling still to come are likely worth), the measure the
  simulated greedy player and the coach use.

Points missed = best minus played, by each measure. The move played is always among
the moves compared, so nothing missed is ever negative, and a player who always takes
the best move by one measure misses zero by it. A turn that broke a rule is not
counted, and not searched either (its tiles may be anything: a first turn of 100).

**Hands.** What a player may hold is decided in one place, :mod:`.holdings`, through
the same ``Referee`` that ``zatre score`` replays with (draws, tiles kept back, a
refused turn's tiles back in the hand, two per member for a team). A turn's hand is
certain when the record declares it and it fits that allowance, or when
``holdings.turn_hand`` finds it follows from the rules (rule 6: known leftovers and
the whole draw shown, or as many tiles placed as the seat can hold). Otherwise
(tiles kept back and never declared, a declared hand that breaks the draw or lacks a
tile placed, a turn played out of turn) the turn says so, and only the tiles placed
are analysed (other ways to place those same tiles); the most the hand could hold is
given where the rules bound it. That is certain as far as it goes: when the played
turn was legal, those moves were legal too, so the points missed are *at least* what
it reports (``lower_bound``).

**The search and its bound.** A team's hand of 4 tiles can have over 100,000 legal
moves, a carried-over hand of many small tiles millions. The best moves are found by
branch and bound (:mod:`.best`), exactly, without listing them all; the opening turn
and a hand whose every move covers a bare light cell are listed instead
(``legal_moves``, at most ``limit`` moves). Every search of a turn shares one
``step_budget(limit)``, so a turn's time and memory are bounded whatever the record
says; a turn whose search reached it keeps the best moves seen (all legal) and says
so (``capped``, a note): a better one may exist, so its points missed are a lower
bound as well.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from .best import best_moves
from .board import CELL_SET, DOWN, LIGHT, NAMES, RIGHT, Board, grid_index
from .holdings import Allowance, turn_hand
from .moves import sheet_value
from .record import GameRecord, Referee, ReplayedTurn
from .search import (
    BudgetSpent,
    Placement,
    StepBudget,
    in_scoring_line,
    iter_placements,
    largest_placeable,
    placement_nonscoring_light,
)
from .sheet import ScoreSheet
from .tiles import is_tile_value
from .turn import LINE_POINTS, SUMS

#: The moves' worth of search one turn may take (see the module doc, "The search and its
#: bound"): ``STEPS_PER_MOVE`` steps each; and the most moves a listing keeps.
ANALYSIS_LIMIT = 2_000
#: Search steps (a cell and a value tried) one turn may take, per move of the limit:
#: the bound on every search of the analysis, whatever the record (see ``step_budget``).
STEPS_PER_MOVE = 100
#: A whole record's searches share this many turns' bounds (a match uses one or two).
RECORD_TURNS = 25
#: Alternatives listed per turn.
TOP_ALTERNATIVES = 3
#: Turns listed as a player's costliest.
COSTLIEST = 3
#: Sheet values closer than this are equal (float sums in a different order).
EPSILON = 1e-9


@dataclass(frozen=True)
class Option:
    """One move valued by both measures."""

    placed: dict[str, int]
    points: int
    value: float

    def to_json(self) -> dict:
        return {"placed": dict(self.placed), "points": self.points, "value": round(self.value, 3)}


@dataclass(frozen=True)
class KnownHand:
    """What the analysis may take as the hand of one turn.

    ``tiles``: the tiles analysed; the whole hand when ``complete``, else only the
    tiles placed. ``source`` says how it is known: ``declared`` (the record's hand),
    ``rules`` (follows from rule 6 and earlier turns, ``holdings.turn_hand``) or
    ``placed-only``. ``most``: the most tiles the hand can have held (None where the
    rules do not bound it: the turn broke the draw or was played out of turn).
    ``why``: why the hand is not fully known."""

    tiles: tuple[int, ...]
    complete: bool
    source: str
    most: int | None = None
    why: str = ""


@dataclass
class TurnAnalysis:
    number: int
    player: str
    hand: KnownHand
    legal: bool
    applied: bool
    played: Option | None
    best_points: Option | None
    best_value: Option | None
    alternatives: list[Option]
    placements: int
    capped: bool
    notes: list[str] = field(default_factory=list)

    @property
    def counted(self) -> bool:
        """Whether this turn's points missed count (a legal, scored move)."""
        return self.played is not None and self.best_points is not None

    @property
    def missed_points(self) -> int | None:
        if not self.counted:
            return None
        return max(0, self.best_points.points - self.played.points)

    @property
    def missed_value(self) -> float | None:
        if not self.counted:
            return None
        missed = self.best_value.value - self.played.value
        return 0.0 if missed < EPSILON else missed

    @property
    def lower_bound(self) -> bool:
        """Points missed are only a floor: the hand was not fully known, or capped."""
        return not self.hand.complete or self.capped

    def to_json(self) -> dict:
        missed_value = self.missed_value
        return {
            "number": self.number,
            "player": self.player,
            "hand": list(self.hand.tiles) if self.hand.complete else None,
            "hand_known": self.hand.complete,
            "hand_source": self.hand.source,
            "hand_most": self.hand.most,
            "tiles_analysed": list(self.hand.tiles),
            "legal": self.legal,
            "applied": self.applied,
            "played": self.played.to_json() if self.played else None,
            "best_by_points": self.best_points.to_json() if self.best_points else None,
            "best_by_value": self.best_value.to_json() if self.best_value else None,
            "missed_points": self.missed_points,
            "missed_value": None if missed_value is None else round(missed_value, 3),
            "lower_bound": self.lower_bound,
            "alternatives": [a.to_json() for a in self.alternatives],
            "placements": self.placements,
            "capped": self.capped,
            "notes": list(self.notes),
        }


@dataclass
class PlayerSummary:
    player: str
    turns: int
    counted: int
    best_by_points: int
    best_by_value: int
    points_missed: int
    value_missed: float
    lower_bound_turns: int
    costliest: list[TurnAnalysis]

    def to_json(self) -> dict:
        def share(n: int) -> float | None:
            return round(n / self.counted, 3) if self.counted else None

        return {
            "turns": self.turns,
            "turns_counted": self.counted,
            "best_moves_by_points": self.best_by_points,
            "best_moves_by_value": self.best_by_value,
            "best_share_by_points": share(self.best_by_points),
            "best_share_by_value": share(self.best_by_value),
            "points_missed": self.points_missed,
            "value_missed": round(self.value_missed, 3),
            "points_missed_per_turn": share(self.points_missed),
            "lower_bound_turns": self.lower_bound_turns,
            "costliest": [{"number": t.number, "missed_points": t.missed_points,
                           "missed_value": round(t.missed_value or 0.0, 3),
                           "played": t.played.to_json() if t.played else None,
                           "best": t.best_points.to_json() if t.best_points else None}
                          for t in self.costliest],
        }


@dataclass
class Analysis:
    players: list[str]
    turns: list[TurnAnalysis]
    summary: dict[str, PlayerSummary]
    limit: int

    def to_json(self) -> dict:
        return {
            "players": list(self.players),
            "limit": self.limit,
            "turns": [t.to_json() for t in self.turns],
            "summary": {p: s.to_json() for p, s in self.summary.items()},
        }


# -- hands ------------------------------------------------------------------------------


def turn_known_hand(allow: Allowance, replayed: ReplayedTurn) -> KnownHand:
    """The hand of one turn as far as it is certain. ``allow``: what
    :mod:`.holdings` let the seat hold for the turn (``Referee.allowance`` just
    before it); the record's hand is believed only when the turn passed the draw
    check, and a turn out of turn has no hand by the rules."""
    turn, result = replayed.turn, replayed.result
    placed = tuple(sorted(v for v in turn.placed.values() if is_tile_value(v)))
    codes = {v.code for v in result.violations}
    fits = "wrong-draw" not in codes
    out_of_turn = "out-of-turn" in codes
    lacks = "tile-not-in-hand" in codes
    tiles = None
    if not out_of_turn and not lacks:  # out of turn, a seat has no hand by the rules
        tiles = turn_hand(allow, turn.hand, placed, fits)
    if tiles is not None:
        source = "declared" if turn.hand is not None else "rules"
        return KnownHand(tiles, True, source, len(tiles))
    if out_of_turn:
        why = "played out of turn"
    elif lacks:
        why = "the declared hand lacks a tile placed"
    elif not fits:
        why = ("the declared hand does not fit what the player may hold" if turn.hand
               is not None else "more tiles placed than the player may hold")
    elif allow.kept is not None and (sum((Counter(placed) - Counter(allow.kept)).values())
                                     > allow.most - len(allow.kept)):
        # more tiles placed beyond those kept than the seat may draw
        why = f"the tiles placed do not fit the tiles kept back {sorted(allow.kept)}"
        return KnownHand(placed, False, "placed-only", None, why)
    else:
        why = (f"not declared, and the turn does not show it all: {len(placed)} to "
               f"{allow.most} tiles held")
    most = allow.most if fits and not out_of_turn and not lacks else None
    return KnownHand(placed, False, "placed-only", most, why)


# -- the legal moves of a hand ------------------------------------------------------------


def step_budget(limit: int = ANALYSIS_LIMIT) -> StepBudget:
    """The bound on one turn's search: ``STEPS_PER_MOVE`` steps per move of ``limit``."""
    return StepBudget(max(1, limit) * STEPS_PER_MOVE)


def legal_moves(board: Board, hand: Sequence[int], limit: int = ANALYSIS_LIMIT,
                budget: StepBudget | None = None) -> tuple[list[Placement], bool]:
    """Legal placements of ``hand`` (as ``moves.legal_index_placements`` defines them)
    and whether the list was capped: at most ``limit``, and only what the ``budget``
    (``step_budget(limit)`` unless given) let the search certify.

    Every placement returned is legal. The search keeps those with the fewest bare
    light cells seen so far; when the budget runs out before that count reached 0, a
    placement on dark cells only (0 bare light cells, so legal) is looked for with
    half as many steps again, and the first ``limit`` of those are taken; when there is none
    either, nothing is certain and the list is empty (capped)."""
    budget = budget if budget is not None else step_budget(limit)
    first = board.count == 0
    try:
        size = largest_placeable(board, hand, first, budget=budget)
    except BudgetSpent:
        return [], True
    if size == 0:
        return [()], False
    kept: list[Placement] = []
    fewest: int | None = None
    try:
        for p in iter_placements(board, hand, size, first, budget=budget):
            n = placement_nonscoring_light(board, p)
            if fewest is None or n < fewest:
                fewest, kept = n, [p]
            elif n == fewest:
                kept.append(p)
            if fewest == 0 and len(kept) > limit:
                return kept[:limit], True
    except BudgetSpent:
        pass
    else:
        return kept[:limit], len(kept) > limit
    if fewest == 0:
        return kept[:limit], True
    dark: list[Placement] = []
    try:
        for p in iter_placements(board, hand, size, first, avoid=LIGHT,
                                 budget=StepBudget(max(1, budget.steps // 2))):
            dark.append(p)
            if len(dark) >= limit:
                break
    except BudgetSpent:
        pass
    return dark, True


# -- valuing moves --------------------------------------------------------------------------


class _Valuer:
    """Both measures of the moves on one board for one sheet, sharing the work of
    moves that enter the same points and crosses."""

    def __init__(self, board: Board, sheet: ScoreSheet):
        self.board = board
        self.values = list(board.values)  # scratch copy: a move's tiles go in and out
        self.sheet = sheet
        self.total_before = sheet.rows_total
        self.value_before = sheet_value(sheet)
        self._cache: dict[tuple, tuple[int, float]] = {}
        self._by_vector: dict[tuple, tuple[int, float]] = {}

    def vector(self, entry: tuple[int, int, int, int]) -> tuple[int, float]:
        """(points, value) of a move entering lines of 10, 11, 12 and crosses."""
        got = self._by_vector.get(entry)
        if got is None:
            n10, n11, n12, crosses = entry
            got = self.entry({10: n10 * LINE_POINTS[10], 11: n11 * LINE_POINTS[11],
                              12: n12 * LINE_POINTS[12]}, crosses)
            self._by_vector[entry] = got
        return got

    def entry(self, points: dict[int, int], crosses: int) -> tuple[int, float]:
        key = (tuple(sorted(points.items())), crosses)
        got = self._cache.get(key)
        if got is None:
            after = self.sheet.copy()
            after.enter(points, crosses)
            got = (after.rows_total - self.total_before, sheet_value(after) - self.value_before)
            self._cache[key] = got
        return got

    def measure(self, placement: Placement) -> tuple[int, float]:
        """(points, value) of one legal placement."""
        values = self.values
        for i, v in placement:
            values[i] = v
        points, crosses = turn_points(values, placement)
        for i, _ in placement:
            values[i] = 0
        return self.entry(points, crosses)


def turn_points(values: list[int], placement: Placement) -> tuple[dict[int, int], int]:
    """Points by sum and crosses of a placement already in ``values``: what
    ``turn.score_lines`` gives, without building the lines (the analysis values
    thousands of moves a turn)."""
    points = dict.fromkeys(SUMS, 0)
    seen = set()
    for i, _ in placement:
        for step in (RIGHT, DOWN):
            first = i
            while values[first - step]:
                first -= step
            if (first, step) in seen:
                continue
            seen.add((first, step))
            j, total, n = first, 0, 0
            while values[j]:
                total += values[j]
                n += 1
                j += step
            if n >= 2 and total in LINE_POINTS:
                points[total] += LINE_POINTS[total]
    crosses = sum(1 for i, _ in placement if i in LIGHT and in_scoring_line(values, i))
    return points, crosses


def _placement_of(placed: dict[str, int]) -> Placement | None:
    """The index placement of a played turn, or None when it names no empty cell
    (a turn that was not applied)."""
    out = []
    for name, v in placed.items():
        i = grid_index(name)
        if i not in CELL_SET:
            return None
        out.append((i, v))
    return tuple(sorted(out))


def analyse_turn(board: Board, sheet: ScoreSheet, hand: KnownHand, replayed: ReplayedTurn,
                 number: int, limit: int = ANALYSIS_LIMIT,
                 budget: StepBudget | None = None) -> TurnAnalysis:
    """One turn: ``board`` and ``sheet`` as they were before it. A turn that broke a
    rule is not searched (it is not counted, and its tiles may be anything at all).
    ``budget``: the bound of its search (``step_budget(limit)`` unless given)."""
    turn, result = replayed.turn, replayed.result
    notes: list[str] = []
    if not hand.complete:
        scored = replayed.applied and result.legal
        notes.append(f"hand not fully known ({hand.why or 'not declared'}): "
                     + ("only other ways to place the tiles placed are compared"
                        + (", so at least this much was missed" if scored else "")
                        if hand.tiles else "nothing certain to analyse"))
    if not result.legal:
        notes.append("the turn broke a rule and was " + (
            "scored as the table accepted it" if replayed.applied else "not scored")
            + ": not searched, not counted as points missed")
        return TurnAnalysis(
            number=number, player=turn.player, hand=hand, legal=False,
            applied=replayed.applied, played=None, best_points=None, best_value=None,
            alternatives=[], placements=0, capped=False, notes=notes)

    valuer = _Valuer(board, sheet)
    points, value = valuer.entry(result.points, result.crosses)
    played = Option(dict(turn.placed), points, value)
    played_key = _placement_of(turn.placed)
    played_move = (points, value, played_key or ())
    budget = budget if budget is not None else step_budget(limit)
    moves, compared, capped, passed = _search(board, hand.tiles, valuer, limit, budget)
    if capped:
        notes.append(f"the search reached its bound ({budget.steps} steps): "
                     f"{compared} moves were compared (a better one may exist)")

    best_points = best_value = None
    alternatives: list[Option] = []
    if moves or played_key:
        # the move played is always compared; ties go to it, then to the first by cell
        measured = [m for m in moves if m[2] != played_key] + [played_move]
        by_value = sorted(measured, key=lambda m: (-m[1], -m[0], m[2] != played_key, m[2]))
        best_value = _option(by_value[0])
        best_points = _option(min(measured, key=lambda m: (-m[0], -m[1], m[2] != played_key,
                                                           m[2])))
        alternatives = [_option(m) for m in by_value if m[2] != played_key][:TOP_ALTERNATIVES]
    elif passed and hand.complete:
        best_points = best_value = Option({}, 0, 0.0)  # nothing placeable: a pass is best
        notes.append("no tile of the hand could be placed")

    return TurnAnalysis(
        number=number, player=turn.player, hand=hand, legal=True,
        applied=replayed.applied, played=played, best_points=best_points,
        best_value=best_value, alternatives=alternatives,
        placements=compared, capped=capped, notes=notes)


@dataclass
class Searched:
    """What one turn's search found. ``moves``: (points, value, placement), the best by
    points and the best few by value among them (all, when they were listed);
    ``compared``: moves valued; ``capped``: the search reached its bound, so a better
    move may exist; ``passed``: nothing of the hand could be placed."""

    moves: list[tuple[int, float, Placement]]
    compared: int
    capped: bool
    passed: bool


def search_moves(board: Board, sheet: ScoreSheet, tiles: Sequence[int],
                 limit: int = ANALYSIS_LIMIT) -> Searched:
    """The best moves of ``tiles`` on ``board`` for ``sheet`` (see ``_search``)."""
    return Searched(*_search(board, tiles, _Valuer(board, sheet), limit, step_budget(limit)))


def _search(board: Board, tiles: Sequence[int], valuer: _Valuer, limit: int,
            budget: StepBudget) -> tuple[list[tuple[int, float, Placement]], int, bool, bool]:
    """The best moves of ``tiles`` on ``board``: (moves as (points, value, placement),
    how many moves were compared, capped, whether nothing could be placed).

    Branch and bound (``best.best_moves``) where it applies: exact, and only the best
    by points and the best few by value come back. Otherwise (the opening turn, every
    move covering a bare light cell) the legal moves are listed (``legal_moves``, at
    most ``limit``) and each is valued. Every search has the turn's step budget."""
    first = board.count == 0
    try:
        size = largest_placeable(board, tiles, first, budget=budget)
    except BudgetSpent:
        return [], 0, True, False
    if size == 0:
        return [], 0, False, True
    found = None if first else best_moves(board, tiles, size, valuer.vector, budget,
                                           keep=TOP_ALTERNATIVES + 1)
    if found is not None and found.best_points is not None:
        moves = list(found.by_value)
        if found.best_points not in moves:
            moves.append(found.best_points)
        return moves, found.compared, found.capped, False
    # listed instead, with what is left of the budget
    rest = StepBudget(max(1, budget.left))
    placements, capped = legal_moves(board, tiles, limit, rest)
    budget.left -= rest.spent  # charged to the turn (the dark-cell fallback is not)
    moves = [(*valuer.measure(p), p) for p in placements if p]
    return moves, len(moves), capped or bool(found and found.capped), placements == [()]


def _option(measured: tuple[int, float, Placement]) -> Option:
    points, value, placement = measured
    return Option({NAMES[i]: v for i, v in placement}, points, value)


# -- the whole record -------------------------------------------------------------------------


def analyse_record(record: GameRecord, limit: int = ANALYSIS_LIMIT,
                   progress=None, only: set[int] | None = None) -> Analysis:
    """Analyse every turn of a validated record (replayed as ``zatre score`` does).
    Each turn's search has its bound (``step_budget(limit)``), and all of them together
    ``RECORD_TURNS`` times that: what a record of any length may take.

    ``progress(done, total)`` (optional) is called after each turn. ``only``: analyse
    just these turn numbers (1-based; the others are replayed, their hands followed)."""
    referee = Referee(record.players, record.teams, record.starter)
    out: list[TurnAnalysis] = []
    total = len(record.turns)
    steps = step_budget(limit).steps
    left = steps * RECORD_TURNS
    for number, turn in enumerate(record.turns, start=1):
        allow = referee.allowance(turn.player)
        wanted = only is None or number in only
        if wanted:  # the board and the sheet as they were before the turn
            board, sheet = referee.board.copy(), referee.sheets[turn.player].copy()
        replayed = referee.commit(turn)
        if wanted:
            hand = turn_known_hand(allow, replayed)
            # each turn's bound, and never more than what is left of the record's
            budget = StepBudget(max(1, min(steps, left)))
            out.append(analyse_turn(board, sheet, hand, replayed, number, limit, budget))
            left -= budget.spent
        if progress is not None:
            progress(number, total)
    return Analysis(list(record.players), out, summarise(record.players, out), limit)


def summarise(players: Sequence[str], turns: Sequence[TurnAnalysis]) -> dict[str, PlayerSummary]:
    out = {}
    for player in players:
        mine = [t for t in turns if t.player == player]
        counted = [t for t in mine if t.counted]
        costly = sorted((t for t in counted if t.missed_points or t.missed_value),
                        key=lambda t: (-(t.missed_points or 0), -(t.missed_value or 0.0),
                                       t.number))
        out[player] = PlayerSummary(
            player=player,
            turns=len(mine),
            counted=len(counted),
            best_by_points=sum(1 for t in counted if t.missed_points == 0),
            best_by_value=sum(1 for t in counted if t.missed_value == 0.0),
            points_missed=sum(t.missed_points or 0 for t in counted),
            value_missed=sum((t.missed_value or 0.0 for t in counted), 0.0),
            lower_bound_turns=sum(1 for t in counted if t.lower_bound),
            costliest=costly[:COSTLIEST],
        )
    return out


def _move(placed: dict[str, int]) -> str:
    return " ".join(f"{c}={v}" for c, v in placed.items())


def coach_line(turn: TurnAnalysis) -> str | None:
    """One line for the table after a turn, such as "best was G7=5 H7=5 for 14 (you
    scored 9)" (by points). None when the turn is not counted (it broke a rule, or
    nothing certain was analysed)."""
    if not turn.counted:
        return None
    played, best = turn.played, turn.best_points
    some = "" if turn.hand.complete else "with the tiles placed (the rest of the hand is not known), "
    compared = " of the moves compared" if turn.capped else ""
    if turn.missed_points == 0:
        return f"{turn.player}: {some}that was the best move for points{compared} ({played.points})"
    return (f"{turn.player}: {some}best{compared} was {_move(best.placed)} for {best.points} "
            f"(you scored {played.points})")


__all__ = [
    "ANALYSIS_LIMIT",
    "Analysis",
    "KnownHand",
    "Option",
    "PlayerSummary",
    "TurnAnalysis",
    "analyse_record",
    "analyse_turn",
    "search_moves",
    "coach_line",
    "summarise",
    "turn_known_hand",
]
