"""The dashboard in a real browser: a whole simulated game entered through the UI, a
live correction, a reload mid-game, and a server restart mid-match."""

from __future__ import annotations

import signal

from zatre_vision.simulate import Simulation

from .conftest import sign_in


def wait_turns(page, n: int) -> None:
    page.wait_for_function(f"() => window.ZatreLive && (window.ZatreLive.state.turns_played || 0) >= {n}",
                           timeout=20000)


def grand_totals(page) -> dict[str, int]:
    return {el.get_attribute("data-player"): int(el.inner_text())
            for el in page.query_selector_all("#sheets td.grand-total")}


def as_tiles(pips: int) -> str:
    tiles = [6] * (pips // 6) + ([pips % 6] if pips % 6 else [])
    return " ".join(map(str, tiles))


def test_whole_simulated_game_through_the_ui(server, page):
    srv = server("--source", "none")
    sim = Simulation(["Ann", "Ben"], seed=11)
    sign_in(page, srv.url)
    page.goto(f"{srv.url}/setup")
    page.fill(".player-input >> nth=0", "Ann")
    page.fill(".player-input >> nth=1", "Ben")
    page.select_option("#starter", sim.game.seat.name)
    page.select_option("#camera", "none")
    page.click("#setup-submit")
    page.wait_for_selector("#controls")
    page.click('#mode button[data-mode="enter"]')
    for played, turn in enumerate(sim, start=1):
        if turn.result.placed:
            for cell, value in turn.result.placed.items():
                page.locator(f'#board g.cell[data-cell="{cell}"]').click(force=True)
                page.click(f'#picker button[data-value="{value}"]')
            page.click("#commit-turn")
        else:
            page.click("#pass-turn")
        wait_turns(page, played)
    st = page.evaluate("() => window.ZatreLive.state")
    assert st["pending"] is None and st["board"] == sim.game.board.to_dict()
    page.click("#finish-box summary")
    for seat in sim.game.seats:
        page.fill(f'#finish-form input[data-player="{seat.name}"]', as_tiles(seat.sheet.minus))
    page.click("#finish")
    if srv.get("/api/state")["bag"]:            # tiles in the bag: the end is confirmed
        page.click("#toast-choice")
    page.wait_for_function("() => window.ZatreLive.state.finished")
    expected = {s.name: s.sheet.total for s in sim.game.seats}
    assert grand_totals(page) == expected
    assert srv.get("/api/matches")["matches"][0]["totals"] == expected
    assert page.inner_text("#who").endswith("won")


def _play_some(srv, turns: int = 6) -> Simulation:
    sim = Simulation(["Ann", "Ben"], seed=5)
    srv.post("/setup", {"players": ["Ann", "Ben"], "starter": sim.game.seat.name, "camera": "none"})
    for _ in range(turns):
        t = sim.step()
        srv.post("/table/turn", {"placed": t.result.placed})
    return sim


def test_correct_a_misread_cell_and_see_the_sheet_change_live(server, browser, page):
    srv = server("--source", "none")
    _play_some(srv, 4)
    spectator = browser.new_page()
    spectator.goto(srv.url + "/sheet")
    spectator.wait_for_selector("#live.pill-live")
    before = grand_totals(spectator)
    st = srv.get("/api/state")
    cell, value = next(iter(st["last_turn"]["placed"].items()))
    new_value = 1 if value != 1 else 2
    sign_in(page, srv.url)
    page.goto(srv.url + "/")
    page.click('#mode button[data-mode="correct"]')
    page.locator(f'#board g.tile[data-cell="{cell}"]').click(force=True)
    page.click(f'#picker button[data-value="{new_value}"]')
    page.wait_for_function(f"() => window.ZatreLive.state.board['{cell}'] === {new_value}")
    after_api = {p: s["total"] for p, s in srv.get("/api/state")["sheets"].items()}
    spectator.wait_for_function(
        "(exp) => Object.entries(exp).every(([p, t]) => "
        "document.querySelector(`#sheets td.grand-total[data-player=\"${p}\"]`).textContent === String(t))",
        arg=after_api)
    assert grand_totals(spectator) == after_api
    assert after_api != before  # the misread tile changed the score
    assert spectator.url.endswith("/sheet")  # no reload: the event stream carried it
    spectator.close()


def test_reload_mid_game_keeps_everything(server, page):
    srv = server("--source", "none")
    _play_some(srv, 7)
    page.goto(srv.url + "/")
    page.wait_for_selector("#live.pill-live")
    tiles = page.locator("#board g.tile").count()
    totals = grand_totals(page)
    who = page.inner_text("#who")
    page.reload()
    page.wait_for_selector("#live.pill-live")
    assert page.locator("#board g.tile").count() == tiles == len(srv.get("/api/state")["board"])
    assert grand_totals(page) == totals and page.inner_text("#who") == who


def test_restart_the_server_mid_match_and_resume(server, page, tmp_path):
    srv = server("--source", "none")
    sim = _play_some(srv, 5)
    before = srv.get("/api/state")
    page.goto(srv.url + "/")
    page.wait_for_selector("#live.pill-live")
    srv.stop(signal.SIGKILL)  # a power cut, not a clean stop
    page.wait_for_selector("#live.pill-off")
    srv.start()  # the same port and data folder
    after = srv.get("/api/state")
    for key in ("players", "turn", "board", "sheets", "bag", "match_id", "last_turn"):
        assert after[key] == before[key], key
    page.wait_for_selector("#live.pill-live", timeout=15000)  # EventSource reconnected
    t = sim.step()
    srv.post("/table/turn", {"placed": t.result.placed or {}})
    wait_turns(page, 6)
    assert page.evaluate("() => window.ZatreLive.state.board") == sim.game.board.to_dict()


def test_a_draft_cell_another_screen_fills_leaves_the_draft(server, page):
    srv = server("--source", "none")
    sim = _play_some(srv, 2)
    sign_in(page, srv.url)
    page.goto(srv.url + "/")
    page.click('#mode button[data-mode="enter"]')
    nxt = sim.step().result.placed              # the next turn, entered on this screen...
    cell, value = next(iter(nxt.items()))
    page.locator(f'#board g.cell[data-cell="{cell}"]').click(force=True)
    page.click(f'#picker button[data-value="{value}"]')
    assert cell in page.inner_text("#draft-cells")
    srv.post("/table/turn", {"placed": nxt})    # ...and on another screen first
    page.wait_for_function(f"() => '{cell}' in window.ZatreLive.state.board")
    page.wait_for_function(f"() => !document.querySelector('#draft-cells').textContent.includes('{cell}')")
    assert "filled meanwhile" in page.inner_text("#toast")
    assert srv.get("/api/state")["pending"] is None


def test_a_new_match_starts_with_an_empty_finish_form(server, page):
    srv = server("--source", "none")
    _play_some(srv, 2)
    sign_in(page, srv.url)
    page.goto(srv.url + "/")
    page.click("#finish-box summary")
    page.fill('#finish-form input[data-player="Ann"]', "6 6")
    page.fill('#finish-form input[data-player="Ben"]', "2")
    page.click("#finish")
    page.click("#toast-choice")                 # tiles in the bag: the end is confirmed
    page.wait_for_function("() => window.ZatreLive.state.finished")
    srv.post("/setup", {"players": ["Ann", "Ben"], "starter": "Ann", "camera": "none"})
    page.wait_for_function("() => !window.ZatreLive.state.finished")
    assert page.input_value('#finish-form input[data-player="Ann"]') == ""
    assert page.input_value('#finish-form input[data-player="Ben"]') == ""


def test_the_pages_fit_a_phone(server, browser):
    srv = server("--source", "none")
    _play_some(srv, 3)
    ctx = browser.new_context(viewport={"width": 375, "height": 667})
    phone = ctx.new_page()
    for path in ("/", "/sheet", "/matches", "/rankings", "/tournaments", "/setup"):
        phone.goto(srv.url + path)
        assert phone.evaluate("document.documentElement.scrollWidth") <= 375, path
        right = phone.evaluate("Math.max(...[...document.querySelectorAll('.topbar > *')]"
                               ".map(e => e.getBoundingClientRect().right))")
        assert right <= 375, path
    ctx.close()


def test_a_refused_setup_keeps_the_form_and_says_why(server, page):
    srv = server("--source", "none")
    _play_some(srv, 2)                          # a match under way
    sign_in(page, srv.url)
    page.goto(f"{srv.url}/setup")
    page.fill(".player-input >> nth=0", "Cleo")
    page.fill(".player-input >> nth=1", "Dan")
    page.fill(".player-input >> nth=4", "Eve")
    page.select_option("#starter", "Eve")
    page.select_option("#game", "cards")         # Eve's seat goes: she cannot start
    assert page.input_value("#starter") == "draw"
    page.select_option("#camera", "none")
    page.click("#setup-submit")
    page.wait_for_selector("#toast:not([hidden])")
    assert "still running" in page.inner_text("#toast")
    assert page.url.endswith("/setup") and page.input_value(".player-input >> nth=0") == "Cleo"
    page.check("#replace")
    page.click("#setup-submit")
    page.wait_for_selector("#controls")
    page.wait_for_function("() => window.ZatreLive && window.ZatreLive.state")
    assert srv.get("/api/state")["players"] == ["Cleo", "Dan"]
    assert "started" in page.inner_text("#toast")


def test_a_waiting_camera_turn_shows_its_cell_and_offers_one_tap_values(server, page):
    """The card the dashboard draws from ``waiting_turn`` (issue 41); with no camera
    at this table the tap is refused with the reason."""
    srv = server("--source", "none")
    _play_some(srv, 2)
    sign_in(page, srv.url)
    page.goto(srv.url)
    page.wait_for_selector("#controls")
    page.evaluate("""() => window.ZatreLive.apply({...window.ZatreLive.state,
        version: window.ZatreLive.state.version + 1,
        waiting_turn: {turn: 3, player: "Ann", cells: ["F6"], ambiguous: [], queued: 1,
                       message: "cannot read F6: lift the hand, or enter its value"}})""")
    card = page.locator("#waiting-turn")
    assert card.locator(".alert-title").inner_text() == "⏳ Turn 3 by Ann waits"
    assert "cannot read F6: lift the hand, or enter its value" in card.inner_text()
    assert card.locator('button[data-cell="F6"]').count() == 7   # 1 to 6, and "no tile"
    card.locator('button[data-cell="F6"][data-value="4"]').click()
    page.wait_for_selector("#toast.bad")
    assert "No turn waits for F6" in page.inner_text("#toast")
