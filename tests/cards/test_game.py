"""Card-game flow: deck, rounds, hands, one card a turn then draw, showing the hand."""

import random
from collections import Counter

import pytest

from zatre_vision.cards.game import CardGame, CardGameError
from zatre_vision.cards.rules import CARD_RULES, CardLayout
from zatre_vision.cards.simulate import CardSimulation


def test_deal_starter_four_others_three_from_the_rounds_25():
    """Seed 003: "25 cards are required for the first round of the game. The
    starting player receives four cards in his hand, the other players receive
    three." Three players: 4 + 3 + 3 dealt, 15 left in the round's stack, and the
    other 25 set aside for round 2."""
    game = CardGame(["Ann", "Ben", "Cid"], random.Random(1))
    assert [len(s.hand) for s in game.seats] == [4, 3, 3]
    assert len(game.stack) == 15 and len(game.set_aside) == 25
    dealt = game.stack + game.set_aside + [v for s in game.seats for v in s.hand]
    assert Counter(dealt) == Counter(CARD_RULES.deck())
    assert game.current == 0 and game.first_turn and game.rounds == 3


def test_two_cards_first_then_one_card_a_turn_then_draw():
    """Seed 003: "In the first turn, the starting player places 2 cards" and "After
    the placement, a card is drawn." Ann: 4 - 2 + 1 = 3 cards; Ben: 3 - 1 + 1 = 3."""
    game = CardGame(["Ann", "Ben"], random.Random(2))
    a, b = game.hand[:2]
    one = game.play({"0,0": a})
    assert [v.code for v in one.violations] == ["wrong-card-count"]
    assert game.current == 0 and len(game.layout) == 0  # an illegal move changes nothing
    assert game.play({"0,0": a, "1,0": b}).legal
    assert len(game.seats[0].hand) == 3 and len(game.stack) == 25 - 7 - 1
    assert game.current == 1 and not game.first_turn
    hand = game.hand
    move = next({f"{x},{y}": v} for x, y in sorted(game.layout.frontier()) for v in hand
                if game.check({f"{x},{y}": v}).legal)
    assert game.play(move).legal
    assert len(game.seats[1].hand) == 3 and len(game.stack) == 25 - 7 - 2
    assert [t.action for t in game.history] == ["play", "play"]


def test_showing_the_hand_puts_it_under_the_stack_and_takes_three_new():
    """Seed 003: "he shows his cards to the other players and receives three new
    cards in his hand. This process may need to be repeated until he can play a
    card." Assumed: the shown cards go under the round's stack; the same player
    goes on."""
    game = CardGame(["Ann", "Ben"], random.Random(3))
    game.layout = CardLayout({"0,0": 6, "1,0": 6, "0,1": 6, "1,1": 6})
    game.first_turn = False
    game.seats[0].hand = [1, 2, 3]
    game.stack = [4, 5, 6, 0, 6, 5]  # top is the end
    assert not game.can_play()
    assert [v.code for v in game.play({"0,0": 1}).violations] == ["cell-occupied"]
    assert game.play({}).legal
    assert game.seats[0].hand == [5, 6, 0]
    assert game.stack == [1, 2, 3, 4, 5, 6]
    assert game.current == 0 and game.history[-1].action == "show"
    assert game.can_play()  # the zero fits
    assert [v.code for v in game.play({}).violations] == ["tile-not-placed"]
    assert game.play({"2,0": 0}).legal
    assert game.seats[0].sheet.total == 5 and game.current == 1


def test_a_player_passes_when_no_card_in_the_stack_fits():
    game = CardGame(["Ann", "Ben"], random.Random(4))
    game.layout = CardLayout({"0,0": 6, "1,0": 6, "0,1": 6, "1,1": 6})
    game.first_turn = False
    game.seats[0].hand = [1, 2, 3]
    game.seats[1].hand = [0]
    game.stack = [4, 5]
    assert game.play({}).legal
    assert game.history[-1].action == "pass" and game.current == 1
    assert game.seats[0].hand == [1, 2, 3]


@pytest.mark.parametrize("players", [["A", "B"], ["A", "B", "C", "D"]])
def test_as_many_rounds_as_players_each_laying_out_25_cards(players):
    """Seed 003: "The same number of rounds are played with two, three or four
    players." Round 1 lays out 25 cards, round 2 the 25 set aside (together the
    whole deck); rounds 3 and 4 shuffle all 50 again. The start moves one seat
    clockwise each round (assumed)."""
    game = CardSimulation(players, 11).run()
    assert game.over and game.round == len(players)
    assert [len(layout) for layout in game.layouts] == [25] * len(players)
    first_two = Counter(game.layouts[0].cards.values()) + Counter(game.layouts[1].cards.values())
    assert first_two == Counter(CARD_RULES.deck())
    starters = [t.seat for t in game.history if t.action == "play" and len(t.result.placed) == 2]
    assert starters == players
    with pytest.raises(CardGameError):
        game.play({})


def test_the_sheet_runs_on_over_the_rounds():
    game = CardSimulation(["A", "B"], 5).run()
    for seat in game.seats:
        earned = sum(t.result.total_points + t.result.super_bonus
                     for t in game.history if t.seat == seat.name)
        assert seat.sheet.total >= earned  # plus bonus rows
        assert seat.sheet.total == seat.sheet.rows_total + sum(seat.sheet.super_bonuses)
    assert game.winner() == [max(game.totals(), key=game.totals().get)] or len(game.winner()) > 1


def test_player_counts():
    with pytest.raises(ValueError):
        CardGame(["A", "B", "C", "D", "E"], random.Random(0))
    with pytest.raises(ValueError):
        CardGame(["A", "A"], random.Random(0))
    assert CardGame(["Solo"], random.Random(0)).rounds == 1
