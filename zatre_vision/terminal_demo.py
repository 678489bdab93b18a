"""`zatre demo` in a terminal: a simulated game played turn by turn."""

from __future__ import annotations

import random
import time

import click

from .rules.board import Board
from .simulate import Simulation


def _sheet_lines(name: str, sheet) -> list[str]:
    lines = [f"{name}: total {sheet.total}" + (f" (minus {sheet.minus})" if sheet.minus else "")]
    lines.append("  x2  10  11  12  bonus  total")
    for r in sheet.rows()[-4:]:
        cells = ["X " if r.crossed else "  "] + [
            f"{r.entries[s]:>2}" if r.entries[s] is not None else " ." for s in (10, 11, 12)
        ]
        lines.append(f"  {'  '.join(cells)}  {r.bonus:>5}  {r.total:>5}")
    return lines


def run_demo(players: list[str], seed: int | None, strategy: str, delay: float) -> None:
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    click.echo(f"Simulated Zatre game, seed {seed}. Ctrl-C stops.", err=True)
    sim = Simulation(players, seed, [strategy] * len(players))
    for turn in sim:
        board = Board(turn.board)
        r = turn.result
        sums = ", ".join(f"{line.sum}" for line in r.lines if line.scores) or "no scoring line"
        click.echo(click.style(f"\nTurn {turn.number}: {turn.seat} held {list(turn.hand)}, "
                               f"placed {r.placed}", bold=True))
        click.echo(f"  lines: {sums}; points {r.total_points}; crosses {r.crosses}; "
                   f"bag {turn.bag}")
        click.echo(board.render())
        for seat in sim.game.seats:
            click.echo("\n".join(_sheet_lines(seat.name, seat.sheet)))
        if delay:
            time.sleep(delay)
    game = sim.game
    click.echo(click.style("\nGame over" + (" (blocked)" if game.blocked else ""), bold=True))
    for seat in game.seats:
        click.echo(f"  {seat.name}: {seat.sheet.total}  (left in hand: {seat.hand})")
    click.echo(f"  winner: {', '.join(game.winner())}")
