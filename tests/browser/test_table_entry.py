"""Entering turns as a club does all evening: by keyboard alone, with a draft that
survives a reload and History-and-back, in German, and on a phone (375 px)."""

from __future__ import annotations

import os
from pathlib import Path

from zatre_vision.rules.board import NAMES, row_col
from zatre_vision.simulate import Simulation

from .conftest import PIN, sign_in

POS = {name: row_col(index) for index, name in NAMES.items()}


def _new_match(srv, seed: int = 11) -> Simulation:
    sim = Simulation(["Ann", "Ben"], seed=seed)
    srv.post("/setup", {"players": ["Ann", "Ben"], "starter": sim.game.seat.name,
                        "camera": "none", "replace": "on"})
    return sim


def _focused(page) -> str | None:
    return page.evaluate("() => document.activeElement && document.activeElement.dataset"
                         " ? document.activeElement.dataset.cell || null : null")


def _walk(page, target: str) -> None:
    """Arrow keys from the focused cell to ``target`` (rows first, then columns)."""
    r0, c0 = POS[_focused(page)]
    r1, c1 = POS[target]
    for _ in range(abs(r1 - r0)):
        page.keyboard.press("ArrowDown" if r1 > r0 else "ArrowUp")
    for _ in range(abs(c1 - c0)):
        page.keyboard.press("ArrowRight" if c1 > c0 else "ArrowLeft")
    assert _focused(page) == target


def test_a_whole_turn_by_keyboard_alone(server, page):
    srv = server("--source", "none")
    sim = _new_match(srv)
    # sign in with the keyboard: the PIN field has the focus, Enter sends it
    page.goto(f"{srv.url}/login")
    page.keyboard.type(PIN)
    page.keyboard.press("Enter")
    page.wait_for_selector("#controls")
    # Tab from the top of the page to the board: one cell of it is in the tab order
    for _ in range(40):
        page.keyboard.press("Tab")
        if _focused(page):
            break
    assert _focused(page) == "H8"
    assert page.get_attribute('#board [data-cell="H8"]', "role") == "gridcell"
    assert page.get_attribute('#board [data-cell="H8"]', "aria-label") == \
        "H8, start cell, x2 cell: empty"
    assert page.locator('#board [tabindex="0"]').count() == 1      # a roving tab stop
    first = sim.step().result.placed
    cells = list(first.items())
    for cell, value in cells[:-1]:                     # digits set the focused cell
        _walk(page, cell)
        page.keyboard.press(str(value))
    cell, value = cells[-1]                            # Space opens the picker, Tab and Enter pick
    _walk(page, cell)
    page.keyboard.press(" ")
    page.wait_for_selector("#picker:not([hidden])")
    assert page.evaluate("document.activeElement.dataset.value") == "1"
    for _ in range(value - 1):
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert _focused(page) == cell and page.is_hidden("#picker")
    assert page.get_attribute(f'#board [data-cell="{cell}"]', "aria-label").endswith(
        f": {value}, not scored yet")
    # a wrong digit, then 0 clears it and the right one goes in
    page.keyboard.press("0")
    assert "empty" in page.get_attribute(f'#board [data-cell="{cell}"]', "aria-label")
    page.keyboard.press(str(value))
    page.keyboard.press("Enter")                       # Enter scores the turn
    page.wait_for_function("() => window.ZatreLive.state.turns_played === 1")
    st = srv.get("/api/state")
    assert st["board"] == first and st["last_turn"]["legal"]
    assert page.get_attribute(f'#board [data-cell="{cell}"]', "aria-label").endswith(f": {value}")
    # the switches are real controls: focusable, named, toggled by Space
    page.focus("#hints-toggle")
    assert page.get_attribute("#hints-toggle", "role") == "switch"
    page.keyboard.press(" ")
    assert page.is_checked("#hints-toggle")
    page.focus("#profi-toggle")
    page.keyboard.press(" ")
    page.wait_for_function("() => window.ZatreLive.state.profi === true")


