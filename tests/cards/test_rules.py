"""The card game (BrettspielWelt "Zatre-Kartenspiel"): each rule with a worked example.

Positions are ``"x,y"``: x to the right, y downwards. Pictures in the docstrings show
the layout with ``.`` for an empty position; ``[n]`` marks the card laid this turn.
"""

import json
import random
from collections import Counter
from importlib import resources
from itertools import product

import pytest

from zatre_vision.cards.game import CardGame
from zatre_vision.cards.rules import (
    CARD_RULES,
    CardLayout,
    CardSheet,
    PositionError,
    check_card_turn,
    legal_card_moves,
    load_card_rules,
    parse_position,
    position_name,
)
from zatre_vision.rules.sheet import ScoreSheet, printed_bonus

DIAGONALS = CARD_RULES.with_directions([(1, 0), (0, 1), (1, 1), (1, -1)])


def codes(result):
    return [v.code for v in result.violations]


# -- the data file --------------------------------------------------------------------------


@pytest.mark.parametrize("players", [["Ann", "Ben"], ["Ann", "Ben", "Cid", "Dora"]])
def test_the_deck_is_50_cards_with_zeros_and_the_assumption_is_stated(players):
    """Seed 003: "All 50 cards are shuffled. 25 cards are required for the first
    round." The mix is not public: the data file names its assumption (8 zeros and
    7 each of 1 to 6) in its note, and so does the module doc. What a game deals is
    that deck: all 50 cards, 25 to the first round (hands and stack) and 25 set aside,
    shuffled anew for each game. (The hands of 4, 3 and 2 are dealt and played in
    test_game; rows of 10, 11 and 12 scoring 1, 3 and 5 and the super bonus of 6 are
    scored in the super bonus tests below.)"""
    orders = set()
    for seed in range(4):
        game = CardGame(players, random.Random(seed))
        hands = [v for seat in game.seats for v in seat.hand]
        assert len(hands) + len(game.stack) == 25 and len(game.set_aside) == 25
        assert Counter(hands + game.stack + game.set_aside) == {
            0: 8, 1: 7, 2: 7, 3: 7, 4: 7, 5: 7, 6: 7}
        orders.add(tuple(hands + game.stack + game.set_aside))
    assert len(orders) == 4
    assert "ASSUMPTION" in CARD_RULES.note and "8 zeros" in CARD_RULES.note
    # a zero is a card, a 7 is none: the values a turn may lay are 0 to 6
    assert CARD_RULES.value_range() == "0 to 6"
    assert [v for v in range(-1, 9) if CARD_RULES.is_card(v)] == list(range(7))


def test_a_club_corrects_the_data_file_and_bad_files_are_refused():
    data = json.loads((resources.files("zatre_vision.cards") / "cards_data.json")
                      .read_text(encoding="utf-8"))
    data["cards"] = {"0": 10, "1": 8, "2": 8, "3": 8, "4": 8, "5": 8}
    data["printed_bonus"] = [2, 2, 2]
    rules = load_card_rules(json.dumps(data))
    assert rules.deck_size == 50 and rules.values == (0, 1, 2, 3, 4, 5)
    assert not rules.is_card(6)
    assert [rules.bonus(r) for r in (1, 3, 4)] == [2, 2, 0]
    data["line_points"] = {"9": 1}
    with pytest.raises(ValueError, match="line_points"):
        load_card_rules(json.dumps(data))
    with pytest.raises(ValueError, match="missing or malformed"):
        load_card_rules("{}")


# -- positions --------------------------------------------------------------------------------


def test_positions_are_unbounded_x_y_pairs():
    """No board cells: any whole-number pair is a position, negative ones too."""
    assert parse_position("0,0") == (0, 0)
    assert parse_position("-12,305") == (-12, 305)
    assert position_name((-3, 4)) == "-3,4"
    for bad in ("H8", "1, 2", "01,2", "1,2,3", "+1,2", "-0,1", "", "1;2", 3):
        with pytest.raises(PositionError, match="not a card position"):
            parse_position(bad)


