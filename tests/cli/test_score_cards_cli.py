"""`zatre score` with a card-game record ("variant": "cards")."""

import json

import pytest

from zatre_vision.cards.simulate import CardSimulation

CARD_EXAMPLE = {
    "variant": "cards",
    "players": ["Ann", "Ben"],
    "turns": [
        {"player": "Ann", "placed": {"0,0": 6, "1,0": 4}, "hand": [6, 4, 0, 2]},
        {"player": "Ben", "placed": {"2,0": 0}},
        {"player": "Ann", "placed": {"-1,0": 1}},
        {"player": "Ben", "placed": {}},
        {"player": "Ann", "placed": {"1,1": 6}, "hand": [0, 6, 2]},
        {"player": "Ben", "placed": {}, "hand": [5, 5, 3]},
    ],
}


def write(tmp_path, obj, name="cards.json"):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


def test_card_record_is_replayed_by_the_card_engine(zatre, tmp_path):
    """Ann lays 6 4 (10: 1 point). Ben adds a zero: 6 4 0 is still 10 (1 point). Ann
    puts a 1 in front: 1 6 4 0 = 11 (3 points). Ben passes (nothing placed: Ann plays
    next; issue 42 checks the turn order). Ann then lays a 6 under the 4 while
    holding a 0: column 4 + 6 = 10 (1 point; the hand has 3 cards, fine). Ben shows
    5 5 3: the 3 fits under the zero (0 + 3), so showing is tile-not-placed."""
    proc = zatre("score", write(tmp_path, CARD_EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["variant"] == "cards"
    first = out["turns"][0]
    assert first == {
        "player": "Ann", "placed": {"0,0": 6, "1,0": 4}, "legal": True, "violations": [],
        "lines": [{"cells": ["0,0", "1,0"], "sum": 10}],
        "points": {"10": 1, "11": 0, "12": 0}, "crosses": 0, "super_bonus": 0, "round": 1,
        "hand": [6, 4, 0, 2],
    }
    assert out["turns"][1]["points"] == {"10": 1, "11": 0, "12": 0}
    assert out["turns"][2]["lines"] == [{"cells": ["-1,0", "0,0", "1,0", "2,0"], "sum": 11}]
    assert out["turns"][3]["legal"] and out["turns"][4]["points"] == {"10": 1, "11": 0, "12": 0}
    ben = out["turns"][5]
    assert ben["legal"] is False and [v["code"] for v in ben["violations"]] == ["tile-not-placed"]
    assert out["sheets"]["Ann"] == {
        "rows": [{"x2": False, "10": 1, "11": 3, "12": None, "bonus": 0, "total": 4},
                 {"x2": False, "10": 1, "11": None, "12": None, "bonus": 0, "total": 1}],
        "super_bonus": [], "minus": 0, "total": 5}
    assert out["sheets"]["Ben"]["total"] == 1
    assert out["board"] == {"-1,0": 1, "0,0": 6, "1,0": 4, "2,0": 0, "1,1": 6}
    assert out["rounds"] == [out["board"]]


def test_illegal_card_turns_are_reported_and_skipped(zatre, tmp_path):
    record = {"variant": "cards", "players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": {"0,0": 6, "1,0": 4}},
        {"player": "Ben", "placed": {"2,0": 3}},
        {"player": "Ben", "placed": {"2,0": 1, "3,0": 1}},
        {"player": "Ben", "placed": {"5,5": 1}},
        {"player": "Ben", "placed": {"2,0": 2}},
    ]}
    out = json.loads(zatre("score", write(tmp_path, record)).stdout)
    assert [[v["code"] for v in t["violations"]] for t in out["turns"]] == [
        [], ["line-over-12"], ["wrong-card-count"], ["not-connected"], []]
    assert out["sheets"]["Ben"]["total"] == 5  # 6 4 2 = 12


