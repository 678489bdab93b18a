"""`zatre score GAME.json` as in contracts.md, bad input included."""

import json

import pytest

from zatre_vision.simulate import Simulation

CONTRACT_EXAMPLE = {
    "players": ["Ann", "Ben"],
    "turns": [
        {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}},
        {"player": "Ben", "placed": {"I8": 4}, "hand": [4, 6]},
    ],
    "minus": {"Ann": 0, "Ben": 5},
}


def write(tmp_path, obj, name="game.json"):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


def test_contract_example(zatre, tmp_path):
    proc = zatre("score", write(tmp_path, CONTRACT_EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    first = out["turns"][0]
    assert first == {
        "player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}, "legal": True, "violations": [],
        "lines": [{"cells": ["G7", "H7"], "sum": 10}, {"cells": ["H7", "H8"], "sum": 11}],
        "points": {"10": 1, "11": 2, "12": 0}, "crosses": 2,
    }
    assert out["sheets"]["Ann"] == {
        "rows": [{"x2": True, "10": 1, "11": 2, "12": None, "bonus": 0, "total": 6},
                 {"x2": True, "10": None, "11": None, "12": None, "bonus": 0, "total": 0}],
        "minus": 0, "total": 6}
    ben = out["turns"][1]
    # Ben holds [4, 6]: 4 on I8 makes a 10 (H8-I8); the 6 could still go on G6 (G6-G7 = 11)
    assert ben["legal"] is False
    assert [v["code"] for v in ben["violations"]] == ["tile-not-placed"]
    assert out["sheets"]["Ben"] == {"rows": [], "minus": 5, "total": -5}


def test_illegal_turn_is_reported_and_skipped(zatre, tmp_path):
    record = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}},
        {"player": "Ben", "placed": {"H6": 4}},
        {"player": "Ben", "placed": {"G6": 6}},
    ]}
    out = json.loads(zatre("score", write(tmp_path, record)).stdout)
    bad = out["turns"][1]
    assert bad["legal"] is False
    assert bad["violations"][0]["code"] == "line-over-12"
    assert bad["violations"][0]["cells"] == ["H6", "H7", "H8"]
    assert bad["points"] == {"10": 0, "11": 0, "12": 0}
    assert out["turns"][2]["legal"] is True  # replay goes on; H6 stayed empty
    assert "H6" not in out["board"] and out["board"]["G6"] == 6
    assert out["sheets"]["Ben"]["total"] == 2  # only G6-G7 = 11 counts


def test_simulated_game_record_replays_with_no_violation(zatre, tmp_path):
    game = Simulation(["Ann", "Ben", "Cid"], 5).run()
    proc = zatre("score", write(tmp_path, game.to_record()))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert all(t["legal"] for t in out["turns"]), [t for t in out["turns"] if not t["legal"]][:1]
    for seat in game.seats:
        assert out["sheets"][seat.name]["total"] == seat.sheet.total


def test_wrong_draw_is_flagged_when_hands_are_known(zatre, tmp_path):
    record = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}, "hand": [6, 5, 5]},
        {"player": "Ben", "placed": {"G8": 1, "F8": 1, "E8": 1}, "hand": [1, 1, 1]},
        {"player": "Ann", "placed": {"D8": 1}, "hand": [1, 6]},
    ]}
    out = json.loads(zatre("score", write(tmp_path, record)).stdout)
    assert out["turns"][0]["legal"] is True
    assert [v["code"] for v in out["turns"][1]["violations"]] == ["wrong-draw"]
    assert "can hold at most 2" in out["turns"][1]["violations"][0]["message"]


def test_a_five_tile_hand_on_the_first_turn_is_one_reason(zatre, tmp_path):
    """Issue 39: not "3 of 5 placed, but 4 could have been" beside the wrong draw; the
    first turn is three tiles on H8 (rules.md rule 1)."""
    record = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}, "hand": [6, 5, 5, 1, 2]}]}
    proc = zatre("score", write(tmp_path, record))
    assert proc.returncode == 0, proc.stderr
    violations = json.loads(proc.stdout)["turns"][0]["violations"]
    assert [v["code"] for v in violations] == ["wrong-draw"]
    assert violations[0]["message"].startswith("5 tiles in hand, but the player can hold at most 3")