def test_a_draft_survives_a_reload_and_history_back_and_goes_when_scored(server, page):
    srv = server("--source", "none")
    sim = _new_match(srv)
    sign_in(page, srv.url)
    page.goto(srv.url + "/")
    page.click('#mode button[data-mode="enter"]')
    first = sim.step().result.placed
    cells = list(first.items())
    for cell, value in cells[:2]:
        page.locator(f'#board g.cell[data-cell="{cell}"]').click(force=True)
        page.click(f'#picker button[data-value="{value}"]')
    drafted = " ".join(f"{c}={v}" for c, v in cells[:2])
    assert page.inner_text("#draft-cells") == drafted
    page.reload()
    page.wait_for_selector("#draft:not([hidden])")
    assert page.inner_text("#draft-cells") == drafted
    assert page.locator("#board g.tile.draft").count() == 2
    page.click("nav a[href='/matches']")
    page.go_back()
    page.wait_for_selector("#draft:not([hidden])")
    assert page.locator("#board g.tile.draft").count() == 2
    cell, value = cells[2]
    page.locator(f'#board g.cell[data-cell="{cell}"]').click(force=True)
    page.click(f'#picker button[data-value="{value}"]')
    page.click("#commit-turn")
    page.wait_for_function("() => window.ZatreLive.state.turns_played === 1")
    assert srv.get("/api/state")["board"] == first
    page.reload()
    page.wait_for_selector("#controls")
    assert page.is_hidden("#draft") and page.locator("#board g.tile.draft").count() == 0
    assert page.evaluate("Object.keys(sessionStorage).filter(k => k.startsWith('zatre-draft'))") == []


def test_a_reloaded_setup_keeps_the_names_until_the_match_starts(server, page):
    srv = server("--source", "none")
    sign_in(page, srv.url)
    page.goto(f"{srv.url}/setup")
    page.fill(".player-input >> nth=0", "Erik")
    page.fill(".player-input >> nth=1", "Fiona")
    page.fill(".player-input >> nth=2", "Gerd")
    page.select_option("#starter", "Fiona")
    page.select_option("#camera", "none")
    page.reload()
    assert [page.input_value(f".player-input >> nth={i}") for i in range(3)] == \
        ["Erik", "Fiona", "Gerd"]
    assert page.input_value("#starter") == "Fiona" and page.input_value("#camera") == "none"
    page.click("#setup-submit")
    page.wait_for_selector("#controls")
    assert srv.get("/api/state")["players"] == ["Erik", "Fiona", "Gerd"]
    page.goto(f"{srv.url}/setup")
    assert page.input_value(".player-input >> nth=0") == ""


