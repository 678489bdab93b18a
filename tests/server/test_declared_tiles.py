"""Declared held tiles name their player and turn, and a hand the player cannot have
held is refused with one reason (issue 39, item 4): declared while Erik was to play,
tiles once went to Fiona's first turn and raised two contradictory alerts."""

import pytest

from zatre_vision.match import Match, MatchError
from zatre_vision.rules.record import score_record
from zatre_vision.server.pages import board_cells

FIRST = {"H8": 6, "H7": 5, "G7": 5}


def test_first_turn_hand_of_five_is_one_wrong_draw_reason():
    """rules.md rule 1: the first turn is three tiles on H8, so a five-tile hand is
    the only fault; no 'could have placed 4' nor a light-cell verdict built on it."""
    out = score_record({"players": ["Ann", "Ben"],
                        "turns": [{"player": "Ann", "placed": FIRST, "hand": [6, 5, 5, 1, 2]}]})
    violations = out["turns"][0]["violations"]
    assert [v["code"] for v in violations] == ["wrong-draw"]
    assert "can hold at most 3" in violations[0]["message"]


def test_first_turn_never_asks_for_a_fourth_tile():
    """A three-tile first hand placed whole is legal: rule 5 never asks for more."""
    out = score_record({"players": ["Ann", "Ben"],
                        "turns": [{"player": "Ann", "placed": FIRST, "hand": [5, 5, 6]}]})
    assert out["turns"][0]["legal"]


def test_declared_tiles_go_to_the_named_turn_and_player():
    m = Match(["Erik", "Fiona"], "Fiona")
    m.propose(FIRST)                       # turn 1: Fiona
    m.propose({"G8": 5})                   # turn 2: Erik places one of two
    assert m.current_player == "Fiona"
    assert m.declare_held([6], "Erik", 2) == 2
    assert m.turns[1].hand == (5, 6) and m.turns[0].hand is None


def test_impossible_hand_is_refused_with_one_reason_and_changes_nothing():
    m = Match(["Erik", "Fiona"], "Fiona")
    m.propose(FIRST)
    with pytest.raises(MatchError) as err:
        m.declare_held([1, 2], "Fiona", 1)
    assert str(err.value).startswith("Fiona cannot have kept back 1 2 in turn 1:")
    assert "can hold at most 3" in str(err.value)
    assert m.turns[0].hand is None and not m.state()["alerts"]


def test_turn_and_player_must_agree():
    m = Match(["Erik", "Fiona"], "Fiona")
    m.propose(FIRST)
    with pytest.raises(MatchError, match="turn 1 was Fiona's, not Erik's"):
        m.declare_held([6], "Erik", 1)
    with pytest.raises(MatchError, match="no turn 4"):
        m.declare_held([6], None, 4)


def test_held_route_refuses_an_impossible_hand_in_one_line(operator, playing):
    r = operator.post_json("/table/held", {"tiles": "1 2", "turn": 1})
    assert r.status_code == 409
    assert r.get_json()["error"].startswith("Ann cannot have kept back 1 2 in turn 1")
    assert operator.get("/api/state").get_json()["alerts"] == []


def test_h8_is_drawn_as_start_and_light_cell():
    """rules.md: 'H8 is red and is also a light cell'."""
    cells = {c["name"]: c for c in board_cells()}
    assert cells["H8"]["kind"] == "start" and cells["H8"]["light"]
    assert cells["G7"]["light"] and not cells["H7"]["light"]
    assert sum(c["light"] for c in cells.values()) == 33
