"""German and English: the language a request gets, the pages and the server's messages
in German, the JSON's field names unchanged, and the committed catalogues complete and
compiled from their .po files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from zatre_vision.server.context import context
from zatre_vision.server.i18n import TRANSLATIONS, localize, page_words
from zatre_vision.server.message_templates import TEMPLATES

ROOT = Path(__file__).resolve().parents[2]
DE = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}


def test_the_browser_language_picks_german_and_english_stays_the_default(client):
    de = client.get("/", headers=DE).get_data(as_text=True)
    assert '<html lang="de">' in de and "Steine im Sack" in de and "Zatre-Spielplan" in de
    en = client.get("/", headers={"Accept-Language": "fr, en;q=0.3"}).get_data(as_text=True)
    assert '<html lang="en">' in en and "tiles in the bag" in en
    assert '<html lang="en">' in client.get("/").get_data(as_text=True)


def test_the_switch_keeps_a_choice_that_beats_accept_language(client):
    resp = client.get("/language/de?next=/rankings")
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/rankings")
    assert "zatre-lang=de" in resp.headers["Set-Cookie"]
    page = client.get("/rankings", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Klubrangliste" in page
    client.get("/language/en")
    assert "Club ranking" in client.get("/rankings", headers=DE).get_data(as_text=True)
    assert client.get("/language/fr").status_code == 404
    # an outside address as next: back to the table instead
    assert client.get("/language/de?next=https://example.org/").headers["Location"] == "/"


def test_the_table_setting_comes_before_the_browser(app, client):
    context(app).config.server.language = "de"
    assert "Steine im Sack" in client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)


def test_errors_and_toasts_are_german_and_the_json_keeps_its_fields(operator):
    def post(url, body):
        return operator.post(url, json=body, headers={**DE, "X-CSRF-Token": "test-token"})

    r = post("/table/turn", {"placed": {"H8": 6}})
    assert r.status_code == 409
    assert r.get_json() == {"error": "keine Partie an diesem Tisch: unter Einrichten eine starten",
                            "status": 409}
    assert post("/setup", {"players": ["Ann", "Ben"], "starter": "Ann", "camera": "none"}
                ).get_json()["message"] == "Partie 1 gestartet: Ann beginnt."
    body = post("/table/turn", {"placed": {"H8": 6, "H9": 6}}).get_json()
    assert body["message"] == "Zug beanstandet: der erste Zug legt drei Steine, nicht 2"
    # the reasons are stored and broadcast as the engine made them (club tools read them)
    assert body["turn"]["violations"][0]["message"] == "the first turn places three tiles, not 2"
    assert set(body) >= {"ok", "message", "turn", "state"}
    assert post("/table/reject", {}).get_json()["message"] == \
        "Beanstandeter Zug abgelehnt: Steine zurücknehmen."
    assert post("/table/turn", {"placed": {"H8": 5, "H9": 4, "H10": 3}}).get_json()["message"] \
        == "Zug gewertet: Ann 4 Punkte (8 mit x2)."


def test_the_error_page_is_german(client):
    page = client.get("/matches/999", headers=DE).get_data(as_text=True)
    assert "Nicht gefunden" in page and "Zurück zum Tisch" in page


def test_the_calibration_page_is_german(client):
    page = client.get("/calibration", headers=DE).get_data(as_text=True)
    assert "Kalibrierung der Kamera" in page and "Die eigenen Steine dieses Tisches anlernen" in page
    assert 'id="tiles-corrections"' in page and "<code>zatre calibrate --help</code>" in page
    # tiles.js and live-view.js read their words from the page's #i18n-data
    assert page_words("de")["messages"]["The live reader uses the base model."] == \
        "Die Erkennung nutzt das Grundmodell."


def test_localize_fills_the_template_and_leaves_unknown_messages_alone():
    assert localize("line H8-H11 sums to 14, more than 12", "de") == \
        "Reihe H8-H11 hat die Augensumme 14, mehr als 12"
    assert localize("Turn flagged: G8 not connected to the tiles on the board; line H8-H11 "
                    "sums to 14, more than 12", "de") == (
        "Zug beanstandet: G8 hat keine Verbindung zu den ausliegenden Steinen; Reihe H8-H11 "
        "hat die Augensumme 14, mehr als 12")
    assert localize("something new the server says", "de") == "something new the server says"
    assert localize("Turn scored.", "en") == "Turn scored."


def test_the_page_scripts_get_their_words_and_the_templates():
    words = page_words("de")
    assert words["messages"]["{player} to play"] == "{player} ist am Zug"
    assert ["Turn scored.", "Zug gewertet."] in words["templates"]
    assert page_words("en") == {"lang": "en", "messages": {}, "templates": []}


def _extract(cfg: str, keywords: list[str], out: Path) -> set[str]:
    args = [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", str(ROOT / cfg),
            "--no-location", "-o", str(out)]
    for k in keywords:
        args += ["-k", k]
    subprocess.run(args + [str(ROOT)], check=True, capture_output=True, cwd=ROOT)
    with open(out, "rb") as f:
        return {m.id for m in read_po(f) if m.id}


@pytest.mark.parametrize("domain,keywords", [("messages", ["_", "N_"]), ("js", ["_"])])
def test_every_word_of_the_sources_has_a_german_translation(tmp_path, domain, keywords):
    ids = _extract(f"zatre_vision/server/translations/babel-{domain}.cfg", keywords,
                   tmp_path / f"{domain}.pot")
    with open(TRANSLATIONS / "de" / "LC_MESSAGES" / f"{domain}.po", "rb") as f:
        po = {m.id: m.string for m in read_po(f) if m.id}
    untranslated = sorted(i for i in ids if not po.get(i))
    assert not untranslated, f"run `make translations` and translate: {untranslated[:10]}"


@pytest.mark.parametrize("domain", ["messages", "js"])
def test_the_committed_mo_files_match_their_po(domain):
    base = TRANSLATIONS / "de" / "LC_MESSAGES"
    with open(base / f"{domain}.po", "rb") as f:
        po = {m.id: m.string for m in read_po(f) if m.id and m.string}
    with open(base / f"{domain}.mo", "rb") as f:
        mo = {m.id: m.string for m in read_mo(f) if m.id}
    assert mo == po, "run `make translations` (pybabel compile) and commit the .mo files"


def test_every_template_is_in_the_catalogue():
    with open(TRANSLATIONS / "de" / "LC_MESSAGES" / "messages.po", "rb") as f:
        po = {m.id for m in read_po(f) if m.string}
    assert set(TEMPLATES) <= po


def test_the_card_game_and_the_analysis_pages_are_german(operator):
    de = {**DE, "X-CSRF-Token": "test-token"}
    r = operator.post("/setup", json={"game": "cards", "players": ["Ann", "Ben"],
                                      "starter": "Ann", "camera": "none"}, headers=de)
    assert r.get_json()["message"] == "Kartenspiel 1 gestartet: Ann legt die ersten zwei Karten."
    page = operator.get("/", headers=DE).get_data(as_text=True)
    assert "Karten legen" in page and "Karten in dieser Runde gelegt" in page
    assert "Null-Regel: an" in operator.get("/sheet", headers=DE).get_data(as_text=True)
    r = operator.post("/cards/turn", json={"placed": {"0,0": 6, "5,5": 6}}, headers=de)
    assert r.get_json()["message"] == \
        "Zug beanstandet: 5,5 berührt die andere Karte des ersten Zuges nicht"
    operator.post("/setup", json={"players": ["Ann", "Ben"], "starter": "Ann",
                                  "camera": "none", "replace": "on"}, headers=de)
    page = operator.get("/matches/2/analysis", headers=DE).get_data(as_text=True)
    assert "Auswertung der Partie 2" in page
    assert "Die Auswertung entsteht, sobald die Partie beendet ist." in page


def test_the_coach_line_is_german():
    assert localize("Ben: best was I7=2 G8=4 for 10 (you scored 6)", "de") == \
        "Ben: am besten war I7=2 G8=4 für 10 (gewertet: 6)"


def test_one_translation_function_serves_every_page_script():
    """i18n.js alone reads #i18n-data and fills {name}; base.html loads it before any
    page script, and the scripts take their ``_`` from it."""
    static = ROOT / "web" / "static"
    for script in sorted(static.glob("*.js")):
        text = script.read_text(encoding="utf-8")
        if script.name == "i18n.js":
            assert "i18n-data" in text
            continue
        assert "i18n-data" not in text, script.name
        assert "\\{(\\w+)\\}/g, (m, k)" not in text and "function _(" not in text, script.name
        if "_(\"" in text:
            assert "const _ = window.Zatre._;" in text or "var _ = window.Zatre._;" in text, \
                script.name
    base = (ROOT / "web" / "templates" / "base.html").read_text(encoding="utf-8")
    assert base.index("i18n-data") < base.index("i18n.js") < base.index("{% block body %}") \
        < base.index("app.js")