def test_the_german_dashboard(server, browser):
    srv = server("--source", "none")
    sim = _new_match(srv, seed=5)
    for _ in range(4):
        srv.post("/table/turn", {"placed": sim.step().result.placed})
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="de-DE")
    page = ctx.new_page()
    sign_in(page, srv.url)
    page.goto(srv.url + "/")
    page.wait_for_selector("#live.pill-live")
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.inner_text("nav") .split() == ["Tisch", "Blätter", "Verlauf", "Rangliste",
                                                "Turniere", "Einrichten", "Klub"]
    assert page.inner_text("#who") == f"{sim.game.seat.name} ist am Zug"
    assert "Steine im Sack" in page.inner_text(".stats")
    assert page.inner_text("#commit-turn") == "Zug werten"
    assert "Endsumme" in page.inner_text("#sheets") and "Summe" in page.inner_text("#sheets")
    assert page.get_attribute('#board [data-cell="H8"]', "aria-label").startswith(
        "H8, Startfeld, helles x2-Feld: ")
    # a flagged turn: the alert's reason and the toast in German
    page.click('#mode button[data-mode="enter"]')
    board = srv.get("/api/state")["board"]
    far = next(n for n, (r, c) in sorted(POS.items()) if all(
        abs(r - POS[t][0]) + abs(c - POS[t][1]) >= 3 for t in board))  # touches no tile
    page.locator(f'#board g.cell[data-cell="{far}"]').click(force=True)
    page.click('#picker button[data-value="2"]')
    page.click("#commit-turn")
    page.wait_for_selector(".alert-illegal-turn")
    assert f"{far} hat keine Verbindung zu den ausliegenden Steinen" in page.inner_text(".alert-illegal-turn")
    # the live update may draw the alert before the reply to the submit brings its toast
    page.wait_for_function("() => document.querySelector('#toast').textContent.length > 0")
    assert page.inner_text("#toast").startswith("Zug beanstandet: ")
    assert "Regelwidrig gelegt von" in page.inner_text(".alert-illegal-turn")
    shot = os.environ.get("ZATRE_SCREENSHOT_DIR")
    if shot:
        page.screenshot(path=str(Path(shot) / "table-view-de.png"))
    page.click("#reject")
    page.wait_for_function("() => !window.ZatreLive.state.pending")
    for path, word in (("/matches", "Verlauf der Partien"), ("/rankings", "Klubrangliste"),
                       ("/setup", "Neue Partie"), ("/sheet", "Wertungsblätter"),
                       ("/matches/1", "Ereignisprotokoll"), ("/matches/1/print", "Endsumme")):
        page.goto(srv.url + path)
        assert word in page.inner_text("body"), path
    # the switch: English for this browser from now on, whatever it asks for
    page.goto(srv.url + "/")
    page.click('#lang-switch a[lang="en"]')
    page.wait_for_selector("#live.pill-live")
    assert page.inner_text("#commit-turn") == "Score this turn"
    assert page.inner_text("#who").endswith(" to play")
    ctx.close()


def test_turn_entry_on_a_phone(server, browser):
    srv = server("--source", "none")
    sim = _new_match(srv, seed=5)
    for _ in range(3):
        srv.post("/table/turn", {"placed": sim.step().result.placed})
    ctx = browser.new_context(viewport={"width": 375, "height": 667}, has_touch=True)
    page = ctx.new_page()
    sign_in(page, srv.url)
    page.goto(srv.url + "/")
    full = page.get_attribute("#board", "viewBox")
    page.click('#mode button[data-mode="enter"]')
    # zoomed to the region being played: every tile and every cell next to one in view,
    # the cells at least 40 px
    box = page.get_attribute("#board", "viewBox")
    assert box != full
    size = page.locator('#board g.cell[data-cell="H8"] rect.cell-bg').bounding_box()
    assert size["width"] >= 40
    nxt = sim.step().result.placed
    for cell, value in nxt.items():
        target = page.locator(f'#board g.cell[data-cell="{cell}"]')
        target.scroll_into_view_if_needed()
        c = target.bounding_box()
        assert c["x"] >= 0 and c["x"] + c["width"] <= 375, cell
        target.tap(force=True)
        page.wait_for_selector("#picker:not([hidden])")
        c = target.bounding_box()
        p = page.locator("#picker").bounding_box()
        overlap = not (p["x"] >= c["x"] + c["width"] or p["x"] + p["width"] <= c["x"]
                       or p["y"] >= c["y"] + c["height"] or p["y"] + p["height"] <= c["y"])
        assert not overlap, (cell, c, p)                       # beside the cell, never on it
        assert p["x"] >= 0 and p["x"] + p["width"] <= 375
        page.locator(f'#picker button[data-value="{value}"]').tap()
    # the Score bar sticks to the bottom of the screen, wherever the page is scrolled
    for y in (0, 400, 10000):
        page.evaluate(f"window.scrollTo(0, {y})")
        bar = page.locator("#commit-turn").bounding_box()
        assert bar["y"] >= 0 and bar["y"] + bar["height"] <= 667, y
    shot = os.environ.get("ZATRE_SCREENSHOT_DIR")
    if shot:
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(Path(shot) / "phone-entry.png"))
    page.locator("#commit-turn").tap()
    page.wait_for_function("() => window.ZatreLive.state.turns_played === 4")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    ctx.close()
