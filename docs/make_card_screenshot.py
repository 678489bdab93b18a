"""Regenerate docs/card-table.png: the real server, a 3-player card game entered
through the API (a few turns, a shown hand, one flagged card), shown to a signed-in
operator in Debian's Chromium. Usage: python docs/make_card_screenshot.py [OUT.png]"""
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

out = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).with_name("card-table.png"))
d = Path(tempfile.mkdtemp())
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
url = f"http://127.0.0.1:{port}"
proc = subprocess.Popen([sys.executable, "-m", "zatre_vision.server", "--host", "127.0.0.1",
                         "--port", str(port), "--data-dir", str(d), "--pin", "4321",
                         "--table", "Club table 2"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def post(path, body):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Table-PIN": "4321"})
    return json.loads(urllib.request.urlopen(req, timeout=5).read())


try:
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "/api/state")
            break
        except OSError:
            time.sleep(0.1)
    post("/setup", {"game": "cards", "players": ["Ann", "Ben", "Cleo"], "starter": "Ann", "camera": "none"})
    turns = [{"0,0": 6, "1,0": 4}, {"2,0": 2}, {"0,1": 5}, {"1,1": 5}, {"-1,0": 0}, {"0,2": 1},
             {"1,2": 3},
             {"2,1": 1}, {"2,2": 6}]
    for t in turns:
        r = post("/cards/turn", {"placed": t})
        assert r["turn"]["legal"], r
    post("/cards/show-hand", {})
    assert post("/cards/turn", {"placed": {"-1,2": 1}})["turn"]["legal"]
    post("/cards/turn", {"placed": {"3,0": 5}})
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium",
                              args=["--headless", "--no-sandbox"])
        pg = b.new_page(viewport={"width": 1400, "height": 1000})
        pg.goto(url + "/login")
        pg.fill("#pin", "4321")
        pg.click("#login-submit")
        pg.wait_for_selector("#controls")
        pg.goto(url + "/")
        pg.wait_for_timeout(2600)
        pg.screenshot(path=out, full_page=True)
        b.close()
finally:
    proc.terminate()
    proc.wait(5)
