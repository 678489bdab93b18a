"""Take the analysis page screenshot in docs/ (docs/analysis-page.png) with Debian's
Chromium: a finished 3-player match of a seeded simulated game (one greedy and two
random players), analysed by the server in the background.
Run: python docs/make_analysis_screenshot.py"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

import waitress
from playwright.sync_api import sync_playwright

from zatre_vision.config import load_settings
from zatre_vision.server import create_app
from zatre_vision.server.context import context
from zatre_vision.simulate import Simulation
from zatre_vision.store import open_store
from zatre_vision.table import Table

DOCS = Path(__file__).resolve().parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main() -> None:
    data = Path(tempfile.mkdtemp())
    settings = load_settings(None, {"server": {"pin": "2024", "data_dir": str(data)}})
    store = open_store(data)
    table = Table(store, "Club table 2", season="2025")
    sim = Simulation(["Anna", "Bernd", "Clara"], 21, ["greedy", "random", "random"])
    table.new_match(["Anna", "Bernd", "Clara"], sim.game.seat.name, source="manual")
    for _ in range(36):
        t = sim.step()
        table.commit_turn(t.result.placed, t.hand, source="manual", player=t.seat)
    table.finish({"Anna": 0, "Bernd": 0, "Clara": 0})
    app = create_app(settings, table, store)
    context(app).analysis.run_one(table.match_id)
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{server.effective_port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 1100}, device_scale_factor=1)
        page.goto(f"{base}/matches/{table.match_id}/analysis")
        page.wait_for_selector("#analysis-summary")
        page.screenshot(path=str(DOCS / "analysis-page.png"), full_page=True)
        browser.close()
    server.close()
    print(f"written {DOCS / 'analysis-page.png'}")


if __name__ == "__main__":
    main()
