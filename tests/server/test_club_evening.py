"""A club evening at the dashboard (issue 39): demo games out of the rankings, annulled
matches, tournament pairings that follow their match, refusals as one-line toasts."""

from zatre_vision.server.records import rankings, tournament_view

FIRST = {"H8": 6, "H7": 5, "G7": 5}


def _finished(table, players, source="manual", minus=None):
    table.new_match(players, players[0], source=source)
    table.commit_turn(FIRST, source=source)
    table.finish(minus or dict.fromkeys(players, 0), source=source)
    return table.match_id


def test_demo_games_stay_out_of_the_rankings(client, table, store):
    _finished(table, ["Ann", "Ben"], source="demo")
    _finished(table, ["Cleo", "Dora"])
    rows = store.finished_matches()
    assert [r["player"] for r in rankings(rows)] == ["Cleo", "Dora"]
    page = client.get("/rankings").get_data(as_text=True)
    assert "Cleo" in page and "Ann" not in page
    history = client.get("/matches").get_data(as_text=True)
    assert history.count('class="pill pill-demo"') == 1
    assert client.get("/api/matches").get_json()["matches"][1]["demo"] is True


def test_annul_a_running_match_with_its_reason(operator, playing, store):
    r = operator.post_json("/matches/1/annul", {"reason": "wrong players  entered"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["message"] == "Match 1 annulled: wrong players entered"
    assert r.get_json()["location"] == "/matches/1"
    st = r.get_json()["state"]
    assert st["match_id"] is None and st["players"] == []   # the table waits for a new one
    assert store.get_match(1)["annulled"] == "wrong players entered"
    assert [e["kind"] for e in store.events(1)][-1] == "annul"
    page = operator.get("/matches/1").get_data(as_text=True)
    assert "Annulled: wrong players entered" in page and "Match annulled: wrong players" in page
    assert "annulled" in operator.get("/matches").get_data(as_text=True)
    again = operator.post_json("/matches/1/annul", {"reason": "twice"})
    assert again.status_code == 409 and "already annulled" in again.get_json()["error"]


def test_annul_an_empty_match_started_by_mistake_and_a_finished_one(operator, table, store):
    table.new_match(["Ann", "Ben"], "Ann")             # no turn at all
    assert operator.post_json("/matches/1/annul", {"reason": "started by mistake"}).status_code == 200
    _finished(table, ["Ann", "Ben"], minus={"Ann": 0, "Ben": 4})
    assert [r["player"] for r in rankings(store.finished_matches())] == ["Ann", "Ben"]
    assert operator.post_json("/matches/2/annul", {"reason": "test game"}).status_code == 200
    assert store.finished_matches() == [] and rankings(store.finished_matches()) == []


def test_annul_needs_the_pin_and_a_reason(client, operator, playing):
    assert client.post("/matches/1/annul", json={"reason": "x"}).status_code in (401, 403)
    r = operator.post_json("/matches/1/annul", {"reason": "  "})
    assert r.status_code == 400 and "reason" in r.get_json()["error"]
    assert operator.post_json("/matches/99/annul", {"reason": "x"}).status_code == 409


def _tournament(operator):
    r = operator.post_json("/tournaments", {"name": "Herbst-Cup 2026 (Süd)",
                                            "players": ["Ann", "Ben", "Cleo"]})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["tournament_id"]


def _status(operator, tid):
    import re
    page = operator.get(f"/tournaments/{tid}").get_data(as_text=True)
    return dict(re.findall(r'data-pairing="([^"]+)" data-status="([^"]+)"', page))


def test_tournament_names_with_punctuation_and_the_real_reason(operator):
    tid = _tournament(operator)
    assert "Herbst-Cup 2026 (Süd)" in operator.get(f"/tournaments/{tid}").get_data(as_text=True)
    r = operator.post_json("/tournaments", {"name": "Cup <b>", "players": ["A1", "B1", "C1"]})
    assert r.status_code == 400 and r.get_json()["error"] == "a tournament name cannot hold '<' '>'"
    r = operator.post_json("/tournaments", {"name": "x" * 41, "players": ["A1", "B1", "C1"]})
    assert "at most 40 characters (this one has 41)" in r.get_json()["error"]


def test_pairings_follow_their_match_finished_unfinished_annulled(operator, table):
    tid = _tournament(operator)
    assert set(_status(operator, tid).values()) == {"open"}
    r = operator.post_json(f"/tournaments/{tid}/play", {"a": "Ann", "b": "Ben"})
    assert r.status_code == 200
    table.commit_turn(FIRST)
    assert _status(operator, tid)["Ann|Ben"] == "playing"
    # another pairing while it runs: refused with the way out, not a bare page
    r = operator.post_json(f"/tournaments/{tid}/play", {"a": "Ann", "b": "Cleo"})
    assert r.status_code == 409
    body = r.get_json()
    assert "still running" in body["error"] and body["choice"]["field"] == "replace"
    assert body["choice"]["label"] == "End match 1 unfinished and start this one"
    r = operator.post_json(f"/tournaments/{tid}/play", {"a": "Ann", "b": "Cleo", "replace": "on"})
    assert r.status_code == 200
    st = _status(operator, tid)
    assert st["Ann|Ben"] == "unfinished" and st["Ann|Cleo"] == "playing"
    table.commit_turn(FIRST)
    table.finish({"Ann": 0, "Cleo": 0})
    assert _status(operator, tid)["Ann|Cleo"] == "finished"
    assert operator.post_json("/matches/2/annul", {"reason": "wrong colours"}).status_code == 200
    st = _status(operator, tid)
    assert st["Ann|Cleo"] == "annulled"
    page = operator.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert page.count("Play again at this table") == 2           # unfinished and annulled
    store = table.store
    view = tournament_view(store.get_tournament(tid), store.tournament_matches(tid))
    assert [r["played"] for r in view["standings"]] == [0, 0, 0]  # annulled: not counted


def test_event_log_in_sentences_with_the_x2(operator, playing):
    operator.post_json("/table/turn", {"placed": {}})
    page = operator.get("/matches/1").get_data(as_text=True)
    # Ann's opening: 10 and 11 are 3 points; H8 and G7 are x2 cells in the line: 6
    assert "Ann placed H8=6 H7=5 G7=5 and scored 3 points (6 with the x2)." in page
    assert "Ben passed." in page and "{&#39;H8&#39;" not in page and "{'H8'" not in page


def test_a_pass_says_passed_and_a_turn_says_its_points(operator, playing):
    r = operator.post_json("/table/turn", {"placed": {}})
    assert r.get_json()["message"] == "Passed: Ben places nothing this turn."
    r = operator.post_json("/table/turn", {"placed": {"G8": 5}})
    assert r.get_json()["message"].startswith("Turn scored: Ann ")


def _csv(resp):
    import csv
    import io
    assert resp.status_code == 200 and resp.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(resp.data.decode())))


