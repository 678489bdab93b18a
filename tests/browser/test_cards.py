"""The card game in a real browser: set up through the Setup form, a few card turns
entered by tapping free places and picking values, an illegal card with the engine's
reason, shows hand, and a spectator's sheet updated live over the event stream."""

from __future__ import annotations

from .conftest import sign_in


def lay(page, cards: dict[str, int]) -> None:
    for pos, value in cards.items():
        page.locator(f'#layout g.slot[data-pos="{pos}"]').click(force=True)
        page.click(f'#card-picker button[data-value="{value}"]')
    page.click("#commit-turn")


def wait_turn(page, n: int) -> None:
    page.wait_for_function(f"() => window.ZatreLive && window.ZatreLive.state.turn_number >= {n}",
                           timeout=10000)


def test_card_turns_through_the_ui(server, page, browser):
    srv = server("--source", "none")
    sign_in(page, srv.url)
    page.goto(f"{srv.url}/setup")
    page.select_option("#game", "cards")
    assert page.is_visible("#game-note")
    page.fill(".player-input >> nth=0", "Ann")
    page.fill(".player-input >> nth=1", "Ben")
    page.select_option("#starter", "Ann")
    page.click("#setup-submit")
    page.wait_for_selector('[data-cards="live"] #controls')
    # the page is served first and filled from the state it fetches next
    page.wait_for_function(
        "() => document.querySelector('#turn-need').textContent.trim() !== ''", timeout=10000)
    assert "lay two touching cards" in page.inner_text("#turn-need")

    # a spectator watches the sheets
    spectator = browser.new_context().new_page()
    spectator.goto(f"{srv.url}/sheet")
    spectator.wait_for_selector('.card-sheet[data-player="Ann"]')

    lay(page, {"0,0": 6, "1,0": 6})                     # Ann: a 12 -> 5 points
    wait_turn(page, 2)
    assert page.inner_text('#sheets td.grand-total[data-player="Ann"]') == "5"
    assert page.inner_text('#sheets .card-sheet[data-player="Ann"] tr[data-row="1"] td[data-col="12"]') == "5"
    assert page.locator("#layout g.pcard").count() == 2
    assert page.locator('#layout g.slot[data-pos="2,0"]').get_attribute("data-max") == "0"

    lay(page, {"0,1": 4})                                # Ben: 6 + 4 = 10 -> 1 point
    wait_turn(page, 3)
    lay(page, {"2,0": 3})                                # Ann: 15, flagged
    page.wait_for_selector(".alert-illegal-turn")
    assert "more than 12" in page.inner_text(".alert-illegal-turn")
    page.click("#reject")
    page.wait_for_function("() => !window.ZatreLive.state.pending")
    page.click("#show-hand")                             # Ann shows the hand, plays on
    wait_turn(page, 4)
    assert page.inner_text("#who") == "Ann to play"
    lay(page, {"1,1": 5})                                # Ann: 6 + 5 = 11 -> 3 points
    wait_turn(page, 5)

    spectator.wait_for_function(
        "() => document.querySelector('td.grand-total[data-player=\"Ann\"]').textContent === '8'",
        timeout=10000)
    assert spectator.inner_text('td.grand-total[data-player="Ben"]') == "1"
    st = srv.get("/api/state")
    assert st["variant"] == "cards" and st["sheets"]["Ann"]["total"] == 8
    assert st["board"] == {"0,0": 6, "1,0": 6, "0,1": 4, "1,1": 5}
    listing = srv.get("/api/matches")["matches"]
    assert listing[0]["variant"] == "cards"
    spectator.context.close()
