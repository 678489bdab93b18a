"""Game flow: start draw, carry-over, end of game, blocked games, teams."""

import random

import pytest

from zatre_vision.rules import Bag, Board, Game, GameError, Seat, legal_placements
from zatre_vision.rules.tiles import TILE_COUNT


class ScriptedBag(Bag):
    """A bag that hands out tiles in a fixed order (then random ones)."""

    def __init__(self, order):
        super().__init__(random.Random(0))
        self.order = list(order)
        for v in self.order:
            self._tiles.remove(v)

    def draw(self):
        if self.order:
            return self.order.pop(0)
        return super().draw()

    def __len__(self):
        return len(self._tiles) + len(self.order)


def test_highest_start_tile_starts_and_ties_draw_again():
    bag = ScriptedBag([5, 6, 6, 2, 4, 1, 3])  # Ann 5, Ben 6, Cid 6 -> tie: Ben 2, Cid 4
    game = Game(["Ann", "Ben", "Cid"], random.Random(1), bag=bag)
    starter = game.choose_starter()
    assert starter.name == "Cid"
    assert [d.draws for d in game.start_draws] == [
        {"Ann": 5, "Ben": 6, "Cid": 6}, {"Ben": 2, "Cid": 4}]
    assert starter.hand == [4, 1, 3]  # keeps the winning tile, draws two more
    assert len(game.bag) == TILE_COUNT - 3  # the others went back
    with pytest.raises(GameError):
        game.choose_starter()


def test_turn_order_is_clockwise_from_the_starter_and_illegal_turns_change_nothing():
    bag = ScriptedBag([1, 6, 5, 5, 2, 2])
    game = Game(["Ann", "Ben"], random.Random(1), bag=bag)
    assert game.choose_starter().name == "Ben"
    assert game.begin_turn() == [6, 5, 5]
    bad = game.play({"G8": 6, "F8": 5, "E8": 5})
    assert not bad.legal and game.board.count == 0 and game.seat.name == "Ben"
    good = game.play({"H8": 6, "H7": 5, "G7": 5})
    assert good.legal and game.seat.name == "Ann"
    assert game.seats[1].sheet.total == (1 + 2) * 2
    assert game.begin_turn() == [2, 2]


def test_carry_over_rules():
    game = Game(["Ann", "Ben"], random.Random(3))
    game.choose_starter()
    game.board = Board({"H8": 6, "H7": 5, "G7": 5, "G8": 5})  # takes at most a 2
    seat = game.seat
    # two or more tiles, one placeable: no draw
    seat.hand = [1, 6]
    game._turn_open = False
    assert game.begin_turn() == [1, 6]
    # one tile: draw one
    seat.hand = [6]
    game._turn_open = False
    assert len(game.begin_turn()) == 2
    # two tiles, none placeable: draw one
    seat.hand = [6, 6]
    game._turn_open = False
    assert len(game.begin_turn()) == 3
    # empty hand: draw two
    seat.hand = []
    game._turn_open = False
    assert len(game.begin_turn()) == 2


class FixedBag(Bag):
    """A bag that holds exactly ``tiles`` and hands them out in that order."""

    def __init__(self, tiles):
        super().__init__(random.Random(0), tiles)

    def draw(self):
        return self._tiles.pop(0)


def test_drawing_the_last_tile_ends_the_game_after_that_turn():
    game = Game(["Ann", "Ben"], random.Random(2), bag=FixedBag([1, 6, 5, 5, 1, 1, 1]))
    assert game.choose_starter().name == "Ben"  # Ann's 1 goes back into the bag
    game.play({"H8": 6, "H7": 5, "G7": 5})
    assert game.begin_turn() == [1, 1] and not game.over
    game.play({"G8": 1, "F8": 1})
    assert game.begin_turn() == [1, 1]  # Ben draws the last tiles
    assert len(game.bag) == 0 and not game.over
    result = game.play({"I8": 1, "J8": 1})
    assert result.points[10] == 1  # row F8..J8 = 10: he finishes his turn normally
    assert game.over and not game.blocked
    assert [s.sheet.minus for s in game.seats] == [0, 0]
    with pytest.raises(GameError):
        game.begin_turn()


def test_blocked_game_deals_the_bag_out_as_minus_points():
    """No cell takes more than a 2 and only fives and sixes are left: nobody can ever
    place again, so the bag is drawn in turn and counts against whoever drew it."""
    game = Game(["Ann", "Ben"], random.Random(0), bag=FixedBag([6, 5, 6, 6, 6, 6, 6, 6]))
    assert game.choose_starter().name == "Ann"
    assert game.seat.hand == [6, 6, 6]
    game.board = Board({"H8": 6, "H7": 5, "G7": 5, "G8": 5})
    result = game.play({})
    assert result.legal  # nothing can be placed: the turn passes
    assert game.over and game.blocked and len(game.bag) == 0
    ann, ben = game.seats
    assert ben.hand == [6, 6, 5] and ann.hand == [6, 6, 6, 6, 6]
    assert (ann.sheet.minus, ben.sheet.minus) == (30, 17)
    assert ann.sheet.total == -30


def test_team_seat_draws_two_tiles_per_member():
    game = Game([Seat("Red", members=2), Seat("Blue", members=2)], random.Random(5))
    game.choose_starter()
    hand = game.begin_turn()
    assert len(hand) == 3  # the starting turn is three tiles, as for a player
    game.play(legal_placements(game.board, hand)[0])
    assert len(game.begin_turn()) == 4  # the other team: two per member


def test_record_of_a_finished_game_has_minus_and_hands():
    from zatre_vision.simulate import Simulation

    game = Simulation(["Ann", "Ben"], 11).run()
    record = game.to_record()
    assert game.over and record["minus"] == {s.name: s.sheet.minus for s in game.seats}
    assert all(set(t) == {"player", "placed", "hand"} for t in record["turns"])
