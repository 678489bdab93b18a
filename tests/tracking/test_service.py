"""The camera service drives a live Table: synthetic frames -> pipeline -> rules ->
store, and the game survives the service stopping."""

import threading
import time

from zatre_vision.camera.base import Frame, make_lores
from zatre_vision.store import open_store
from zatre_vision.synth.game_frames import GameScene
from zatre_vision.table import Table
from zatre_vision.tracking.service import CameraService

from ..fakes import TruthReader


class SceneSource:
    """A synthetic game as a camera (not paced), sharing its truth with the reader."""

    name = "synthetic"

    def __init__(self, scene: GameScene, truths: list):
        self.scene, self.truths = scene, truths
        self._frames = None
        self.first = True

    def open(self):
        self._frames = self.scene.frames()

    def read(self):
        f = next(self._frames, None)
        if f is None:
            return None
        self.truths.append(f.truth)
        new_game = None
        if self.first:
            new_game = {"players": list(self.scene.players), "starter": self.scene.starter}
            self.first = False
        return Frame(f.image, make_lores(f.image), f.number, f.number / 5,
                     events=("end_turn",) if f.end_of_turn else (), new_game=new_game)

    def close(self):
        pass


def play_through(service: CameraService, limit_s: float = 120) -> None:
    """Start the service and let it run until its source ends (or ``limit_s``)."""
    service.start()
    deadline = time.monotonic() + limit_s
    while service._thread is not None and service._thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    service.stop()


class LiveTruthReader(TruthReader):
    def __init__(self, truths):
        super().__init__([])
        self._frames = truths


def test_service_plays_a_synthetic_game_into_the_table_and_store(tmp_path):
    scene = GameScene(31, 480, 360, max_turns=5)
    truths = []
    store = open_store(tmp_path)
    table = Table(store, "t1")
    service = CameraService(table, SceneSource(scene, truths), lambda: LiveTruthReader(truths))
    play_through(service)
    assert service.error is None
    placed = [t.placed for t in table.match.turns]
    assert placed == [dict(t.result.placed) for t in scene.turns]
    assert table.state()["camera"]["state"] == "ended"
    # everything is in the store: a fresh table on the same data resumes the match
    again = Table(open_store(tmp_path), "t1")
    assert [t.placed for t in again.match.turns] == placed
    assert again.match.totals() == table.match.totals()


def test_a_missing_model_is_reported_not_raised(tmp_path):
    table = Table(open_store(tmp_path), "t1")
    table.new_match(["Ann", "Ben"])

    def broken():
        raise FileNotFoundError("models/pips.onnx")

    service = CameraService(table, SceneSource(GameScene(1, 64, 48, max_turns=1), []), broken)
    service.start()
    service._thread.join(10)
    service.stop()
    assert table.state()["camera"]["state"] == "error"
    assert "cannot load the classifier" in table.state()["camera"]["message"]


class FlakySource(SceneSource):
    """A folder it may not read at first, then one read that fails (not camera errors:
    the reconnecting source does not retry those)."""

    def __init__(self, scene, truths):
        super().__init__(scene, truths)
        self.opens = 0
        self.reads = 0

    def open(self):
        self.opens += 1
        if self.opens == 1:
            raise PermissionError("frames/: permission denied")
        super().open()

    def read(self):
        self.reads += 1
        if self.reads == 12:
            raise OSError("read error")
        return super().read()


def test_a_pipeline_fault_is_reported_and_the_service_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr("zatre_vision.tracking.service.FAULT_RETRY_S", 0.05)
    scene = GameScene(31, 480, 360, max_turns=4)
    truths = []
    table = Table(open_store(tmp_path), "t1")
    seen = []
    real_status = table.set_camera_status
    monkeypatch.setattr(table, "set_camera_status",
                        lambda st: (seen.append(dict(st)), real_status(st))[1])
    service = CameraService(table, FlakySource(scene, truths), lambda: LiveTruthReader(truths))
    play_through(service)
    errors = [st["message"] for st in seen if st.get("state") == "error"]
    assert any("PermissionError" in m for m in errors) and any("OSError" in m for m in errors)
    assert all("trying again" in m for m in errors)
    assert [t.placed for t in table.match.turns] == [dict(t.result.placed) for t in scene.turns]
    assert service.error is None and table.state()["camera"]["state"] == "ended"


class HangingSource(SceneSource):
    """A camera whose driver hangs in read() after a few frames, until released."""

    def __init__(self, scene, truths, after=8):
        super().__init__(scene, truths)
        self.after, self.reads = after, 0
        self.release = threading.Event()

    def read(self):
        self.reads += 1
        if self.reads == self.after:
            self.release.wait(20)
        return super().read()


class Clock:
    """The service's clock, moved by the test."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_camera_hung_in_read_is_reported_stalled_then_ok_again(tmp_path, monkeypatch):
    from zatre_vision.tracking import service as service_module

    monkeypatch.setattr(service_module, "WATCH_EVERY_S", 0.02)   # how often it looks
    scene = GameScene(31, 480, 360, max_turns=2)
    truths = []
    table = Table(open_store(tmp_path), "t1")
    reported = []   # (the camera's clock, the status) for each report
    real_status = table.set_camera_status
    monkeypatch.setattr(table, "set_camera_status",
                        lambda st: (reported.append((clock.now, dict(st))), real_status(st))[1])
    clock = Clock()
    source = HangingSource(scene, truths)
    service = CameraService(table, source, lambda: LiveTruthReader(truths), clock=clock)
    service.start()
    deadline = time.monotonic() + 30
    while source.reads < source.after:            # the camera hangs in its read
        assert time.monotonic() < deadline
        time.sleep(0.02)
    clock.now += service_module.STALL_S + 1       # only the camera's clock moves on
    while table.state()["camera"].get("state") != "stalled":
        assert time.monotonic() < deadline, table.state()["camera"]
        time.sleep(0.02)
    stalled = [(at, st) for at, st in reported if st.get("state") == "stalled"]
    assert len(stalled) == 1 and stalled[0][0] == 100.0 + service_module.STALL_S + 1
    assert "camera stalled: no frame for 11 s" in stalled[0][1]["message"]
    source.release.set()
    while table.state()["camera"].get("state") == "stalled":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    service._thread.join(max(1.0, deadline - time.monotonic()))   # the game plays to its end
    service.stop()
    assert [t.placed for t in table.match.turns] == [dict(t.result.placed) for t in scene.turns]
