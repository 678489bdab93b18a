"""Every page on a 390 px phone and on a desktop, in English and German: nothing runs
off the side (no horizontal overflow), and a German page holds no English word, its
page scripts' words, event-log lines, toasts and numbers included."""

from __future__ import annotations

import os
import re
from pathlib import Path

from .conftest import sign_in
from .test_accessibility import PAGES, _board_match

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
#: English words a German page may not show (names, cells and "Zatre" aside)
ENGLISH = re.compile(
    r"\b(placed|scored|points?|passed|corrected|cleared|turn|turns|by|with|the|and|match|"
    r"matches|started|begins|finished|unfinished|kept|back|flagged|accepted|operator|"
    r"rejected|undone|none|live|offline|reconnecting|hand|rules|tiles?|bag|play|playing|"
    r"this|start|end|undo|wins?|season|tournament|round|sign|signed|coach|on|off|"
    r"declared|club|overview|table|player|players|score|sheet|print|history|rankings|"
    r"setup|calibration|camera|analysis|of|to|at|is|no|not|yet)\b")
#: a decimal number written the English way ("33.0", "4.907")
ENGLISH_DECIMAL = re.compile(r"(?<![\d.,=A-Z])\d+\.\d+(?![\d.])")


def _paths(srv) -> list[tuple[str, bool]]:
    return [(path.format(board=2, cards=1, tid=1, evening=2), pin) for path, pin in PAGES]


def _overflow(page) -> int:
    # wider than the screen: content off the side, or a page laid out wider than the
    # phone (no viewport meta: 980 px)
    return page.evaluate("() => Math.max(document.documentElement.scrollWidth,"
                         " document.documentElement.clientWidth) - window.screen.width")


def _wide_elements(page) -> list[str]:
    """The first elements that reach past the screen's right edge (for the message)."""
    return page.evaluate("""() => [...document.querySelectorAll('body *')].filter((e) => {
        const b = e.getBoundingClientRect(); return b.width > 0 && b.right > window.screen.width + 1; })
      .slice(0, 4).map((e) => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className)""")


def _visible_text(page) -> str:
    return page.evaluate("""() => {
      const parts = [document.body.innerText, document.title];
      document.querySelectorAll('[aria-label], [title], [placeholder], option').forEach((e) =>
        parts.push(e.getAttribute('aria-label') || '', e.getAttribute('title') || '',
                   e.getAttribute('placeholder') || '', e.tagName === 'OPTION' ? e.textContent : ''));
      return parts.join('\\n');
    }""")


def _english_words(text: str) -> list[str]:
    # names of the players, cell names and what the product is called stay as they are
    text = re.sub(r"\b(Ann|Ben|Cleo|Cup|Zatre|ZATRE|Vision|PIN|CSV|JSON|EN|DE|table-1)\b", " ", text)
    text = re.sub(r"(?<!\w)/[\w./-]+", " ", text)  # a path on the server (the operator's only)
    found = ENGLISH.findall(text) + ENGLISH_DECIMAL.findall(text)
    return sorted(set(found))


def _german_toasts(page, srv) -> list[str]:
    """Toasts of the page script and of the server, as a German operator sees them."""
    seen = []
    page.goto(srv.url + "/")
    page.click('#mode button[data-mode="enter"]')
    page.click("#commit-turn")                       # nothing drafted: the script's word
    page.wait_for_selector("#toast:not([hidden])")
    seen.append(page.inner_text("#toast"))
    page.evaluate("document.querySelector('#toast').hidden = true")
    page.evaluate("document.querySelector('#coach-toggle').click()")  # the server's reply
    page.wait_for_selector("#toast:not([hidden])")
    seen.append(page.inner_text("#toast"))
    page.goto(srv.url + "/tournaments/1")     # a refusal with its way out, while a match runs
    page.locator('li[data-status="open"] button').first.click()
    page.wait_for_selector("#toast-choice")
    seen.append(page.inner_text("#toast"))
    page.click("#toast .btn-ghost")
    assert all(seen), seen
    return seen


def _setup(server):
    srv = server("--source", "none")
    srv.post("/setup", {"game": "cards", "players": ["Ann", "Ben"], "starter": "Ann",
                        "camera": "none"})
    _board_match(srv, 10, finish=True)
    srv.post("/tournaments", {"name": "Cup", "players": "Ann, Ben, Cleo"})
    srv.post("/tournaments", {"name": "Clubabend", "format": "swiss", "rounds": 3,
                              "players": "Ann, Ben, Cleo, Dora, Erik, Fiona, Gert"})
    _board_match(srv, 4, finish=False)
    srv.post("/table/cell", {"cell": "H8", "value": 6})
    return srv


def test_every_page_fits_a_phone_and_a_german_page_has_no_english_word(server, browser):
    srv = _setup(server)
    overflow: dict[str, int] = {}
    english: dict[str, list[str]] = {}
    for lang in ("en", "de"):
        for viewport in (PHONE, DESKTOP):
            if lang == "en" and viewport is DESKTOP:
                continue  # the desktop layout in English is held by the other tests
            phone = viewport is PHONE  # a phone's browser: a page without a viewport meta is laid out 980 px wide
            ctx = browser.new_context(viewport=viewport, locale=lang, is_mobile=phone, has_touch=phone)
            page = ctx.new_page()
            sign_in(page, srv.url)
            for path, _pin in _paths(srv):
                page.goto(srv.url + path)
                page.wait_for_load_state("networkidle")
                page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
                key = f"{lang} {viewport['width']} {path}"
                if _overflow(page) > 0:
                    overflow[key] = (_overflow(page), _wide_elements(page))
                if lang == "de" and path != "/matches/999":
                    words = _english_words(_visible_text(page))
                    if words:
                        english[key] = words
            if lang == "de":
                toasts = _german_toasts(page, srv)
                if _english_words(" ".join(toasts)):
                    english[f"de {viewport['width']} toasts"] = toasts
            ctx.close()
    assert not overflow, overflow
    assert not english, english


def test_the_phone_board_has_labels_and_finger_sized_cells_when_zoomed(server, browser):
    srv = server("--source", "none")
    _board_match(srv, 6, finish=False)
    ctx = browser.new_context(viewport=PHONE, locale="de", has_touch=True, is_mobile=True)
    page = ctx.new_page()
    sign_in(page, srv.url)
    page.click('#mode button[data-mode="enter"]')
    page.wait_for_function("() => document.querySelector('#board').classList.contains('zoomed')")
    size = page.evaluate("""() => {
      const r = document.querySelector('#board [data-cell="H8"] .cell-bg').getBoundingClientRect();
      return Math.min(r.width, r.height);
    }""")
    assert size >= 44, size
    # the labels of the columns and rows in view are shown beside the zoomed board
    labels = page.evaluate("""() => [...document.querySelectorAll('#board .labels text')]
      .filter((t) => { const r = t.getBoundingClientRect(); return r.width > 0 &&
        r.left >= 0 && r.right <= window.innerWidth && getComputedStyle(t).visibility !== 'hidden'
        && getComputedStyle(t).display !== 'none'; })
      .map((t) => t.textContent)""")
    assert "H" in labels and "8" in labels, labels
    assert _overflow(page) <= 0
    shot = os.environ.get("ZATRE_SCREENSHOT_DIR")
    if shot:  # the manual's phone picture of a match's page (the board: test_table_entry)
        page.goto(srv.url + "/matches/1")
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(Path(shot) / "phone-match.png"), full_page=True)
    ctx.close()