def test_first_card_may_go_anywhere_and_far_positions_are_fine():
    """There is no start cell: the round's first two cards may lie anywhere."""
    r = check_card_turn(CardLayout(), {"-40,1000": 6, "-39,1000": 6})
    assert r.legal and r.points[12] == 5


# -- laying cards -----------------------------------------------------------------------------------


def test_first_turn_lays_two_touching_cards_later_turns_one():
    """Seed 003: "In each turn, the active player places one card. Exception: In the
    first turn, the starting player places 2 cards." and "All cards must be connected
    to cards already on display. Exception: Starting card".

        first turn  6 4      (touching: one line of 10, 1 point)
        later       6 4 [0]  one card, touching
    """
    first = check_card_turn(CardLayout(), {"0,0": 6, "1,0": 4})
    assert first.legal and first.points == {10: 1, 11: 0, 12: 0}
    assert codes(check_card_turn(CardLayout(), {"0,0": 6})) == ["wrong-card-count"]
    assert codes(check_card_turn(CardLayout(), {"0,0": 6, "2,0": 4})) == ["not-connected"]
    assert codes(check_card_turn(CardLayout(), {"0,0": 1, "1,0": 1, "2,0": 1})) == [
        "wrong-card-count"]
    layout = CardLayout({"0,0": 6, "1,0": 4})
    assert check_card_turn(layout, {"2,0": 0}).legal
    r = check_card_turn(layout, {"2,0": 1, "0,1": 1})
    assert codes(r) == ["wrong-card-count"]
    assert codes(check_card_turn(layout, {"3,0": 1})) == ["not-connected"]
    assert codes(check_card_turn(layout, {"1,1": 1, "1,0": 2})) == [
        "cell-occupied", "wrong-card-count"]
    diagonal_only = check_card_turn(layout, {"2,1": 1})
    assert codes(diagonal_only) == ["not-connected"]  # corners do not connect


def test_no_line_over_12_and_low_lines_are_allowed_but_score_nothing():
    """Seed 003: "A line with a total of 13 or more is not allowed. You can make a line
    of 9 points or less, however, they will not score."

        6 4 [3]  -> 13: line-over-12
        6 4      below 4: [2] -> column 4+2 = 6, no points
    """
    layout = CardLayout({"0,0": 6, "1,0": 4})
    r = check_card_turn(layout, {"2,0": 3})
    assert codes(r) == ["line-over-12"]
    assert r.violations[0].cells == ("0,0", "1,0", "2,0")
    assert "13" in r.violations[0].message
    low = check_card_turn(layout, {"1,1": 2})
    assert low.legal and low.total_points == 0
    assert [(line.cells, line.sum) for line in low.lines] == [(("1,0", "1,1"), 6)]


def test_bad_cards_and_too_many_of_a_value():
    layout = CardLayout({"0,0": 6, "1,0": 4})
    assert codes(check_card_turn(layout, {"2,0": 7})) == ["bad-tile"]
    assert "0 to 6" in check_card_turn(layout, {"2,0": -1}).violations[0].message
    assert codes(check_card_turn(layout, {"2,0": True})) == ["bad-tile"]
    sixes = CardLayout({f"{x},{y}": 6 for x in range(0, 6, 2) for y in range(0, 4, 2)})
    # six 6s on the table, one laid, one kept back in hand: 8 > 7
    r = check_card_turn(sixes, {"1,0": 0}, hand=[0, 6, 6])
    assert codes(r) == ["too-many-tiles"] and "deck has only 7" in r.violations[0].message


# -- zeros -------------------------------------------------------------------------------------------


def test_a_zero_continues_a_line_and_several_zeros_are_allowed():
    """Seed 003: "The zero is part of a series, i.e. the zero does not end a series!
    Multiple zeros in a row are also possible and permitted."

        6 0 0 [4]   one line: 6 + 0 + 0 + 4 = 10 -> 1 point
    """
    layout = CardLayout({"0,0": 6, "1,0": 0, "2,0": 0})
    r = check_card_turn(layout, {"3,0": 4})
    assert r.legal
    assert [(line.cells, line.sum) for line in r.lines] == [(("0,0", "1,0", "2,0", "3,0"), 10)]
    assert r.points == {10: 1, 11: 0, 12: 0}


