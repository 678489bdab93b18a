"""Where the board game and the card game meet: one small interface per variant.

A record names its game with ``"variant"`` (``"board"`` when absent, or ``"cards"``).
Each :class:`Variant` gives the same four things, so that the CLI, the store's
readers and the dashboard need not know which game a record holds:

- ``parse(data)``: the decoded record, checked (RecordError with a one-line reason);
- ``replay(record, apply_all=False)``: the checked record through its engine, a state
  whose ``to_json()`` is the ``zatre score`` output (board or layout, sheets, turns);
- ``score(data)``: ``parse`` then ``replay``, as JSON (``zatre score``);
- ``score_as_recorded(data)``: a stored match as the table scored it, with ``notes``.

and, for the live match a :class:`~zatre_vision.table.Table` holds (a board
:class:`~zatre_vision.match.Match` or a card
:class:`~zatre_vision.cards.table.TableCardMatch`, whose ``variant`` names its game):

- ``new_match(players, starter, teams, zero_rule)``: a fresh match (MatchError);
- ``from_row(row)``: a stored match row rebuilt exactly (record, finished, pending);
- ``dashboard_state(match)``: the match's part of ``GET /api/state``;
- ``stored(match)``: the row's ``pending``, ``finished``, ``totals`` and ``winners``;
- ``finish(match, minus)``: end the match, returning the event's payload;
- ``errors``: the match's own one-line errors besides MatchError (the table reports
  them as MatchError).

The board game lives in :mod:`.rules` and :mod:`.match`, the card game in
:mod:`.cards`; neither imports the other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import record as cards_record
from .cards.table import CardMatchError, TableCardMatch, card_match_from_row, card_pending_json
from .match import Match, MatchError
from .rules import record as board_record


@dataclass(frozen=True)
class Variant:
    name: str
    parse: Callable[[object], Any]
    replay: Callable[..., Any]
    score: Callable[[object], dict]
    score_as_recorded: Callable[[object], dict]
    new_match: Callable[..., Any]
    from_row: Callable[[Mapping[str, Any]], Any]
    dashboard_state: Callable[[Any], dict]
    stored: Callable[[Any], dict]
    finish: Callable[[Any, dict[str, int]], dict]
    errors: tuple[type[Exception], ...] = ()


# -- the board game at the table -----------------------------------------------------------
def _new_board_match(players: Sequence[str], starter: str | None,
                     teams: Mapping[str, int] | None, zero_rule: str | None) -> Match:
    return Match(list(players), starter, dict(teams or {}))


def _board_match_from_row(row: Mapping[str, Any]) -> Match:
    """Rebuild a stored match exactly: its record, finished flag and pending turn."""
    match = Match.from_record(row["record"], finished=bool(row["finished"]), as_recorded=True)
    pending = row.get("pending")
    if pending and not match.finished:
        hand = pending.get("hand")
        try:
            match.propose(pending["placed"], tuple(hand) if hand is not None else None,
                          pending["player"])
        except (MatchError, KeyError, TypeError) as exc:  # the tiles are still on the table
            match.notes.append(f"the flagged turn could not be restored: {exc}")
    return match


def _board_dashboard_state(m: Match) -> dict:
    state = m.state()
    state["held"] = m.held_tiles()
    # who played each turn (1 first): the held-tiles form names player and turn
    state["turn_players"] = m.turn_players()
    return state


def _board_stored(m: Match) -> dict:
    pending = None
    if m.pending is not None:
        pending = {"player": m.pending.player, "placed": dict(m.pending.placed),
                   "hand": list(m.pending.hand) if m.pending.hand is not None else None}
    return {"pending": pending, "finished": m.finished, "totals": m.totals(),
            "winners": m.winners() if m.finished else []}


def _finish_board(m: Match, minus: dict[str, int]) -> dict:
    m.finish(minus)
    return {"minus": minus}


# -- the card game at the table (manual entry) ----------------------------------------------
def _new_card_match(players: Sequence[str], starter: str | None,
                    teams: Mapping[str, int] | None, zero_rule: str | None) -> TableCardMatch:
    if teams:
        raise MatchError("the card game has no teams")
    if not 2 <= len(players) <= 4:
        raise MatchError("a card game needs 2 to 4 players")
    try:
        return TableCardMatch(list(players), starter, zero_rule=zero_rule)
    except CardMatchError as exc:
        raise MatchError(str(exc)) from None


def _card_stored(m: TableCardMatch) -> dict:
    return {"pending": card_pending_json(m), "finished": m.over, "totals": m.totals(),
            "winners": m.winners() if m.over else []}


def _finish_cards(m: TableCardMatch, minus: dict[str, int]) -> dict:
    if any(minus.values()):
        raise MatchError("the card game has no minus points")
    m.finish()
    return {}


BOARD = Variant("board", board_record.parse_record, board_record.run_replay,
                board_record.score_record, board_record.score_as_recorded,
                _new_board_match, _board_match_from_row, _board_dashboard_state,
                _board_stored, _finish_board)
CARDS = Variant(cards_record.VARIANT, cards_record.parse_card_record,
                cards_record.run_card_replay, cards_record.score_card_record,
                cards_record.score_card_as_recorded,
                _new_card_match, card_match_from_row, TableCardMatch.state,
                _card_stored, _finish_cards, errors=(CardMatchError,))
VARIANTS: dict[str, Variant] = {v.name: v for v in (BOARD, CARDS)}


def variant_of(data: object) -> Variant:
    """The variant a decoded record (or a stored row's record) names. Anything else is
    the board game's to judge (its parser refuses an unknown ``variant`` in one line)."""
    name = data.get("variant") if isinstance(data, Mapping) else None
    return VARIANTS.get(name, BOARD) if isinstance(name, str) else BOARD


def variant_of_match(match: Any) -> Variant:
    """The variant of a live match (a match names its game in ``variant``)."""
    return VARIANTS[match.variant]


def score_record(data: object) -> dict:
    """Validate and replay a decoded record of either game (RecordError on bad input)."""
    return variant_of(data).score(data)


def score_as_recorded(data: object) -> dict:
    """A stored match of either game replayed as the table scored it, with ``notes``."""
    return variant_of(data).score_as_recorded(data)


__all__ = ["BOARD", "CARDS", "VARIANTS", "Variant", "score_as_recorded", "score_record",
           "variant_of", "variant_of_match"]
