"""A scored turn raises no alarm (English and German, desktop and a 390 px phone): the
live stream brings the page's own turn back (often
before the reply to its submit), and the page recognises it as its own. The red toast
is kept for a real conflict (another screen filling a draft cell: test_dashboard.py)."""

from __future__ import annotations

import pytest

from zatre_vision.simulate import Simulation

from .conftest import sign_in

#: every toast the page shows, recorded as it appears (a red one may last only a moment)
WATCH_TOASTS = """() => {
  window.__toasts = [];
  const t = document.querySelector('#toast');
  new MutationObserver(() => {
    if (!t.hidden) window.__toasts.push({bad: t.classList.contains('bad'), text: t.textContent});
  }).observe(t, {attributes: true, childList: true, characterData: true, subtree: true});
}"""


SCREENS = {"desktop": {"viewport": {"width": 1400, "height": 1000}},
           "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True,
                     "has_touch": True}}


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_turns_scored_with_the_stream_on_raise_no_error_toast(server, browser, lang, screen):
    srv = server("--source", "none")
    sim = Simulation(["Ann", "Ben"], seed=11)
    srv.post("/setup", {"players": ["Ann", "Ben"], "starter": sim.game.seat.name,
                        "camera": "none"})
    ctx = browser.new_context(locale=lang, **SCREENS[screen])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    sign_in(page, srv.url)
    page.goto(srv.url + "/")
    page.wait_for_function("() => document.querySelector('#live').classList.contains('pill-live')")
    page.evaluate(WATCH_TOASTS)
    page.click('#mode button[data-mode="enter"]')
    scored = played = 0
    while scored < 8:
        turn = sim.step()
        placed = turn.result.placed
        if not placed:
            srv.post("/table/turn", {"placed": {}})
        else:
            for cell, value in placed.items():  # by keyboard: the zoomed phone board too
                page.focus(f'#board g.cell[data-cell="{cell}"]')
                page.keyboard.press(str(value))
            page.click("#commit-turn")
            scored += 1
        played += 1
        page.wait_for_function("(n) => window.ZatreLive.state.turns_played >= n", arg=played)
        page.wait_for_function("() => !document.body.classList.contains('busy')")
    toasts = page.evaluate("window.__toasts")
    scored_word = "Turn scored" if lang == "en" else "Zug gewertet"
    assert sum(scored_word in t["text"] for t in toasts) >= 8, toasts  # the toasts were seen
    assert [t for t in toasts if t["bad"]] == []
    assert page.evaluate("Object.keys(sessionStorage).filter((k) => k.startsWith('zatre-draft|'))") == []
    assert srv.get("/api/state")["board"] == sim.game.board.to_dict()
    ctx.close()
    assert not errors, errors


def test_ending_a_match_with_tiles_in_the_bag_asks_first(server, page):
    """One stray click on Finish ends nothing while tiles are in the bag: the toast
    asks, Cancel keeps the match running, its button ends it."""
    srv = server("--source", "none")
    sim = Simulation(["Ann", "Ben"], seed=11)
    srv.post("/setup", {"players": ["Ann", "Ben"], "starter": sim.game.seat.name,
                        "camera": "none"})
    for _ in range(3):
        srv.post("/table/turn", {"placed": sim.step().result.placed})
    sign_in(page, srv.url)
    page.goto(srv.url + "/")
    page.click("#finish-box summary")
    page.fill('#finish-form input[data-player="Ann"]', "6 6")
    page.click("#finish")
    page.wait_for_selector("#toast-choice")
    bag = srv.get("/api/state")["bag"]
    assert f"{bag} tiles are still in the bag" in page.inner_text("#toast")
    page.click("#toast .btn-ghost")                                      # Cancel
    assert page.is_hidden("#toast")
    page.wait_for_timeout(300)
    assert not srv.get("/api/state")["finished"]
    page.click("#finish")
    page.click("#toast-choice")                                          # End the match
    page.wait_for_function("() => window.ZatreLive.state.finished")
    assert srv.get("/api/state")["sheets"]["Ann"]["minus"] == 12
