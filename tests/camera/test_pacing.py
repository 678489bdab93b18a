"""FramePacer with an injected clock: a loop held to fps, late frames not bunched."""

import pytest

from zatre_vision.camera.pacing import FramePacer


class Clock:
    def __init__(self):
        self.t = 100.0
        self.waits = []

    def __call__(self):
        return self.t

    def wait(self, s):
        self.waits.append(round(s, 6))
        self.t += s


def test_a_fast_loop_is_held_to_fps():
    clock = Clock()
    pacer = FramePacer(5, clock, clock.wait)
    starts = []
    for _ in range(11):
        pacer.wait()
        starts.append(clock.t)
        clock.t += 0.01  # the work takes 10 ms
    assert starts[-1] - starts[0] == pytest.approx(2.0)  # 10 periods of 0.2 s
    assert clock.waits[0] == pytest.approx(0.19)


def test_a_late_frame_moves_the_schedule_instead_of_bursting():
    clock = Clock()
    pacer = FramePacer(5, clock, clock.wait)
    pacer.wait()
    clock.t += 1.0  # one frame took a second
    pacer.wait()
    n = len(clock.waits)
    pacer.wait()  # the next one is a full period later, not at once
    assert clock.waits[n:] == [pytest.approx(0.2)]


def test_fps_must_be_positive():
    with pytest.raises(ValueError):
        FramePacer(0)
