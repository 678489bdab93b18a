"""holdings.turn_hand: the whole hand of a turn, only when the rules leave no choice."""

from zatre_vision.rules.holdings import EMPTY, Holding, after_turn, allowance, turn_hand

ALL = {1, 2, 3, 4, 5, 6}


def test_a_declared_hand_is_the_hand_only_when_it_fits():
    allow = allowance(EMPTY, ALL, opens=False)
    assert turn_hand(allow, [6, 4], [4]) == (4, 6)
    assert turn_hand(allow, [1, 2, 3], [1], fits=False) is None


def test_a_full_draw_all_placed_is_the_whole_hand():
    assert turn_hand(allowance(EMPTY, ALL, opens=True), None, [6, 5, 5]) == (5, 5, 6)
    assert turn_hand(allowance(EMPTY, ALL, opens=False), None, [4, 2]) == (2, 4)
    # part of the draw kept back, never declared: unknown
    assert turn_hand(allowance(EMPTY, ALL, opens=False), None, [4]) is None
    # a team seat draws four: two placed do not show the hand
    team = allowance(EMPTY, ALL, opens=False, members=2)
    assert team.most == 4 and turn_hand(team, None, [4, 2]) is None
    assert turn_hand(team, None, [4, 2, 1, 1]) == (1, 1, 2, 4)


def test_known_leftovers_give_the_hand_by_rule_6():
    started = {"started": True}
    # two or more held, one placeable: nothing drawn, the hand is what was kept
    two = allowance(Holding((3, 6), 2, **started), {3}, opens=False)
    assert turn_hand(two, None, [3]) == (3, 6)
    # one held: one drawn, shown when the turn places a tile not held
    one = allowance(Holding((3,), 1, **started), ALL, opens=False)
    assert turn_hand(one, None, [3, 2]) == (2, 3)
    assert turn_hand(one, None, [2]) == (2, 3)
    assert turn_hand(one, None, [3]) is None  # the drawn tile not shown
    # tiles placed beyond those kept and the draw: no hand is believed
    assert turn_hand(one, None, [2, 4]) is None
    # only a bound on what was kept: the hand is known when the turn places the bound
    bound = allowance(Holding(None, 1, **started), ALL, opens=False)
    assert bound.most == 2 and turn_hand(bound, None, [1, 2]) == (1, 2)
    assert turn_hand(bound, None, [1]) is None


def test_a_refused_turns_tiles_are_the_retrys_hand():
    allow = allowance(EMPTY, ALL, opens=False)
    held = after_turn(allow, None, [1, 2], applied=False, fits=True)  # undeclared, refused
    assert held == Holding((1, 2), 2, started=True, open=True)
    retry = allowance(held, ALL, opens=False)
    assert retry.most == 2 and turn_hand(retry, None, [1]) == (1, 2)


def test_after_turn_keeps_the_leftover_of_a_hand_known_by_the_rules():
    one = allowance(Holding((3,), 1, started=True), ALL, opens=False)
    # undeclared: kept 3, drew one, placed only the tile drawn: 3 is still held
    assert after_turn(one, None, [2], applied=True, fits=True).tiles == (3,)
    # the drawn tile not shown: only the count is known
    after = after_turn(one, None, [3], applied=True, fits=True)
    assert after.tiles is None and after.most == 1
