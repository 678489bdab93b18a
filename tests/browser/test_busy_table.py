"""The dashboard when the table is busy: a page the server has no room to stream to
polls and stays current; a double click scores a turn once."""

from __future__ import annotations

from .conftest import sign_in
from .test_dashboard import _play_some


def test_a_page_refused_a_stream_polls_and_stays_current(server, browser, page, monkeypatch):
    monkeypatch.setenv("ZATRE_SERVER__STREAMS_PER_ADDRESS", "1")
    srv = server("--source", "none")
    sim = _play_some(srv, 2)
    page.goto(srv.url + "/sheet")
    page.wait_for_selector("#live.pill-live")
    second = browser.new_page()
    polled = []
    second.on("request", lambda r: polled.append(r.url) if r.url.endswith("/api/state") else None)
    second.goto(srv.url + "/sheet")
    second.wait_for_function("() => window.ZatreLive && window.ZatreLive.state.turns_played === 2")
    assert polled, "the refused page did not poll /api/state"
    srv.post("/table/turn", {"placed": sim.step().result.placed})
    for p in (page, second):
        p.wait_for_function("() => window.ZatreLive.state.turns_played === 3", timeout=10000)
    assert second.inner_text("#live") == "live"
    second.close()


def test_a_double_click_on_score_this_turn_scores_once(server, page):
    srv = server("--source", "none")
    srv.post("/setup", {"players": ["Ann", "Ben"], "starter": "Ann", "camera": "none"})
    sign_in(page, srv.url)
    page.goto(srv.url + "/")
    page.click('#mode button[data-mode="enter"]')
    for cell, value in {"H8": 6, "H7": 5, "G7": 5}.items():
        page.locator(f'#board g.cell[data-cell="{cell}"]').click(force=True)
        page.click(f'#picker button[data-value="{value}"]')
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.dblclick("#commit-turn")    # both clicks land before the first reply comes
    page.wait_for_function("() => window.ZatreLive.state.turns_played === 1")
    assert [u[len(srv.url):] for u in posts] == ["/table/turn"]   # the button was off
    st = srv.get("/api/state")
    assert st["turns_played"] == 1 and st["pending"] is None and st["turn"] == "Ben"
    assert st["alerts"] == []
