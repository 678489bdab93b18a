"""The table's button and signal on the Pi's GPIO header, through gpiozero.

- :class:`TableButton`: a short press ends the turn, a long press (``hold_time_s``)
  undoes the last one. Both go to the running camera pipeline (``camera.event``); with
  no camera pipeline (manual entry) the long press undoes the table's last turn.
- :class:`AlertSignal`: an LED blinks (or a buzzer beeps) while the table shows an
  illegal placement, and blinks slowly (long on, short off) while a camera turn
  waits for a cell it cannot read (the dashboard says which); it follows the table's
  state stream in a thread.

gpiozero is imported only here (the ``pi`` extra, or ``python3-gpiozero`` on Raspberry
Pi OS), so nothing else needs it. Pins are BCM numbers from the ``gpio`` settings.
"""

from __future__ import annotations

import importlib
import json
import logging
import threading
import time

log = logging.getLogger("zatre.gpio")

#: gpiozero pin factories by their settings name.
FACTORIES = {
    "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
    "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
    "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
    "native": ("gpiozero.pins.native", "NativeFactory"),
    "mock": ("gpiozero.pins.mock", "MockFactory"),
}


class GPIOError(RuntimeError):
    """GPIO that cannot be used (one-line reason)."""


def pin_factory(name: str | None):
    """The gpiozero pin factory a setting names (None: gpiozero's own choice)."""
    if name is None:
        return None
    module, cls = FACTORIES[name]
    try:
        return getattr(importlib.import_module(module), cls)()
    except Exception as exc:  # noqa: BLE001 - each factory fails in its own way
        raise GPIOError(f"gpio pin factory {name!r} cannot be used: {exc}") from None


def illegal_alert(state: dict) -> bool:
    """Does this table state show an illegal placement waiting for the players?"""
    return any(a.get("kind") == "illegal-turn" for a in state.get("alerts") or ())


def signal_for(state: dict) -> str | None:
    """What the signal shows for this table state: ``"illegal"`` (an illegal
    placement), ``"waiting"`` (a turn waits for a cell the camera cannot read:
    ``waiting_turn``), or None."""
    if illegal_alert(state):
        return "illegal"
    if state.get("waiting_turn"):
        return "waiting"
    return None


class TableButton:
    """Short press: end the turn. Long press: undo it."""

    def __init__(self, camera, table, pin: int, *, hold_time: float = 1.0,
                 pull_up: bool = True, bounce_time: float | None = 0.05, factory=None,
                 clock=time.monotonic):
        from gpiozero import Button

        self.camera = camera
        self.table = table
        self.presses: list[str] = []  # what each press did, for logs and tests
        self.hold_time = hold_time
        self._clock = clock
        self._down_at: float | None = None
        self._held = False
        self.button = Button(pin, pull_up=pull_up, bounce_time=bounce_time or None,
                             hold_time=hold_time, pin_factory=factory)
        self.button.when_pressed = self._pressed
        self.button.when_held = self._on_held
        self.button.when_released = self._released

    def _pressed(self) -> None:
        self._held = False
        self._down_at = self._clock()

    def _on_held(self) -> None:
        if self._held:
            return
        self._held = True  # the undo happens at once, the release then does nothing
        self.undo()

    def _released(self) -> None:
        down_at, self._down_at = self._down_at, None
        if self._held:
            self._held = False
            return
        if down_at is not None and self._clock() - down_at >= self.hold_time:
            self.undo()  # held long enough though the hold timer did not fire first
            return
        self.end_turn()

    def end_turn(self) -> None:
        ok = self.camera is not None and self.camera.event("end_turn")
        self.presses.append("end_turn" if ok else "end_turn-ignored")
        if not ok:
            log.info("button: end of turn ignored (no camera pipeline runs; enter turns "
                     "on the dashboard)")

    def undo(self) -> None:
        if self.camera is not None and self.camera.event("undo"):
            self.presses.append("undo")
            return
        from .match import MatchError

        try:
            self.table.undo(source="button")
            self.presses.append("undo-table")
        except MatchError as exc:
            self.presses.append("undo-refused")
            log.info("button: nothing to undo (%s)", exc)

    def close(self) -> None:
        self.button.close()


