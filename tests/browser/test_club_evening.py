"""A club evening in a real browser (issue 39): a whole demo game to its winner, an
annulled match, tournament pairings whose refusals are toasts with the way out."""

from __future__ import annotations

import os
from pathlib import Path

from .conftest import sign_in

FIRST = {"H8": 6, "H7": 5, "G7": 5}


def test_a_whole_demo_game_to_its_winner(server, page):
    # the rules-only demo, fast: every turn of a whole game, then the result
    srv = server("--source", "sim", "--demo-interval", "0.02")
    page.goto(srv.url)
    page.wait_for_function("() => window.ZatreLive && window.ZatreLive.state.finished",
                           timeout=120000)
    st = page.evaluate("() => window.ZatreLive.state")
    assert st["source"] == "demo" and st["winners"] and st["turns_played"] > 10
    assert page.inner_text("#who") == " & ".join(st["winners"]) + " won"
    assert page.locator("#sheets .winner-badge").count() == len(st["winners"])
    minus = {p: s["minus"] for p, s in st["sheets"].items()}
    for p, pips in minus.items():  # the minus points are on the sheets
        cell = page.locator(f'#sheets td.minus[data-player="{p}"]').inner_text()
        assert cell == (f"-{pips}" if pips else "")
    first_id = st["match_id"]
    page.goto(srv.url + "/matches")
    row = page.locator("#history tbody tr").first
    assert "demo" in row.inner_text()
    assert st["winners"][0] in row.inner_text()
    page.goto(srv.url + "/rankings")
    assert st["winners"][0] not in page.inner_text("main")     # demo games are not ranked
    page.goto(srv.url)  # after the result, a new game
    page.wait_for_function(f"() => window.ZatreLive.state.match_id > {first_id}", timeout=30000)


def test_an_operator_annuls_a_match_and_history_says_why(server, page):
    srv = server("--source", "none")
    srv.post("/setup", {"players": ["Ann", "Ben"], "starter": "Ann", "camera": "none"})
    srv.post("/table/turn", {"placed": FIRST})
    sign_in(page, srv.url)
    page.click("#match-page-link")                   # from the table to its match page
    page.wait_for_selector("#annul-box")
    assert page.url.endswith("/matches/1")
    page.click("#annul-box summary")
    page.fill("#annul-reason", "Ben sat at the wrong table")
    page.click("#annul-submit")
    page.wait_for_selector("#annulled")
    assert "Annulled: Ben sat at the wrong table" in page.inner_text("#annulled")
    assert "Match 1 annulled" in page.inner_text("#toast")
    assert "Match annulled: Ben sat at the wrong table" in page.text_content("ol.events")
    page.goto(srv.url + "/matches")
    assert "annulled" in page.inner_text("#history") and "wrong table" in page.inner_text("#history")
    page.goto(srv.url)
    assert page.inner_text("#who") == "No match"
    assert srv.get("/api/matches/1")["id"] == 1  # kept in the records


def test_play_at_this_table_while_a_match_runs_is_a_choice_not_a_409_page(server, page):
    srv = server("--source", "none")
    sign_in(page, srv.url)
    page.goto(srv.url + "/tournaments")
    page.fill('#tournament-form input[name="name"]', "Herbst-Cup 2026 (Süd)")
    page.fill('#tournament-form textarea[name="players"]', "Ann, Ben, Cleo")
    page.click("#tournament-form button")
    page.wait_for_selector("#standings")
    assert "Herbst-Cup 2026 (Süd)" in page.inner_text("h1")
    page.click('li[data-pairing="Ann|Ben"] button')
    page.wait_for_selector("#controls")
    srv.post("/table/turn", {"placed": FIRST})
    page.goto(srv.url + "/tournaments/1")
    assert page.get_attribute('li[data-pairing="Ann|Ben"]', "data-status") == "playing"
    page.click('li[data-pairing="Ann|Cleo"] button')
    page.wait_for_selector("#toast-choice")
    assert "still running" in page.inner_text("#toast") and page.url.endswith("/tournaments/1")
    page.click("#toast-choice")                     # end it unfinished, play this pairing
    page.wait_for_selector("#controls")
    assert srv.get("/api/state")["players"] in (["Ann", "Cleo"], ["Cleo", "Ann"])
    page.goto(srv.url + "/tournaments/1")
    assert page.get_attribute('li[data-pairing="Ann|Ben"]', "data-status") == "unfinished"
    assert "Play again" in page.inner_text('li[data-pairing="Ann|Ben"]')
    page.goto(srv.url + "/tournaments")
    page.fill('#tournament-form input[name="name"]', "Cup <2>")
    page.fill('#tournament-form textarea[name="players"]', "Ann, Ben, Cleo")
    page.click("#tournament-form button")
    page.wait_for_selector("#toast.bad:not([hidden])")
    assert "cannot hold '<' '>'" in page.inner_text("#toast") and page.url.endswith("/tournaments")


