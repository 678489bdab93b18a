"""`zatre analyse GAME.json`: the format in the README, bad input in one line."""

import json

from zatre_vision.simulate import Simulation


def write(tmp_path, obj, name="game.json"):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


def test_analyse_a_simulated_match(zatre, tmp_path):
    record = Simulation(["Ann", "Ben", "Cem"], 4, ["greedy", "random", "random"]).run(
        max_turns=12).to_record()
    proc = zatre("analyse", write(tmp_path, record))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["players"] == ["Ann", "Ben", "Cem"] and len(out["turns"]) == 12
    turn = out["turns"][4]
    assert turn["number"] == 5 and turn["player"] == "Ben" and turn["hand_known"] is True
    assert turn["played"]["placed"] == record["turns"][4]["placed"]
    assert turn["missed_points"] == turn["best_by_points"]["points"] - turn["played"]["points"]
    assert len(turn["alternatives"]) <= 3
    assert all(a["placed"] != turn["played"]["placed"] for a in turn["alternatives"])
    ann = out["summary"]["Ann"]
    # the greedy player takes the best move by sheet value every time
    assert ann["turns"] == 4 and ann["best_moves_by_value"] == 4 and ann["value_missed"] == 0
    assert out["summary"]["Ben"]["points_missed"] == sum(
        t["missed_points"] for t in out["turns"] if t["player"] == "Ben")


def test_bad_input_is_one_line_and_exit_2(zatre, tmp_path):
    for bad, words in (("{", "not valid JSON"),
                       ({"players": ["A"], "turns": [{"player": "B", "placed": {}}]},
                        "unknown player"),
                       ({"variant": "cards", "players": ["A", "B"], "turns": []},
                        "board game only")):
        proc = zatre("analyse", write(tmp_path, bad if isinstance(bad, str) else bad))
        assert proc.returncode == 2 and proc.stdout == ""
        assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert zatre("analyse", str(tmp_path / "missing.json")).returncode == 2


def test_the_readme_example(zatre, tmp_path):
    record = {"players": ["Ann", "Ben"], "turns": [
        {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}},
        {"player": "Ben", "placed": {"G8": 4, "G9": 2}, "hand": [2, 4]}]}
    out = json.loads(zatre("analyse", write(tmp_path, record)).stdout)
    ben = out["turns"][1]
    # played: G8-H8 = 10 (1) and G7-G8-G9 = 11 (2), the cross on light G9 doubles row 1
    assert ben["played"] == {"placed": {"G8": 4, "G9": 2}, "points": 6, "value": 11.775}
    # best: G7-H7-I7 = 12 (4) and G8-H8 = 10 (1), the cross on light I7 doubles: 10
    assert ben["best_by_points"] == {"placed": {"I7": 2, "G8": 4}, "points": 10,
                                     "value": 14.51}
    assert ben["missed_points"] == 4 and out["summary"]["Ben"]["points_missed"] == 4
