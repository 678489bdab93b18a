"""The coach switch (server/coach.py): the best move after each turn, off in Profi mode
and in tournament matches."""


def test_coach_is_off_until_switched_on_then_tells_the_best_move(client, operator, table):
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    table.commit_turn({"H8": 6, "H7": 5, "G7": 5}, hand=[5, 5, 6], source="manual")
    table.commit_turn({"G8": 4, "G9": 2}, hand=[2, 4], source="manual")
    assert client.get("/api/coach").get_json() == {
        "on": False, "available": True, "reason": None, "line": None, "turn": None}
    resp = operator.post_json("/table/coach", {"on": True})
    assert resp.status_code == 200 and resp.get_json()["coach"]["on"] is True
    got = client.get("/api/coach").get_json()
    # G8=4 G9=2 scored 6; I7=2 with G8=4 makes 12 and 10 with a cross: 10
    assert got["turn"] == 2
    assert got["line"] == "Ben: best was I7=2 G8=4 for 10 (you scored 6)"
    table.commit_turn({"I8": 1, "J8": 1}, source="manual")  # a full turn: hand by the rules
    line = client.get("/api/coach").get_json()["line"]
    assert line.startswith("Ann: ") and client.get("/api/coach").get_json()["turn"] == 3
    operator.post_json("/table/coach", {"on": False})
    assert client.get("/api/coach").get_json()["line"] is None


def test_coach_is_off_in_profi_mode_and_tournaments(client, operator, table, store):
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    table.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="manual")
    operator.post_json("/table/coach", {"on": True})
    table.set_profi(True)
    got = client.get("/api/coach").get_json()
    assert got["available"] is False and "Profi" in got["reason"] and got["line"] is None
    table.set_profi(False)
    tid = store.create_tournament("Club cup", ["Ann", "Ben"], "2025")
    table.new_match(["Ann", "Ben"], "Ann", source="manual", tournament_id=tid)
    table.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="manual")
    got = client.get("/api/coach").get_json()
    assert got["available"] is False and "tournament" in got["reason"] and got["line"] is None


def test_the_switch_needs_the_pin_and_a_true_or_false(client, operator, playing):
    assert client.post("/table/coach", json={"on": True}).status_code in (400, 401)
    resp = operator.post_json("/table/coach", {"on": "yes"})
    assert resp.status_code == 400 and "true or false" in resp.get_json()["error"]
    assert client.get("/").status_code == 200 and b"coach.js" in client.get("/").data