def test_club_overview_with_two_tables_on_postgresql(server, page, tmp_path):
    from ..databases import Databases

    db = Databases("postgresql", tmp_path)         # skipped, with the reason, without one
    try:
        one = server("--source", "none", "--db", db.url, "--table", "table-1")
        two = server("--source", "none", "--db", db.url, "--table", "table-2")
        one.post("/setup", {"players": ["Ann", "Ben"], "starter": "Ann", "camera": "none"})
        one.post("/table/turn", {"placed": FIRST})
        two.post("/setup", {"players": ["Cleo", "Dora"], "starter": "Dora", "camera": "none"})
        club = server("--club", "--db", db.url)
        page.goto(club.url)
        assert page.url.endswith("/club")
        page.wait_for_selector('article[data-table="table-2"]')
        t1 = page.locator('article[data-table="table-1"]')
        assert "Ben to play · turn 2" in t1.inner_text()
        assert t1.locator('li[data-player="Ann"] b').inner_text() == "6"
        assert t1.locator('g.tile[data-cell="H8"]').count() == 1          # the thumbnail
        assert t1.locator("a").get_attribute("href") == one.url + "/"
        t2 = page.locator('article[data-table="table-2"]')
        assert "Dora to play · turn 1" in t2.inner_text()
        assert t2.locator("a").get_attribute("href") == two.url + "/"
        two.post("/table/turn", {"placed": FIRST})                      # live, by polling
        page.wait_for_function(
            "() => document.querySelector('article[data-table=\"table-2\"]')"
            ".innerText.includes('Cleo to play')", timeout=15000)
        page.click('article[data-table="table-1"] a')
        page.wait_for_selector("#board")
        assert page.url == one.url + "/"
    finally:
        db.drop()


def test_held_tiles_name_their_turn_and_after_the_end_only_what_applies(server, page):
    srv = server("--source", "none")
    srv.post("/setup", {"players": ["Erik", "Fiona"], "starter": "Fiona", "camera": "none"})
    srv.post("/table/turn", {"placed": FIRST})
    srv.post("/table/turn", {"placed": {"G8": 5}})          # Erik keeps one tile back
    sign_in(page, srv.url)
    page.wait_for_function("() => window.ZatreLive && window.ZatreLive.state.turns_played === 2")
    options = page.locator("#held-turn option").all_inner_texts()
    assert options == ["turn 2 by Erik", "turn 1 by Fiona"]   # newest first, chosen
    page.fill("#held-tiles", "6")
    page.click("#held-form button")
    page.wait_for_function("() => window.ZatreLive.state.held.Erik")
    # the toast comes with the POST's answer, which may land after the event stream's
    # update on a busy machine: wait for it rather than read it at once
    page.wait_for_function("() => (document.querySelector('#toast').innerText || '')"
                           ".includes('kept back by Erik in turn 2')", timeout=10_000)
    # a refusal: a toast at the foot of the page, clear of the turn card
    page.evaluate("() => window.Zatre.post('/table/end-turn')")
    page.wait_for_selector("#toast.bad:not([hidden])")
    toast, card = page.locator("#toast").bounding_box(), page.locator(".turn-card").bounding_box()
    assert toast["y"] > card["y"] + card["height"] or toast["x"] > card["x"] + card["width"] \
        or toast["x"] + toast["width"] < card["x"]
    srv.post("/table/finish", {"minus": {"Erik": [6], "Fiona": 0}})
    page.wait_for_function("() => window.ZatreLive.state.finished")
    assert page.locator('#mode button[data-mode="enter"]').is_hidden()
    assert page.locator("#finish-box").is_hidden() and page.locator("#held-form").is_hidden()
    assert page.locator('#mode button[data-mode="correct"]').is_visible()
    assert page.locator("#undo").is_visible()                 # it reopens the match
    assert page.inner_text("#who") == "Fiona won"


def test_the_club_server_is_an_overview_with_no_setup_code_and_no_axe_violation(
        server, browser, tmp_path):
    """zatre serve --club (SQLite here; PostgreSQL above): it prints no setup code, offers
    no Setup, plays no match, and its /club has no axe violation at all."""
    from .a11y import axe_violations

    one = server("--source", "none", data_dir=tmp_path / "shared")
    one.post("/setup", {"players": ["Ann", "Ben"], "starter": "Ann", "camera": "none"})
    one.post("/table/turn", {"placed": FIRST})
    one.stop()                                    # SQLite: one server at a time on the file
    two = server("--source", "none", "--table", "table-2", data_dir=tmp_path / "shared")
    two.post("/setup", {"players": ["Cleo", "Dora", "Erik"], "starter": "Dora",
                        "camera": "none"})
    two.post("/table/turn", {"placed": FIRST})
    two.post("/table/turn", {"placed": {"G8": 4}})
    two.stop()
    club = server("--club", data_dir=tmp_path / "shared")
    log = (tmp_path / f"server-{club.port}.log").read_text()
    assert "club overview" in log and "setup code" not in log
    for lang in ("en", "de"):
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale=lang)
        page = ctx.new_page()
        page.goto(club.url + "/setup")
        assert page.url.endswith("/club")
        page.wait_for_selector("article[data-table]")
        assert page.locator('nav a[href="/setup"]').count() == 0
        assert axe_violations(page) == []
        shot = os.environ.get("ZATRE_SCREENSHOT_DIR")
        if shot and lang == "en":
            page.wait_for_selector('article[data-table="table-2"]')
            page.screenshot(path=str(Path(shot) / "club-overview.png"), full_page=True)
        ctx.close()
    assert sorted(t["table"] for t in club.get("/api/club")["tables"]) == ["table-1", "table-2"]
