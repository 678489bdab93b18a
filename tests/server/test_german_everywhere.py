"""German to the last page (issue 62): every page route of the dashboard, with the ids
of a match, a tournament and an evening that exist and of ones that do not, asked in
German: no English sentence outside names and data, error pages and refusals too, and
dates as German writes them."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from ..browser.test_every_page_on_a_phone import _english_words

FIRST = {"H8": 6, "H7": 5, "G7": 5}
#: what each route's variable part is tried with: something there, and something not
VALUES = {"match_id": ("1", "2", "999"), "tid": ("1", "2", "99"), "season": ("2025", "1999"),
          "number": ("1", "7"), "lang": ("xx",)}
#: pages that are English by design (the manual says so: the Calibration page), and
#: what is not a page (streams, files, the language switch itself)
NOT_PAGES = re.compile(r"^/(static|events|api|calibration|language|logout|cards/events|camera/)"
                       r"|\.(csv|json|jpg|png)$|/snapshot|/export")


class _Shown(HTMLParser):
    """The words a reader sees or hears: text, titles, labels, placeholders."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in ("title", "aria-label", "placeholder", "alt") and value:
                self.parts.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _shown(page: str) -> str:
    parser = _Shown()
    parser.feed(page)
    return html.unescape("\n".join(parser.parts))


def _urls(app) -> list[str]:
    urls = []
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or NOT_PAGES.search(rule.rule):
            continue
        variants = [rule.rule]
        for arg in rule.arguments:
            variants = [re.sub(rf"<(?:\w+:)?{arg}>", value, v) for v in variants
                        for value in VALUES.get(arg, ("1",))]
        urls.extend(variants)
    return sorted(set(urls))


def test_every_page_in_german_has_no_english_sentence(app, operator, table, store):
    table.new_match(["Ann", "Ben"], "Ann", source="demo")
    table.commit_turn(FIRST, source="demo")
    table.commit_turn({"G8": 4}, source="demo")
    table.finish({"Ann": 0, "Ben": 3}, source="demo")
    operator.post_json("/tournaments", {"name": "Cup", "players": ["Ann", "Ben", "Cleo"]})
    operator.post_json("/tournaments", {"name": "Clubabend", "format": "swiss",
                                        "players": ["Ann", "Ben", "Cleo", "Dora"]})
    table.new_match(["Ann", "Ben"], "Ben", source="manual")
    operator.set_cookie("zatre-lang", "de")
    urls = _urls(app)
    assert "/matches/999" in urls and "/tournaments/99" in urls and len(urls) > 15
    english, statuses = {}, {}
    for url in urls:
        r = operator.get(url, follow_redirects=True)
        statuses[url] = r.status_code
        if not r.content_type.startswith("text/html"):
            continue
        # "offline" is German as well (the pill before the page script connects)
        words = [w for w in _english_words(_shown(r.get_data(as_text=True))) if w != "offline"]
        if words:
            english[url] = words
    assert statuses["/matches/999"] == 404 and statuses["/tournaments/99"] == 404
    assert english == {}


def test_a_missing_page_and_the_club_refusal_in_german(app, operator, client):
    operator.set_cookie("zatre-lang", "de")
    page = operator.get("/matches/999").get_data(as_text=True)
    assert "<title>404 Nicht gefunden" in page and "keine Partie 999" in page
    page = operator.get("/no/such/page").get_data(as_text=True)
    assert "Diese Seite gibt es hier nicht." in page
    r = operator.get("/api/matches/999", headers={"Accept": "application/json",
                                                  "Accept-Language": "de"})
    assert r.status_code == 404


def test_dates_as_each_language_writes_them(operator, table, store):
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    table.commit_turn(FIRST, source="manual")
    created = store.get_match(1)["created"]          # 2026-11-28T12:12:05+00:00
    day, time = created[:10].split("-"), created[11:16]
    german = f"{day[2]}.{day[1]}.{day[0]} {time}"
    assert f"{created[:10]} {time}" in operator.get("/matches").get_data(as_text=True)
    operator.set_cookie("zatre-lang", "de")
    for url in ("/matches", "/matches/1", "/matches/1/analysis"):
        page = operator.get(url).get_data(as_text=True)
        assert german in page and f"{created[:10]} {time}" not in page, url


def test_the_demo_marker_once_and_in_german(operator, table):
    table.new_match(["Ann", "Ben"], "Ann", source="demo")
    table.commit_turn(FIRST, source="demo")
    table.commit_turn({"G8": 4}, source="demo")
    operator.set_cookie("zatre-lang", "de")
    page = operator.get("/matches/1").get_data(as_text=True)
    assert page.count("(Vorführung)") == 1 and "(demo)" not in page
