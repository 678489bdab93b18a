"""User-visible sentences of the club-evening pages in one place, in plain
English, ready to be wrapped for translation; and the refusal that offers a choice."""

from __future__ import annotations

from werkzeug.exceptions import Conflict

RUNNING_MATCH = ("match {match} is still running (turn {turn}): finish it first, or end it "
                 "unfinished to start this one")
END_UNFINISHED = "End match {match} unfinished and start this one"
ANNULLED = "Match {match} annulled: {reason}"
TOURNAMENT_NAME_EMPTY = "give the tournament a name"
TOURNAMENT_NAME_LONG = "a tournament name has at most {most} characters (this one has {n})"
TOURNAMENT_NAME_CHAR = "a tournament name cannot hold {chars}"
WRONG_SETUP_CODE = ("wrong setup code: the command zatre serve printed it when it started, "
                    "and zatre doctor shows it")
PIN_FROM_SETTINGS = "the PIN comes from the settings file (server.pin): change it there"
PIN_REPEAT_DIFFERS = "the new PIN and its repetition differ: type the same twice"
PIN_CHANGED = "PIN changed: every other browser signs in again."
REASON_EMPTY = "give the reason for annulling it (shown in the history)"
REASON_LONG = "the reason has at most {most} characters (this one has {n})"


class ChoiceConflict(Conflict):
    """A 409 that offers the way out: ``choice`` = {"field", "value", "label"}, the
    form field that, sent with the same form, does what the label says. The page that
    sent the form shows the message as a toast with that button."""

    def __init__(self, description: str, choice: dict):
        super().__init__(description)
        self.choice = choice

# -- the event log of a match, in sentences ------------------------------------------
EVENT_START = "Match started: {players}; {starter} begins."
EVENT_TURN = "{player} placed {tiles} and scored {points}."
EVENT_TURN_UNSCORED = "{player} placed {tiles}."
EVENT_SET_SCORED = "{cell} corrected to {value}: turn {turn} by {player} now scores {points}."
EVENT_CLEAR_SCORED = "{cell} cleared: turn {turn} by {player} now scores {points}."
EVENT_ACCEPT_SCORED = "The operator accepted the flagged turn as placed: {player} scored {points}."
EVENT_NO_MINUS = "none"
EVENT_SHOW_HAND = "{player} shows the hand and takes three new cards."
EVENT_END_ROUND = "The round was ended early: the next turn starts a new layout."
POINTS_ONE = "1 point"
POINTS_MANY = "{points} points"
POINTS_ONE_X2 = "1 point ({gain} with the x2)"
POINTS_MANY_X2 = "{points} points ({gain} with the x2)"
EVENT_PASS = "{player} passed."
EVENT_FLAGGED = "{player} placed {tiles}: flagged ({reasons})."
EVENT_ACCEPT = "The operator accepted the flagged turn as placed."
EVENT_REJECT = "The flagged turn was rejected: its tiles went back to the hand."
EVENT_UNDO = "The last turn was undone."
EVENT_SET = "{cell} corrected to {value}."
EVENT_CLEAR = "{cell} cleared."
EVENT_LATE = "{cell}={value} read late and added to turn {turn}."
EVENT_HELD = "{player} kept back {tiles} in turn {turn}."
EVENT_HELD_UNNAMED = "Tiles kept back: {tiles}."
EVENT_FINISH = "Match finished; minus points: {minus}."
EVENT_ANNUL = "Match annulled: {reason}"
EVENT_OTHER = "{kind}."


def flagged_message(verdict: dict, what: str = "Turn") -> str:
    """"Turn flagged: <reason>; <reason>" for a turn the engine flagged (``verdict`` as
    ``Table.commit_turn`` returns it); ``what="Shown hand"`` for a shown hand."""
    return f"{what} flagged: " + "; ".join(v["message"] for v in verdict["violations"])


def points_phrase(points: int, gain: int) -> str:
    """"3 points", or "3 points (6 with the x2)" when the sheet rose by more."""
    text = f"{points} point{'' if points == 1 else 's'}"
    return text if gain == points else f"{text} ({gain} with the x2)"
