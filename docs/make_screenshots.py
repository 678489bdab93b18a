"""Take the dashboard screenshots in docs/ (table view and score sheets) with Debian's
Chromium: a mid-game position from a seeded simulated game, one flagged placement,
hints on. Run: python docs/make_screenshots.py"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

import waitress
from playwright.sync_api import sync_playwright

from zatre_vision.config import load_settings
from zatre_vision.demo import render_snapshot
from zatre_vision.server import create_app
from zatre_vision.simulate import Simulation
from zatre_vision.store import open_store
from zatre_vision.table import Table

DOCS = Path(__file__).resolve().parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PIN = "2024"


def main() -> None:
    data = Path(tempfile.mkdtemp())
    settings = load_settings(None, {"server": {"pin": PIN, "data_dir": str(data)}})
    store = open_store(data)
    table = Table(store, "Club table 2", season="2025")
    sim = Simulation(["Anna", "Bernd", "Clara"], seed=21)
    table.new_match(["Anna", "Bernd", "Clara"], sim.game.seat.name, source="camera")
    for _ in range(26):
        t = sim.step()
        table.commit_turn(t.result.placed, t.hand, render_snapshot(t.board, t.result.placed),
                          source="camera", player=t.seat)
    hints = table.state()["hints"]
    cell = next(c for c, m in hints.items() if m <= 3)
    table.commit_turn({cell: 6}, source="camera")  # a flagged placement: a line over 12
    table.set_camera_status({"source": "picamera2", "state": "ok",
                             "message": "board found · 5 fps"})
    app = create_app(settings, table, store)
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=8)
    port = server.effective_port
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 960}, device_scale_factor=1)
        page.goto(f"{base}/login")
        page.fill("#pin", PIN)
        page.click("#login-submit")
        page.wait_for_selector("#controls")
        page.click("#hints-card .slider")
        page.wait_for_selector("#live.pill-live")
        page.wait_for_timeout(2600)  # let the "changed" flashes fade
        page.screenshot(path=str(DOCS / "table-view.png"), full_page=True)
        page.goto(f"{base}/sheet")
        page.wait_for_selector("#live.pill-live")
        page.wait_for_timeout(500)
        page.screenshot(path=str(DOCS / "score-sheet.png"), full_page=True)
        browser.close()
    table.close()  # ends the event streams
    threading.Event().wait(0.5)
    server.close()


if __name__ == "__main__":
    main()