def test_csv_exports_are_one_dated_table_each(operator, playing, table):
    table.commit_turn({}, source="manual")
    table.finish({"Ann": 0, "Ben": 5})
    turns = _csv(operator.get("/matches/1/export.csv"))
    assert turns[0][-1] == "date" and all(len(r) == len(turns[0]) for r in turns)
    assert [r[1] for r in turns[1:]] == ["1", "2"], turns
    assert all(r[-1][:4] == "2026" for r in turns[1:]), turns
    assert "turns.csv" in operator.get("/matches/1/export.csv").headers["Content-Disposition"]
    sheets = _csv(operator.get("/matches/1/sheets.csv"))
    assert sheets[0] == ["match", "date", "ended", "player", "rows_total", "minus",
                         "grand_total", "winner"]
    assert [(r[3], r[5], r[7]) for r in sheets[1:]] == [("Ann", "0", "1"), ("Ben", "5", "0")]
    assert all(r[1] and r[2] for r in sheets[1:]) and len({len(r) for r in sheets}) == 1


def test_a_seasons_export_holds_every_match(operator, table):
    _finished(table, ["Ann", "Ben"])
    table.new_match(["Cleo", "Dora"], "Cleo")            # left unfinished below
    table.new_match(["Eve", "Finn"], "Eve")              # playing, then annulled
    table.annul(3, "test")
    table.new_match(["Gus", "Hal"], "Gus")               # the table plays it now
    rows = _csv(operator.get("/seasons/2025/matches.csv"))
    status = {(r[0], r[10]): r[7] for r in rows[1:]}
    assert status[("1", "Ann")] == "finished" and status[("2", "Cleo")] == "unfinished"
    assert status[("3", "Eve")] == "annulled" and status[("4", "Gus")] == "playing"
    assert len(rows) == 1 + 8 and rows[0][1] == "date"
    assert operator.get("/seasons/1999/matches.csv").status_code == 404
    assert 'id="season-export"' in operator.get("/rankings?season=2025").get_data(as_text=True)


def test_the_printable_sheet_marks_the_winner_and_has_a_print_button(operator, playing, table):
    table.finish({"Ann": 0, "Ben": 0})
    page = operator.get("/matches/1/print").get_data(as_text=True)
    assert 'id="print-button"' in page and "print.js" in page
    assert "Winner: Ann" in page and page.count('class="winner-badge"') == 1


def test_a_mis_clicked_pairing_with_no_turn_is_withdrawn_not_left_unfinished(operator, table,
                                                                           store):
    tid = _tournament(operator)
    assert operator.post_json(f"/tournaments/{tid}/play", {"a": "Ann", "b": "Ben"}).status_code == 200
    mis_clicked = table.match_id
    # the right pairing at once: the first one had no turn, so it is withdrawn
    assert operator.post_json(f"/tournaments/{tid}/play", {"a": "Ann", "b": "Cleo"}).status_code == 200
    st = _status(operator, tid)
    assert st["Ann|Ben"] == "open" and st["Ann|Cleo"] == "playing"
    assert store.get_match(mis_clicked) is None and store.events(mis_clicked) == []
    assert [m["id"] for m in operator.get("/api/matches").get_json()["matches"]] == [table.match_id]
    assert table.match_id > mis_clicked                                  # ids are not reused
    # a pairing match with a turn played stays (unfinished) when replaced on request
    table.commit_turn(FIRST)
    r = operator.post_json(f"/tournaments/{tid}/play", {"a": "Ben", "b": "Cleo", "replace": "on"})
    assert r.status_code == 200 and _status(operator, tid)["Ann|Cleo"] == "unfinished"