def test_a_round_ends_when_its_25_cards_are_laid_out(zatre, tmp_path):
    game = CardSimulation(["Ann", "Ben", "Cid"], 3, ["greedy", "random", "greedy"]).run()
    record = game.to_record()
    proc = zatre("score", write(tmp_path, record))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert all(t["legal"] for t in out["turns"])
    assert [len(r) for r in out["rounds"]] == [25, 25, 25]
    assert {p: s["total"] for p, s in out["sheets"].items()} == game.totals()
    for turn in record["turns"]:  # the round field is optional: the 25-card count decides
        del turn["round"]
    again = json.loads(zatre("score", write(tmp_path, record, "noround.json")).stdout)
    assert again["sheets"] == out["sheets"]


def test_board_records_are_unchanged_and_variant_board_is_the_default(zatre, tmp_path):
    board = {"players": ["Ann"], "turns": [{"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}}]}
    plain = json.loads(zatre("score", write(tmp_path, board)).stdout)
    named = json.loads(zatre("score", write(tmp_path, {**board, "variant": "board"}, "b.json")).stdout)
    assert plain == named and "variant" not in plain and "super_bonus" not in plain["turns"][0]


def cards(turns, **extra):
    return {"variant": "cards", "players": ["Ann", "Ben"], "turns": turns, **extra}


BAD_CARD_INPUTS = {
    "board cell name": (cards([{"player": "Ann", "placed": {"H8": 3}}]),
                        "'H8' is not a card position"),
    "spaces in position": (cards([{"player": "Ann", "placed": {"1, 2": 3}}]),
                           "not a card position"),
    "value 1.5": (cards([{"player": "Ann", "placed": {"0,0": 1.5}}]), "not a card value (0 to 6)"),
    "value as string": (cards([{"player": "Ann", "placed": {"0,0": "6"}}]), "not a card value"),
    "hand value": (cards([{"player": "Ann", "placed": {}, "hand": [9]}]), "'hand' must be"),
    "placed not in hand": (cards([{"player": "Ann", "placed": {"0,0": 6, "1,0": 1},
                                   "hand": [6, 2, 2]}]), "not in 'hand'"),
    "unknown player": (cards([{"player": "Zed", "placed": {}}]), "unknown player"),
    "five players": ({"variant": "cards", "players": list("ABCDE"), "turns": []}, "1 to 4 names"),
    "minus": (cards([], minus={"Ann": 3}), "'minus' has no meaning"),
    "round 3 of 2": (cards([{"player": "Ann", "placed": {}, "round": 3}]), "from 1 to 2"),
    "round goes back": (cards([{"player": "Ann", "placed": {}, "round": 2},
                               {"player": "Ben", "placed": {}, "round": 1}]), "comes after"),
    "unknown variant": ({"variant": "dice", "players": ["Ann"], "turns": []}, "unknown 'variant'"),
}


@pytest.mark.parametrize("case", sorted(BAD_CARD_INPUTS))
def test_bad_card_records_exit_2_with_one_line(zatre, tmp_path, case):
    content, expected = BAD_CARD_INPUTS[case]
    proc = zatre("score", write(tmp_path, content))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert expected in lines[0]
    assert "Traceback" not in proc.stderr


def test_turns_beyond_the_last_round_are_bad_input(zatre, tmp_path):
    game = CardSimulation(["Ann"], 1).run()
    record = game.to_record()
    record["turns"].append({"player": "Ann", "placed": {"0,0": 1, "1,0": 1}})
    proc = zatre("score", write(tmp_path, record))
    assert proc.returncode == 2 and "game is over after 1 round" in proc.stderr


def test_a_whole_number_outside_the_card_set_is_the_violation_bad_tile(zatre, tmp_path):
    record = cards([{"player": "Ann", "placed": {"0,0": 7, "1,0": 3}},
                    {"player": "Ben", "placed": {"0,0": 6, "1,0": 4}}])
    proc = zatre("score", write(tmp_path, record))
    assert proc.returncode == 0, proc.stderr
    turns = json.loads(proc.stdout)["turns"]
    assert "bad-tile" in [v["code"] for v in turns[0]["violations"]]
    assert turns[0]["legal"] is False and turns[1]["legal"] is True
