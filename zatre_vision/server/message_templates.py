"""English messages made outside the dashboard (the rules engine, the match, the table,
the POST actions), as templates with ``{name}`` placeholders, for :func:`.i18n.localize`.

They stay English where they are made: they are stored with the match, broadcast to
every screen and read by club tools. Their translations are in the ``messages``
catalogue; a message that no template matches is shown as it is (English), never lost.
A template matches a whole message; more specific templates come first."""

from __future__ import annotations


def N_(text: str) -> str:  # noqa: N802 - the name pybabel looks for (marked, not translated)
    return text


TEMPLATES: tuple[str, ...] = (
    # the POST actions' replies (server/admin.py)
    N_("Turn scored."),
    N_("Turn flagged: {reasons}"),
    N_("Signed out."),
    N_("Signed in."),
    N_("Flagged turn accepted (override)."),
    N_("Flagged turn rejected: take the tiles back."),
    N_("Last turn undone."),
    N_("Match reopened: its minus points are cleared, its turns stay."),
    N_("Match {id} started: {player} begins. Draw: {draw}."),
    N_("Match {id} started: {player} begins."),
    N_("A simulated game starts in a moment (its players draw for who begins)."),
    N_("Already recorded: {message}"),
    N_("Signed in: corrections and setup are unlocked."),
    N_("the table's server restarted since this page was loaded: reload the page and check the board before trying again"),
    N_("the match changed since this was sent (revision {sent}, now {now}): look at the board again, then retry"),
    N_("wrong table PIN: try again in {time}"),
    N_("wrong table PIN"),
    N_("too many wrong PINs from this address: try again in {time}"),
    N_("match {id} is still running (turn {n}): finish it first, or tick \"end it unfinished\" to start a new one"),
    N_("Undo is off in the demo game: its simulated players cannot take tiles back (at a real table, and in manual entry, it works)"),
    N_("no camera is watching this table: enter the turn instead"),
    N_("no camera is watching this table: correct the cell instead"),
    N_("no turn waits for {cell} (it may have been read meanwhile)"),
    N_("give the held-back tiles, like 5 6"),
    N_("the starting player must be one of the players"),
    N_("{cells} already holds a tile: a turn on taken cells cannot be accepted; reject it"),
    N_("{cells} already hold tiles: a turn on taken cells cannot be accepted; reject it"),
    # the match and the table (match.py, table.py)
    N_("no match at this table: start one in Setup"),
    N_("no match at this table"),
    N_("the match is finished"),
    N_("a flagged turn is waiting: accept, reject or correct it first"),
    N_("a flagged turn is waiting: accept or reject it first"),
    N_("no flagged turn is waiting"),
    N_("nothing to undo"),
    N_("held tiles must be values 1 to 6"),
    N_("no turn to attach held tiles to"),
    N_("no turn yet: propose the first turn instead"),
    N_("{cell} already holds a tile"),
    N_("{cell} is not a cell of the board"),
    N_("a cell is named like H8"),
    N_("unknown player {player}"),
    N_("the hand must include every placed tile"),
    N_("hand tiles must be values 1 to 6"),
    N_("a card game needs 2 to 4 players"),
    N_("Zatre is played by 2 to 6 players or teams (1 for solo practice)"),
    N_("seat names must be different"),
    N_("manual entry"),
    N_("the camera stopped"),
    # the names of the HTTP errors on the error page
    N_("Bad Request"), N_("Unauthorized"), N_("Forbidden"), N_("Not Found"),
    N_("Method Not Allowed"), N_("Conflict"), N_("Request Entity Too Large"),
    N_("Unprocessable record"), N_("Too Many Requests"), N_("Internal Server Error"),
    N_("Service Unavailable"),
    # the rules engine's reasons (rules/turn.py, rules/holdings.py)
    N_("{cell} already holds a {value}"),
    N_("{value} on {cell} is not a tile value (1 to 6)"),
    N_("{n} tiles of {value} in play, but the set has only {max}"),
    N_("the first turn must cover the red start cell H8"),
    N_("the first turn places three tiles, not {n}"),
    N_("{values} placed, but the hand holds {hand}"),
    N_("{cells} not connected to the tiles on the board"),
    N_("{cells} not connected to the group on H8"),
    N_("line {first}-{last} sums to {sum}, more than 12"),
    N_("{placed} of {hand} tiles placed, but {could} could have been (for example {example}); held back: {held}"),
    N_("light cell {cells} covered without a line of 10, 11 or 12, though the tiles could have been placed with {n} such cell(s)"),
)