def test_a_zero_joins_two_lines_when_their_total_stays_at_12():
    """Seed 003: "A zero can connect two rows if the sums of the two rows do not add
    up to more than twelve."

        5 2 [0] 4 1      5+2 = 7 and 4+1 = 5 join into 12 -> 5 points
          1  1  2        (the zero's column 0+1 = 1 scores nothing)

    With a 2 instead of the 1 on the right, 7 + 6 = 13: even a zero may not join them.
    """
    layout = {"0,0": 5, "1,0": 2, "3,0": 4, "4,0": 1, "1,1": 1, "2,1": 1, "3,1": 2}
    r = check_card_turn(CardLayout(layout), {"2,0": 0})
    assert r.legal
    assert [(line.cells, line.sum) for line in r.lines] == [
        (("0,0", "1,0", "2,0", "3,0", "4,0"), 12), (("2,0", "2,1"), 1)]
    assert r.points == {10: 0, 11: 0, 12: 5}
    over = check_card_turn(CardLayout({**layout, "4,0": 2}), {"2,0": 0})
    assert codes(over) == ["line-over-12"]
    assert over.violations[0].cells == ("0,0", "1,0", "2,0", "3,0", "4,0")


def test_a_zero_at_the_end_of_a_12_scores_it_again():
    """Our reading (module doc): a line through a card of this turn that sums to 10,
    11 or 12 scores, as in the board game when a line is extended. A zero adds a card
    but no pips, so 6 6 [0] is a new 12 for the player who lays the zero."""
    r = check_card_turn(CardLayout({"0,0": 6, "1,0": 6}), {"2,0": 0})
    assert r.legal and r.points == {10: 0, 11: 0, 12: 5}


# -- scoring --------------------------------------------------------------------------------------------


def test_10_11_12_score_1_3_5_and_equal_sums_share_one_box():
    """Seed 003: "a row of 10 ... 1 point, a row of 11 ... 3 and for a row of 12 5
    points", and "two 5 points = 10 points in the top free box of column 12".

        6 6          [6] below the first 6 and a 6 under the second:
        . 6    ->    [6] at 0,1 makes 6+6 (column) = 12 and 6+6 (row) = 12
    """
    layout = CardLayout({"0,0": 6, "1,0": 6, "1,1": 6})
    r = check_card_turn(layout, {"0,1": 6})
    assert r.legal and r.points == {10: 0, 11: 0, 12: 10}
    eleven = check_card_turn(CardLayout({"0,0": 5, "1,0": 1}), {"2,0": 5})
    assert eleven.points == {10: 0, 11: 3, 12: 0}
    sheet = CardSheet()
    sheet.enter(r.points, super_bonus=r.super_bonus)
    sheet.enter(eleven.points)
    assert sheet.columns == {10: [], 11: [3], 12: [10]}
    assert sheet.total == 13


def test_no_x2_in_the_card_game():
    """rules.md: "no board cells, no x2". Turns never earn crosses and the sheet
    refuses them; its rows show ``x2`` false (the output keeps the board game's shape)."""
    r = check_card_turn(CardLayout(), {"0,0": 6, "0,1": 6})
    assert r.crosses == 0 and r.to_json()["crosses"] == 0
    sheet = CardSheet()
    with pytest.raises(ValueError, match="no x2"):
        sheet.enter(r.points, crosses=1)
    sheet.enter(r.points)
    assert sheet.to_json()["rows"][0]["x2"] is False


def test_bonus_rows_use_the_data_files_printed_bonus():
    """Seed 003: "For rows ... in which all three columns the 10s, 11s and 12s are
    filled in, the player receives the bonus points indicated on the sheet."
    Assumed values (data file): the board game's 3, 4, 5, 6 by blocks of four.

        row 1: 1 | 3 | 5  + bonus 3 = 12
        row 2: 1 | 3 | .  no bonus      = 4
    """
    sheet = CardSheet()
    sheet.enter({10: 1, 11: 3, 12: 5})
    sheet.enter({10: 1, 11: 3, 12: 0})
    assert [r.to_json() for r in sheet.rows()] == [
        {"x2": False, "10": 1, "11": 3, "12": 5, "bonus": 3, "total": 12},
        {"x2": False, "10": 1, "11": 3, "12": None, "bonus": 0, "total": 4},
    ]
    assert [CARD_RULES.bonus(r) for r in (1, 5, 9, 13, 16, 17)] == [3, 4, 5, 6, 6, 0]
    assert all(CARD_RULES.bonus(r) == printed_bonus(r) for r in range(1, 20))


