"""``server/tile_learning.py`` through the Flask test client: photos read and kept,
each refusal one line with nothing kept, the fit in the background stored beside the
calibration, back to the base model."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest

from zatre_vision.bench.adapt_bench import calibration_photo
from zatre_vision.server.context import context
from zatre_vision.synth.config import SynthConfig

SIZE = (960, 720)


@pytest.fixture(scope="module")
def calib_jpeg():
    img, layout = calibration_photo(SynthConfig().with_tiles("square-pips"), 77, 0, SIZE)
    return cv2.imencode(".jpg", img)[1].tobytes(), layout


def _upload(operator, data: bytes, name="p.jpg"):
    return operator.post("/calibration/tiles/photo",
                         data={"photo": (io.BytesIO(data), name)},
                         headers={"X-CSRF-Token": "test-token", "Accept": "application/json"},
                         content_type="multipart/form-data")


def test_refusals_are_one_line_and_keep_nothing(operator, client):
    assert client.post("/calibration/tiles/photo").status_code in (400, 401)
    res = _upload(operator, b"\xff\xd8 broken")
    assert res.status_code == 400 and "not a photo" in res.get_json()["error"]
    blank = cv2.imencode(".png", np.full((240, 320, 3), 80, np.uint8))[1].tobytes()
    res = _upload(operator, blank)
    assert res.status_code == 409 and "no board" in res.get_json()["error"]
    res = operator.post_json("/calibration/tiles/photo")
    assert res.status_code == 409 and "no camera frame" in res.get_json()["error"]
    res = operator.post_json("/calibration/tiles/learn", {"truth": {}})
    assert res.status_code == 409 and "photo" in res.get_json()["error"]
    assert client.get("/api/calibration/tiles").get_json()["photos"] == []


def test_a_photo_is_read_kept_and_learnt_from(operator, client, app, calib_jpeg, settings):
    data, layout = calib_jpeg
    res = _upload(operator, data)
    assert res.status_code == 200, res.get_json()
    photo = res.get_json()["tiles"]["photos"][0]
    assert photo["id"] == 1 and set(photo["cells"]) | set(photo["uncertain"])
    bad = operator.post_json("/calibration/tiles/learn",
                             {"truth": {"1": {"cells": {"Z99": 3}}}})
    assert bad.status_code == 409 and "Z99" in bad.get_json()["error"]
    res = operator.post_json("/calibration/tiles/learn", {"truth": {"1": {"cells": layout}}})
    assert res.status_code == 200
    context(app).tiles.wait(120)
    state = client.get("/api/calibration/tiles").get_json()
    assert state["job"]["state"] == "done", state["job"]
    report = state["job"]["report"]
    assert report["photos"] == 1 and report["tiles"] == len(layout)
    assert state["stored"] == {"adapted": report["adapted"], "report": report}  # kept as learnt
    res = operator.post_json("/calibration/tiles/base")
    assert res.status_code == 200 and res.get_json()["tiles"]["stored"] is None


def test_a_corrected_cell_keeps_the_frame_and_feeds_a_refit(operator, client, app, table,
                                                            calib_jpeg):
    from types import SimpleNamespace

    from zatre_vision.store.tile_corrections import TileCorrections

    data, layout = calib_jpeg
    table.new_match(["Cleo", "Dan"], source="manual")
    assert operator.post_json("/table/turn", {"placed": {"H8": 6, "H7": 5, "G7": 5}}
                              ).status_code == 200
    # manual entry, no camera: the correction stands, nothing is kept
    assert operator.post_json("/table/cell", {"cell": "H7", "value": 4}).status_code == 200
    assert client.get("/api/calibration/tiles").get_json()["corrections"] == 0
    refused = operator.post_json("/calibration/tiles/learn-corrections")
    assert refused.status_code == 409 and "no corrections" in refused.get_json()["error"]
    # a camera frame (the layout photo): its corrected cells are kept with their values
    frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    context(app).camera = SimpleNamespace(
        runner=SimpleNamespace(last_frame=SimpleNamespace(image=frame)), source="none")
    cells = list(layout)[:8]
    for c in cells:  # corrections of cells the match holds or not: the value is the truth
        operator.post_json("/table/cell", {"cell": c, "value": layout[c]})
    kept = TileCorrections(context(app).store).since("2000")
    assert [(r["cell"], r["value"]) for r in kept][-len(cells):] == [(c, layout[c]) for c in cells]
    assert kept[0]["frame"][:2] == b"\xff\xd8"  # a JPEG of the frame
    assert client.get("/api/calibration/tiles").get_json()["corrections"] == len(kept)
    res = operator.post_json("/calibration/tiles/learn-corrections")
    assert res.status_code == 200, res.get_json()
    context(app).tiles.wait(120)
    job = client.get("/api/calibration/tiles").get_json()["job"]
    assert job["state"] == "done", job
    assert job["report"]["photos"] == 1 and job["report"]["tiles"] == len(kept)
    # and the kept corrections can be cleared
    res = operator.post_json("/calibration/tiles/corrections/clear")
    assert res.status_code == 200 and res.get_json()["tiles"]["corrections"] == 0
