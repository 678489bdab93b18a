"""Wide tables on a phone (issue 62): at 390 px the history, rankings, standings and the
analysis summary scroll sideways inside their own region, say so under it, and the
keyboard reaches the region and scrolls it; where a table fits, no hint and no tab stop."""

from __future__ import annotations

from .test_accessibility import _board_match

TABLES = {"/matches": "#history", "/rankings": "#rankings", "/tournaments/1": "#standings",
          "/matches/1/analysis": "#analysis-summary"}


def _setup(server):
    srv = server("--source", "none")
    _board_match(srv, 10, finish=True)
    srv.post("/tournaments", {"name": "Cup", "players": "Ann, Ben, Cleo"})
    return srv


def test_a_wide_table_scrolls_with_a_hint_and_the_keyboard_at_390_px(server, browser):
    srv = _setup(server)
    for lang, hint in (("en", "arrow keys"), ("de", "Pfeiltasten")):
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale=lang,
                                  is_mobile=True, has_touch=True)
        page = ctx.new_page()
        for path, table in TABLES.items():
            page.goto(srv.url + path)
            page.wait_for_selector(table)
            region = page.locator(f".table-scroll:has({table})")
            wrap = page.locator(f".table-wrap:has({table})")
            assert "overflowing" in wrap.get_attribute("class"), path
            assert page.locator(f".table-wrap:has({table}) .scroll-hint").is_visible(), path
            assert hint in page.locator(f".table-wrap:has({table}) .scroll-hint").inner_text()
            assert region.get_attribute("role") == "region" and region.get_attribute("aria-label")
            region.focus()                                # a tab stop of its own
            assert page.evaluate("() => document.activeElement.classList.contains('table-scroll')")
            before = region.evaluate("(e) => e.scrollLeft")
            for _ in range(5):
                page.keyboard.press("ArrowRight")
            page.wait_for_function(f"(b) => document.querySelector('.table-scroll:has({table})')"
                                   ".scrollLeft > b", arg=before)
        ctx.close()


def test_a_table_that_fits_has_no_hint_and_no_tab_stop(server, browser):
    srv = _setup(server)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(srv.url + "/tournaments/1")
    page.wait_for_selector("#standings")
    assert page.locator(".table-wrap:has(#standings) .scroll-hint").is_hidden()
    assert page.locator(".table-scroll:has(#standings)").get_attribute("tabindex") is None
    ctx.close()
