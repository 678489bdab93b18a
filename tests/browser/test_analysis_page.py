"""The analysis page in a real browser: a finished match is analysed in the background,
the page waits for it, steps through the turns with the best move as ghost tiles, and
draws the chart of points and points missed."""

from __future__ import annotations

from zatre_vision.simulate import Simulation


def test_analysis_page_after_a_match(server, page):
    srv = server("--source", "none")
    sim = Simulation(["Ann", "Ben"], 8, ["greedy", "random"])
    srv.post("/setup", {"players": ["Ann", "Ben"], "starter": sim.game.seat.name,
                        "camera": "none"})
    turns = 16
    for _ in range(turns):
        t = sim.step()
        srv.post("/table/turn", {"placed": t.result.placed, "hand": list(t.hand),
                                 "player": t.seat})
    srv.post("/table/finish", {"minus": {"Ann": 0, "Ben": 0}})

    page.goto(f"{srv.url}/matches")
    page.click("a.analysis-link")
    # the page shows the progress until the stored analysis is there, then reloads
    page.wait_for_selector("#analysis-summary", timeout=30000)
    analysis = srv.get("/api/matches/1/analysis")
    assert analysis["status"] == "done"
    result = analysis["result"]
    assert page.locator("#analysis-summary tbody tr").count() == 2
    ben = result["summary"]["Ben"]
    ben_row = page.locator('#analysis-summary tr[data-player="Ben"]').inner_text()
    assert str(ben["points_missed"]) in ben_row

    # the page opens on the first turn that missed something: the best move as ghosts
    first = next(t for t in result["turns"] if t["missed_points"])
    assert page.locator("#analysis-turn h3").inner_text() == f"Turn {first['number']} · {first['player']}"
    played = first["played"]["placed"]
    for cell, value in first["best_by_value"]["placed"].items():
        if played.get(cell) != value:
            assert page.locator(f'#board .ghost[data-cell="{cell}"]').get_attribute("data-value") == str(value)
    for cell in played:
        assert page.locator(f'#board .tile.last[data-cell="{cell}"]').count() == 1
    assert f"Missed {first['missed_points']} points" in page.inner_text("#analysis-turn")

    # stepping: turn 1, then the next
    page.fill("#step", "1")
    page.dispatch_event("#step", "input")
    assert page.locator("#analysis-turn h3").inner_text().startswith("Turn 1 ·")
    page.click("#step-next")
    assert page.locator("#analysis-turn h3").inner_text().startswith("Turn 2 ·")
    assert page.locator("#step-label").inner_text() == f"turn 2 of {turns}"

    # the chart: one row per player, one bar group per turn of that player
    assert page.locator("#analysis-chart .chart-row").count() == 2
    assert page.locator('#analysis-chart .chart-row[data-player="Ann"] .chart-turn').count() == turns // 2
    page.locator(f'#analysis-chart .chart-turn[data-turn="{first["number"]}"]').click()
    assert page.locator("#analysis-turn h3").inner_text().startswith(f"Turn {first['number']} ·")

    # linked from the match page too
    page.goto(f"{srv.url}/matches/1")
    page.click("#analysis-link")
    page.wait_for_selector("#analysis-summary")


def test_coach_switch_on_the_table_page(server, page):
    from .conftest import sign_in

    srv = server("--source", "none")
    srv.post("/setup", {"players": ["Ann", "Ben"], "starter": "Ann", "camera": "none"})
    srv.post("/table/turn", {"placed": {"H8": 6, "H7": 5, "G7": 5}, "hand": [5, 5, 6]})
    sign_in(page, srv.url)
    page.wait_for_selector("#coach-card .slider")
    assert page.inner_text("#coach-line") == ""
    page.click("#coach-card .slider")
    page.wait_for_function("() => document.querySelector('#coach-line').textContent.startsWith('Ann: ')")
    srv.post("/table/turn", {"placed": {"G8": 4, "G9": 2}, "hand": [2, 4]})
    page.wait_for_function("() => document.querySelector('#coach-line').textContent"
                           " === 'Ben: best was I7=2 G8=4 for 10 (you scored 6)'")
    page.click("#controls .switch.small .slider")  # Profi mode: no coach
    page.wait_for_function("() => document.querySelector('#coach-line').textContent.startsWith('Profi mode')")
    assert page.is_disabled("#coach-toggle")
