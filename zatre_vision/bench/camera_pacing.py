"""``zatre bench camera``: is ``camera.fps`` honoured?

A stand-in camera delivers 30 frames a second (its ``read`` blocks until the next
1/30 s tick, as a V4L2 or libcamera capture does) of a rendered board. The camera
service runs it into a table with the real board reader, once paced at ``fps`` (the
setting) and once unpaced (the baseline: how it ran before, every frame processed as
fast as the reader allows), each for ``seconds``. Reported: frames processed a
second, CPU seconds per frame (the whole process) and resident memory.
"""

from __future__ import annotations

import resource
import tempfile
import time

SOURCE_FPS = 30.0


class ThirtyFpsCamera:
    """A camera that gives ``fps`` frames a second, whatever its reader does: a read
    waits for the next frame; frames the reader was too slow for are gone."""

    name = "stand-in-30fps"

    def __init__(self, image, fps: float = SOURCE_FPS, clock=time.monotonic, sleep=time.sleep):
        self.image, self.period = image, 1.0 / fps
        self._clock, self._sleep = clock, sleep
        self._t0 = 0.0
        self.delivered = 0

    def open(self) -> None:
        self._t0 = self._clock()
        self.delivered = 0

    def read(self):
        from ..camera.base import Frame, make_lores

        now = self._clock() - self._t0
        tick = int(now / self.period) + 1
        self._sleep(max(0.0, tick * self.period - now))
        self.delivered += 1
        return Frame(self.image, make_lores(self.image), tick, tick * self.period)

    def close(self) -> None:
        pass


def _rss_mb() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return float("nan")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run_once(image, fps: float | None, seconds: float, reader_factory) -> dict:
    from ..store import open_store
    from ..table import Table
    from ..tracking.service import CameraService

    processed = [0]
    with tempfile.TemporaryDirectory(prefix="zatre-bench-camera-") as data:
        store = open_store(data)
        table = Table(store, "bench")
        table.new_match(["Ann", "Ben"], "Ann")
        service = CameraService(table, ThirtyFpsCamera(image), reader_factory, fps=fps,
                                on_frame=lambda: processed.__setitem__(0, processed[0] + 1))
        service.start()
        time.sleep(2.0)  # the reader loads its model; the count starts after
        n0, t0, c0 = processed[0], time.monotonic(), _cpu()
        time.sleep(seconds)
        n1, t1, c1 = processed[0], time.monotonic(), _cpu()
        rss = _rss_mb()
        service.stop()
        table.close()
        store.close()
    frames = n1 - n0
    return {"fps_setting": fps, "seconds": round(t1 - t0, 2), "frames": frames,
            "processed_fps": round(frames / (t1 - t0), 2),
            "cpu_ms_per_frame": round(1000 * (c1 - c0) / max(frames, 1), 1),
            "cpu_share_of_one_core": round((c1 - c0) / (t1 - t0), 3), "rss_mb": rss}


def run_camera_benchmark(fps: float = 5.0, seconds: float = 20.0) -> dict:
    import cv2

    from ..synth.game_frames import GameScene
    from ..tracking.live_reader import LiveBoardReader
    from ..vision.reader import BoardReader

    cv2.setNumThreads(1)
    scene = GameScene(45, 1280, 960, max_turns=3)
    image = next(iter(scene.frames())).image

    def reader():
        return LiveBoardReader(BoardReader(threads=1))

    paced = run_once(image, fps, seconds, reader)
    baseline = run_once(image, None, seconds, reader)
    error = abs(paced["processed_fps"] - fps) / fps
    return {
        "benchmark": "camera pacing",
        "source_fps": SOURCE_FPS,
        "paced": paced,
        "unpaced_baseline": baseline,
        "summary": {
            "fps_setting": fps, "processed_fps": paced["processed_fps"],
            "within_10_percent": error <= 0.10,
            "cpu_ms_per_frame": paced["cpu_ms_per_frame"],
            "cpu_ratio_paced_to_unpaced": round(
                paced["cpu_share_of_one_core"] / max(baseline["cpu_share_of_one_core"], 1e-9),
                3),
            "rss_mb": paced["rss_mb"],
        },
    }