def test_board_game_sheet_is_unchanged_by_the_bonus_hook():
    sheet = ScoreSheet.from_columns(1, [1], [2], [4])
    assert sheet.row(1).bonus == 3 and sheet.total == 20


# -- super bonus -------------------------------------------------------------------------------------------

SUPER_LAYOUT = {"0,-2": 2, "-1,-1": 2, "0,-1": 5, "1,-1": 0, "2,-1": 1, "-1,0": 6, "2,0": 1,
                "1,1": 6, "2,1": 1}


def test_super_bonus_for_10_11_and_12_made_by_one_card_with_diagonal_lines():
    """Seed 003: "If a player scores a row of 10, a row of 11 and a row of 12 by
    placing a card, he receives an additional six super bonus points."

    One card lies in at most two lines along rows and columns, so this needs a
    geometry in which a card lies in three lines: with the diagonals added
    (``line_directions``, a club's correction) the 4 on 0,0 makes

              x: -1  0  1  2
        y = -2    .  2  .  .      column   2 + 5 + 4 = 11 -> 3
        y = -1    2  5  0  1      diagonal 2 + 4 + 6 = 12 -> 5
        y =  0    6 [4] .  1      row      6 + 4     = 10 -> 1
        y =  1    .  .  6  1      anti-diagonal 4 + 0 = 4 -> 0
                                  super bonus 6: 15 points in all

    With the shipped rows-and-columns geometry the same card makes 11 and 10 only,
    and no super bonus.
    """
    r = check_card_turn(CardLayout(SUPER_LAYOUT), {"0,0": 4}, rules=DIAGONALS)
    assert r.legal
    assert [(line.cells, line.sum) for line in r.lines] == [
        (("0,-2", "0,-1", "0,0"), 11), (("-1,-1", "0,0", "1,1"), 12), (("-1,0", "0,0"), 10),
        (("0,0", "1,-1"), 4)]
    assert r.points == {10: 1, 11: 3, 12: 5} and r.super_bonus == 6
    assert r.to_json()["super_bonus"] == 6
    plain = check_card_turn(CardLayout(SUPER_LAYOUT), {"0,0": 4})
    assert [line.sum for line in plain.lines] == [11, 10]
    assert plain.points == {10: 1, 11: 3, 12: 0} and plain.super_bonus == 0


def test_super_bonus_for_three_12s_and_none_for_two():
    """Seed 003: "If a player reaches three rows of 12 by placing a card, he also gets
    six super bonus points." With diagonals, a 6 on 0,0:

              x: -1  0  1  2
        y = -1    0  6  0  0      row      6 + 6     = 12
        y =  0    6 [6] .  1      column   6 + 6     = 12
        y =  1    .  .  6  1      diagonal 0 + 6 + 6 = 12, anti-diagonal 6 + 0 = 6

    Three 12s: 15 points and a super bonus of 6. Rows and columns only: two 12s,
    10 points, no super bonus.
    """
    layout = CardLayout({"-1,-1": 0, "0,-1": 6, "1,-1": 0, "2,-1": 0, "-1,0": 6, "2,0": 1,
                         "1,1": 6, "2,1": 1})
    r = check_card_turn(layout, {"0,0": 6}, rules=DIAGONALS)
    assert r.legal and sorted(line.sum for line in r.lines) == [6, 12, 12, 12]
    assert r.points == {10: 0, 11: 0, 12: 15} and r.super_bonus == 6
    two = check_card_turn(layout, {"0,0": 6})
    assert two.points[12] == 10 and two.super_bonus == 0