class AlertSignal:
    """Blinks an LED (or beeps a buzzer) while the table shows an illegal placement."""

    #: (on, off) seconds of the slow blink while a turn waits for a cell
    WAITING_BLINK = (1.2, 0.3)

    def __init__(self, table, pin: int, kind: str = "led", *, active_high: bool = True,
                 on_time: float = 0.3, off_time: float = 0.3, factory=None):
        from gpiozero import LED, Buzzer

        cls = Buzzer if kind == "buzzer" else LED
        self.kind = kind
        self.device = cls(pin, active_high=active_high, initial_value=False,
                          pin_factory=factory)
        self.on_time, self.off_time = on_time, off_time
        self.table = table
        self.active = False
        self.showing: str | None = None  # "illegal", "waiting" or None
        self.changed = threading.Event()  # set after each state it has acted on (tests)
        self._stop = threading.Event()
        self._sub = table.subscribe()
        self._thread = threading.Thread(target=self._run, name="gpio-signal", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from .table import Subscription

        while not self._stop.is_set():
            try:
                text = self._sub.get(timeout=0.5)
            except Subscription.Closed:
                break
            if text is None:
                continue
            try:
                self.show(signal_for(json.loads(text)))
            except Exception:  # noqa: BLE001 - a signal must never stop the table
                log.exception("gpio signal failed")
            self.changed.set()
        self.show(None)

    def show(self, alert: bool | str | None) -> None:
        """``"illegal"`` (or True): fast blink; ``"waiting"``: slow blink; None or
        False: off."""
        what = "illegal" if alert is True else (alert or None)
        if what == self.showing:
            return
        self.showing, self.active = what, what is not None
        if what is None:
            self.device.off()
            return
        on, off = self.WAITING_BLINK if what == "waiting" else (self.on_time, self.off_time)
        if self.kind == "buzzer":
            self.device.beep(on, off, background=True)
        else:
            self.device.blink(on, off, background=True)

    def close(self) -> None:
        self._stop.set()
        self.table.unsubscribe(self._sub)
        self._thread.join(2.0)
        self.device.close()


class Hardware:
    """The button and signal started from the ``gpio`` settings; ``close()`` frees them."""

    def __init__(self, button: TableButton | None, signal: AlertSignal | None):
        self.button = button
        self.signal = signal

    def close(self) -> None:
        for part in (self.signal, self.button):
            if part is not None:
                part.close()


def start_gpio(gpio, table, camera) -> Hardware:
    """Start what the ``gpio`` settings ask for; raises GPIOError with a plain reason."""
    try:
        importlib.import_module("gpiozero")
    except ImportError:
        raise GPIOError("gpio is enabled but gpiozero is not installed "
                        "(apt install python3-gpiozero, or pip install 'zatre-vision[pi]')"
                        ) from None
    factory = pin_factory(gpio.pin_factory)
    button = signal = None
    try:
        if gpio.button_pin is not None:
            button = TableButton(camera, table, gpio.button_pin, hold_time=gpio.hold_time_s,
                                 pull_up=gpio.button_pull_up, bounce_time=gpio.bounce_time_s,
                                 factory=factory)
        if gpio.signal != "none" and gpio.signal_pin is not None:
            signal = AlertSignal(table, gpio.signal_pin, gpio.signal,
                                 active_high=gpio.signal_active_high, on_time=gpio.blink_on_s,
                                 off_time=gpio.blink_off_s, factory=factory)
    except Exception as exc:  # noqa: BLE001 - gpiozero's errors: no GPIO, pin in use, ...
        if button is not None:
            button.close()
        raise GPIOError(f"gpio cannot be used: {exc.__class__.__name__}: {exc}") from None
    return Hardware(button, signal)
