"""The event log is stored as data and written in the reader's language: every line of a
match with turns, a pass, a flagged turn, a correction, held tiles and the end reads
German on a German page (numbers too), English on an English one; a corrected turn is
shown as placed, then the correction with the turn's score after it."""

from __future__ import annotations

import html
import re

from zatre_vision.server.event_lines import event_line, render
from zatre_vision.server.i18n import format_number

DE = {"Accept-Language": "de-DE,de;q=0.9"}
#: English words that no German event line may hold (names and cells aside)
ENGLISH = re.compile(r"\b(placed|scored|points?|passed|corrected|cleared|turn|by|with|the|"
                     r"and|match|started|begins|finished|minus|kept|back|flagged|accepted|"
                     r"operator|rejected|undone|none|read|late|added)\b", re.I)


def _event_lines(page: str) -> list[str]:
    log = page.split('<ol class="events">', 1)[1].split("</ol>", 1)[0]
    lines = re.findall(r"<li[^>]*>(.*?)</li>", log, re.S)
    text = [html.unescape(re.sub(r"<[^>]+>", " ", li)) for li in lines]
    return [" ".join(t.split()[1:]) for t in text]  # the time first


def _play(operator):
    post = operator.post_json
    assert post("/setup", {"players": ["Anna", "Ben"], "starter": "Anna",
                           "camera": "none"}).status_code == 200
    assert post("/table/turn", {"placed": {"H8": 6, "H7": 5, "G7": 5}}).status_code == 200
    assert post("/table/turn", {"placed": {}}).status_code == 200                 # Ben passes
    assert post("/table/turn", {"placed": {"F9": 5, "G9": 5}}).status_code == 200  # flagged
    assert post("/table/reject").status_code == 200
    assert post("/table/turn", {"placed": {"G8": 4}}).status_code == 200
    assert post("/table/turn", {"placed": {"I8": 1}}).status_code == 200
    assert post("/table/cell", {"cell": "G8", "value": 2}).status_code == 200      # corrected
    assert post("/table/held", {"tiles": "6", "turn": 3}).status_code == 200
    assert post("/table/finish", {"minus": {"Anna": 3, "Ben": 12}}).status_code == 200


def test_every_event_line_is_german_on_a_german_page(operator):
    _play(operator)
    lines = _event_lines(operator.get("/matches/1", headers=DE).get_data(as_text=True))
    assert len(lines) == 10, lines
    english = [line for line in lines if ENGLISH.search(line)]
    assert not english, english
    assert lines[0] == "Partie begonnen: Anna, Ben; Anna fängt an."
    assert lines[1] == "Anna legte H8=6 H7=5 G7=5 und erhielt 3 Punkte (6 mit x2)."
    # the turn as placed, then the correction on its own line, with the score after it
    assert lines[5].startswith("Anna legte G8=4 und erhielt ")
    assert re.fullmatch(r"G8 auf 2 korrigiert: Zug 3 von Anna zählt jetzt \d+ Punkte?\.",
                        lines[7]), lines[7]


def test_the_same_log_in_english_says_the_turn_then_its_correction(operator):
    _play(operator)
    lines = _event_lines(operator.get("/matches/1").get_data(as_text=True))
    assert lines[1] == "Anna placed H8=6 H7=5 G7=5 and scored 3 points (6 with the x2)."
    assert lines[2] == "Ben passed."
    assert lines[5].startswith("Anna placed G8=4 and scored ")           # as placed
    assert re.fullmatch(r"G8 corrected to 2: turn 3 by Anna now scores \d+ points?\.", lines[7])
    assert lines[9] == "Match finished; minus points: Anna 3, Ben 12."


def test_an_old_stored_event_stays_readable():
    """Stored before the score came with the event: the replay's score where the turn
    still holds the tiles, and no score where a correction changed them since."""
    steps = [{"turn": None}, {"turn": {"player": "Anna", "placed": {"H8": 6, "H7": 5, "G7": 5},
                                       "points": {"10": 0, "11": 0, "12": 0}, "gain": 0}}]
    old = {"kind": "turn", "turn_number": 1, "payload": {"placed": {"H8": 6, "H7": 5, "G7": 5},
                                                         "legal": True}}
    assert render(event_line(old, steps), "de") == "Anna legte H8=6 H7=5 G7=5 und erhielt 0 Punkte."
    changed = {**old, "payload": {"placed": {"H8": 6, "H7": 5, "G7": 4}, "legal": True}}
    assert render(event_line(changed, steps), "en") == "Anna placed H8=6 H7=5 G7=4."
    unknown = {"kind": "table-moved", "payload": {}}
    assert render(event_line(unknown, steps), "de") == "Table moved."


def test_numbers_in_the_locale_format():
    assert format_number(33.0, 1, lang="de") == "33,0"
    assert format_number(4.907, lang="de") == "4,907"
    assert format_number(4907, lang="de") == "4.907"
    assert format_number(4907, lang="en") == "4,907"
    assert format_number(-2.5, 1, sign=True, lang="de") == "-2,5"
    assert format_number(2.5, 1, sign=True, lang="en") == "+2.5"
    assert format_number(None) == "–"


def test_rankings_and_toasts_in_german(operator):
    _play(operator)
    page = operator.get("/rankings", headers=DE).get_data(as_text=True)
    table = page.split('id="rankings"', 1)[1].split("</table>", 1)[0]
    cells = re.findall(r"<td>([-+]?\d[\d.,]*)</td>", table)
    assert cells and not any(re.fullmatch(r"[-+]?\d+\.\d+", c) for c in cells), cells
    assert any(re.fullmatch(r"[-+]?\d+,\d+", c) for c in cells), cells        # 24,0 and the like
    r = operator.post("/table/coach", json={"on": True},
                      headers={**DE, "X-CSRF-Token": "test-token"})
    assert r.get_json()["message"] == "Trainer an."