def test_super_bonus_is_written_from_the_bottom_and_counts_in_the_total():
    """Seed 003: "Super bonuses received are entered from bottom to top in the last
    free rows of the scoring sheet in the total column." The sheet has 16 printed
    rows (data file): the first super bonus goes into row 16's total box, the next
    into row 15's."""
    sheet = CardSheet()
    sheet.enter({10: 1, 11: 3, 12: 5}, super_bonus=6)
    sheet.enter({10: 0, 11: 0, 12: 15}, super_bonus=6)
    out = sheet.to_json()
    assert out["super_bonus"] == [{"row": 16, "points": 6}, {"row": 15, "points": 6}]
    assert out["rows"][0]["total"] == 12 and out["rows"][1]["total"] == 15
    assert out["total"] == 12 + 15 + 12
    assert sheet.copy() == sheet and sheet.copy().total == sheet.total


def test_with_rows_and_columns_one_card_never_makes_three_lines():
    """Why the shipped geometry gives no super bonus: a card lies in one row and one
    column, and a round's first turn (two cards on an empty table) makes one line."""
    values = range(0, 7)
    for a, b, c, d in product(values, repeat=4):
        layout = CardLayout({"-1,0": a, "1,0": b, "0,-1": c, "0,1": d})
        r = check_card_turn(layout, {"0,0": 0})
        assert len(r.lines) <= 2 and r.super_bonus == 0


# -- cannot play ------------------------------------------------------------------------------------------

SQUARE_OF_SIXES = {"0,0": 6, "1,0": 6, "0,1": 6, "1,1": 6}


def test_a_player_who_cannot_play_shows_the_hand():
    """Seed 003: "a player only has cards in his hand that would require him to form
    rows of more than twelve pips. In this case, he shows his cards ... and receives
    three new cards."

        6 6       every free position next to the square extends a 12:
        6 6       only a zero fits. Hand [1, 2, 3]: nothing fits, showing is legal.
                  Hand [1, 0, 3]: the zero fits, so showing is tile-not-placed.
    """
    layout = CardLayout(SQUARE_OF_SIXES)
    assert check_card_turn(layout, {}, hand=[1, 2, 3]).legal
    shown = check_card_turn(layout, {}, hand=[1, 0, 3])
    assert codes(shown) == ["tile-not-placed"]
    assert "0 from the hand" in shown.violations[0].message
    assert legal_card_moves(layout, [1, 2, 3]) == []
    zero = check_card_turn(layout, {"2,0": 0}, hand=[1, 0, 3])
    assert zero.legal and zero.points[12] == 5
    assert check_card_turn(layout, {}).legal  # hand unknown: taken as shown


# -- legal moves --------------------------------------------------------------------------------------------


def brute_force_moves(layout, hand):
    xs = [p[0] for p in layout.cards] or [0]
    ys = [p[1] for p in layout.cards] or [0]
    out = set()
    for x in range(min(xs) - 2, max(xs) + 3):
        for y in range(min(ys) - 2, max(ys) + 3):
            for v in set(hand):
                if check_card_turn(layout, {f"{x},{y}": v}, first_turn=False).legal:
                    out.add((f"{x},{y}", v))
    return out


@pytest.mark.parametrize("layout, hand", [
    ({"0,0": 6, "1,0": 4}, [6, 0, 2]),
    (SQUARE_OF_SIXES, [0, 5]),
    ({"0,0": 5, "1,0": 2, "3,0": 4, "4,0": 2, "1,1": 1, "2,1": 1, "3,1": 2}, [0, 1, 6]),
])
def test_generated_moves_are_exactly_what_the_checker_accepts(layout, hand):
    layout = CardLayout(layout)
    moves = legal_card_moves(layout, hand)
    assert {next(iter(m.items())) for m in moves} == brute_force_moves(layout, hand)
    assert len(moves) == len({tuple(m.items()) for m in moves})


def test_first_turn_moves_use_two_cards_of_the_hand():
    moves = legal_card_moves(CardLayout(), [6, 6, 0, 3])
    assert moves and all(check_card_turn(CardLayout(), m, hand=[6, 6, 0, 3]).legal for m in moves)
    assert {"0,0": 6, "1,0": 6} in moves
    assert {"0,0": 3, "1,0": 3} not in moves  # only one 3 in the hand
    assert all(Counter(m.values()) <= Counter([6, 6, 0, 3]) for m in moves)
