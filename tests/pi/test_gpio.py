"""The button and the alert signal against gpiozero's mock pins."""

import time

import pytest

gpiozero = pytest.importorskip("gpiozero")
from gpiozero.pins.mock import MockFactory, MockPWMPin  # noqa: E402

from zatre_vision.config import GPIOSettings, load_settings  # noqa: E402
from zatre_vision.gpio import AlertSignal, GPIOError, TableButton, start_gpio  # noqa: E402
from zatre_vision.store import open_store  # noqa: E402
from zatre_vision.table import Table  # noqa: E402


class FakeCamera:
    def __init__(self, running=True):
        self.running = running
        self.events = []

    def event(self, name):
        if not self.running:
            return False
        self.events.append(name)
        return True


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()
    f.close()


@pytest.fixture
def table(tmp_path):
    store = open_store(tmp_path / "data")
    t = Table(store, "table-1")
    yield t
    t.close()
    store.close()


class Clock:
    """The button's clock, moved by the test (gpiozero's mock pins call back at once)."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


#: far beyond any test's run: gpiozero's own hold timer never fires, the injected
#: clock decides
HOLD_S = 600.0


def press(pin, clock, seconds):
    pin.drive_low()  # pull-up button: pressed connects the pin to ground
    clock.now += seconds
    pin.drive_high()


def test_short_press_ends_the_turn_and_long_press_undoes(factory, table):
    camera, clock = FakeCamera(), Clock()
    button = TableButton(camera, table, 17, hold_time=HOLD_S, bounce_time=None,
                         factory=factory, clock=clock)
    pin = factory.pin(17)
    press(pin, clock, 0.2)
    assert camera.events == ["end_turn"]
    press(pin, clock, HOLD_S - 0.01)
    assert camera.events == ["end_turn", "end_turn"]
    press(pin, clock, HOLD_S)
    assert camera.events == ["end_turn", "end_turn", "undo"]  # no end_turn on its release
    assert button.presses == ["end_turn", "end_turn", "undo"]
    button.close()


def test_the_hold_timer_undoes_while_the_button_is_still_down(factory, table):
    camera, clock = FakeCamera(), Clock()
    button = TableButton(camera, table, 17, hold_time=HOLD_S, bounce_time=None,
                         factory=factory, clock=clock)
    pin = factory.pin(17)
    pin.drive_low()
    button._on_held()          # gpiozero's hold timer fires (its thread) while held
    assert camera.events == ["undo"]
    clock.now += HOLD_S + 5
    pin.drive_high()           # the release does nothing more
    assert camera.events == ["undo"] and button.presses == ["undo"]
    button.close()


def test_long_press_without_camera_undoes_the_tables_last_turn(factory, table):
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    table.commit_turn({"H8": 6, "H7": 5, "G7": 5}, source="manual")
    clock = Clock()
    button = TableButton(FakeCamera(running=False), table, 17, hold_time=HOLD_S,
                         bounce_time=None, factory=factory, clock=clock)
    pin = factory.pin(17)
    press(pin, clock, 0.02)
    assert button.presses == ["end_turn-ignored"]
    assert table.state()["board"]
    press(pin, clock, HOLD_S + 1)
    assert button.presses[-1] == "undo-table"
    assert table.state()["board"] == {}
    press(pin, clock, HOLD_S + 1)
    assert button.presses[-1] == "undo-refused"  # nothing left to undo: no crash
    button.close()


def wait_for(cond, timeout=3.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("kind", ["led", "buzzer"])
def test_signal_blinks_while_an_illegal_turn_waits(factory, table, kind):
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    signal = AlertSignal(table, 27, kind, on_time=0.05, off_time=0.05, factory=factory)
    pin = factory.pin(27)
    assert wait_for(lambda: signal.changed.is_set())
    assert not signal.active and pin.state == 0
    table.commit_turn({"A5": 3}, source="camera")  # not on the start cell: illegal
    assert table.state()["alerts"][0]["kind"] == "illegal-turn"
    assert wait_for(lambda: signal.active)
    mark = len(pin.states)
    # blinking: the pin goes on and off again (gpiozero's thread), whatever the load
    assert wait_for(lambda: [s.state for s in pin.states[mark:]].count(0) >= 2
                    and 1 in [s.state for s in pin.states[mark:]])
    table.reject_pending(source="manual")
    assert wait_for(lambda: not signal.active)
    assert wait_for(lambda: pin.state == 0)
    signal.close()


def test_active_low_signal(factory, table):
    signal = AlertSignal(table, 22, "led", active_high=False, factory=factory)
    assert factory.pin(22).state == 1  # off is high on an active-low LED
    signal.close()


def test_start_gpio_from_settings(table):
    settings = load_settings(None, {"gpio": {"enabled": True, "pin_factory": "mock",
                                             "button_pin": 5, "signal_pin": 6,
                                             "signal": "buzzer", "hold_time_s": 0.5}})
    camera = FakeCamera()
    hw = start_gpio(settings.gpio, table, camera)
    try:
        assert hw.button.button.hold_time == 0.5
        assert hw.signal.kind == "buzzer"
    finally:
        hw.close()
        gpiozero.Device.pin_factory = None


@pytest.mark.filterwarnings("ignore::gpiozero.PinFactoryFallback")
def test_no_gpio_on_this_machine_is_a_plain_error(table, monkeypatch):
    """Off a Pi, gpiozero's own factories all fail: one plain line, no traceback."""
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    gpiozero.Device.pin_factory = None
    gpio = GPIOSettings(enabled=True, button_pin=5, signal_pin=6)
    try:
        with pytest.raises(GPIOError, match="gpio cannot be used"):
            start_gpio(gpio, table, FakeCamera())
    finally:
        gpiozero.Device.pin_factory = None


def test_signal_blinks_slowly_while_a_camera_turn_waits_for_a_cell(factory, table):
    table.new_match(["Ann", "Ben"], "Ann", source="manual")
    signal = AlertSignal(table, 27, "led", on_time=0.05, off_time=0.05, factory=factory)
    signal.WAITING_BLINK = (0.15, 0.05)
    pin = factory.pin(27)
    table.set_waiting_turn({"turn": 2, "player": "Ben", "cells": ["F6"], "ambiguous": [],
                            "queued": 0, "message": "cannot read F6: lift the hand, or "
                            "enter its value"})
    assert wait_for(lambda: signal.showing == "waiting")
    seen = set()
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        seen.add(pin.state)
        time.sleep(0.01)
    assert seen == {0, 1}
    table.commit_turn({"A5": 3}, source="camera")  # an illegal turn outranks the wait
    assert wait_for(lambda: signal.showing == "illegal")
    table.reject_pending(source="manual")
    assert wait_for(lambda: signal.showing == "waiting")
    table.set_waiting_turn(None)
    assert wait_for(lambda: not signal.active)
    signal.close()