BAD_INPUTS = {
    "malformed JSON": ('{"players": ["Ann"', "not valid JSON"),
    "not an object": ("[1, 2]", "JSON object"),
    "missing turns": ({"players": ["Ann"]}, "missing field 'turns'"),
    "missing placed": ({"players": ["Ann"], "turns": [{"player": "Ann"}]}, "missing field 'placed'"),
    "unknown player": ({"players": ["Ann"], "turns": [{"player": "Zed", "placed": {}}]},
                       "unknown player"),
    "cell Z99": ({"players": ["Ann"], "turns": [{"player": "Ann", "placed": {"Z99": 3}}]},
                 "'Z99' is not a cell name"),
    "value 1.5": ({"players": ["Ann"], "turns": [{"player": "Ann", "placed": {"H8": 1.5}}]},
                  "not a tile value"),
    "value true": ({"players": ["Ann"], "turns": [{"player": "Ann", "placed": {"H8": True}}]},
                   "not a tile value"),
    "value as string": ({"players": ["Ann"], "turns": [{"player": "Ann", "placed": {"H8": "6"}}]},
                        "not a tile value"),
    "minus unknown player": ({"players": ["Ann"], "turns": [], "minus": {"Bob": 3}},
                             "unknown player"),
    "negative minus": ({"players": ["Ann"], "turns": [], "minus": {"Ann": -3}}, "at least 0"),
    "teams of three (issue 42)": ({"players": ["A", "B"], "teams": {"A": 3, "B": 3},
                                   "turns": []}, "a team has 2 partners"),
    "a team and a single player": ({"players": ["A", "B"], "teams": {"A": 2}, "turns": []},
                                   "B in no team"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_exits_2_with_one_line(zatre, tmp_path, case):
    content, expected = BAD_INPUTS[case]
    proc = zatre("score", write(tmp_path, content))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert expected in lines[0]
    assert "Traceback" not in proc.stderr


def test_missing_file_and_missing_argument(zatre, tmp_path):
    proc = zatre("score", str(tmp_path / "nope.json"))
    assert proc.returncode == 2 and "no such file" in proc.stderr
    proc = zatre("score")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_gap_cell_is_a_violation_not_an_input_error(zatre, tmp_path):
    record = {"players": ["Ann"], "turns": [{"player": "Ann", "placed": {"H8": 6, "H1": 2}}]}
    proc = zatre("score", write(tmp_path, record))
    assert proc.returncode == 0
    codes = [v["code"] for v in json.loads(proc.stdout)["turns"][0]["violations"]]
    assert "cell-missing" in codes


def test_stdin_input(zatre):
    proc = zatre("score", "-", input=json.dumps(CONTRACT_EXAMPLE))
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["sheets"]["Ann"]["total"] == 6


@pytest.mark.parametrize("value", [0, 7, -3, 10 ** 30])
def test_a_whole_number_outside_1_to_6_is_the_violation_bad_tile(zatre, tmp_path, value):
    """contracts.md lists bad-tile among the violation codes: such a turn is reported and
    skipped, and the replay goes on."""
    game = tmp_path / "g.json"
    game.write_text(json.dumps({"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": {"H8": 6, "H7": value}, "hand": [6, 5, 5]},
        {"player": "Ben", "placed": {"H8": 6, "H7": 5, "G7": 5}}]}))
    r = zatre("score", str(game))
    assert r.returncode == 0, r.stderr
    turns = json.loads(r.stdout)["turns"]
    assert turns[0]["legal"] is False
    assert [v["code"] for v in turns[0]["violations"]] == ["bad-tile"]
    assert turns[0]["violations"][0]["cells"] == ["H7"]
    assert turns[1]["legal"] is True  # the bad turn was not applied


def test_a_tile_not_in_the_hand_is_that_turns_violation_and_the_rest_is_scored(zatre, tmp_path):
    """Issue 54: such a record was refused whole (exit 2). Now the turn is flagged
    tile-not-in-hand and refused, its tiles go back to the hand (the player plays again,
    drawing nothing), and every other turn is scored."""
    record = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}, "hand": [5, 5, 6]},
        {"player": "Ben", "placed": {"G8": 3}, "hand": [2, 4]},
        {"player": "Ben", "placed": {"G8": 4, "G9": 2}, "hand": [2, 4]}]}
    proc = zatre("score", write(tmp_path, record))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    turns = out["turns"]
    assert [t["legal"] for t in turns] == [True, False, True]
    assert [(v["code"], v["cells"]) for v in turns[1]["violations"]] == [
        ("tile-not-in-hand", ["G8"])]
    assert turns[2]["points"] == {"10": 1, "11": 2, "12": 0} and turns[2]["crosses"] == 1
    # G8-H8 is 10, G7-G8-G9 is 11, G9 a light cell: (1 + 2) x 2
    assert out["sheets"]["Ben"]["total"] == 6 and out["sheets"]["Ann"]["total"] == 6
    # the holdings rule: after the refusal Ben plays again with the same two tiles; a
    # third tile on that retry is more than he can hold
    record["turns"][2] = {"player": "Ben", "placed": {"G8": 4, "G9": 2, "I9": 1}}
    turns = json.loads(zatre("score", write(tmp_path, record)).stdout)["turns"]
    assert "wrong-draw" in [v["code"] for v in turns[2]["violations"]]
