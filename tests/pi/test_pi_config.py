"""The gpio and calibration settings: typed, unknown keys refused, env overrides."""

import pytest

from zatre_vision.config import ConfigError, calibration_path, load_settings
from zatre_vision.server.cli import _start_gpio
from zatre_vision.store import open_store
from zatre_vision.table import Table


def test_gpio_defaults_and_yaml(tmp_path):
    """Out of the box no GPIO is touched; switched on, the button and the LED are
    driven on the pins the wiring table of docs/pi-install.md gives (BCM 17 and 27)."""
    table = Table(open_store(tmp_path / "data"), "table-1")
    mock = {"gpio": {"pin_factory": "mock"}}   # pins that would work, were it on
    assert _start_gpio(load_settings(None, mock), table, camera=None) is None
    f = tmp_path / "c.yaml"
    f.write_text("gpio:\n  enabled: true\n  button_pin: 5\n  signal: buzzer\n  hold_time_s: 2\n"
                 "camera:\n  source: picamera2\n  calibration: /var/lib/zatre/cal.json\n"
                 "  size: 1640x1232\n")
    s = load_settings(f)
    assert s.gpio.enabled and s.gpio.button_pin == 5 and s.gpio.signal == "buzzer"
    assert s.gpio.hold_time_s == 2.0
    assert s.camera.size_wh() == (1640, 1232)
    assert str(calibration_path(s)) == "/var/lib/zatre/cal.json"
    gpiozero = pytest.importorskip("gpiozero")
    on = load_settings(None, {"gpio": {"enabled": True, "pin_factory": "mock"}})
    hw = _start_gpio(on, table, camera=None)
    try:
        assert str(hw.button.button.pin) == "GPIO17"
        assert hw.signal.kind == "led" and str(hw.signal.device.pin) == "GPIO27"
    finally:
        hw.close()
        gpiozero.Device.pin_factory = None


def test_env_overrides_gpio(monkeypatch, tmp_path):
    monkeypatch.setenv("ZATRE_GPIO__ENABLED", "true")
    monkeypatch.setenv("ZATRE_GPIO__SIGNAL_PIN", "22")
    s = load_settings(None, {"server": {"data_dir": str(tmp_path)}})
    assert s.gpio.enabled and s.gpio.signal_pin == 22
    assert calibration_path(s) == tmp_path / "calibration.json"


@pytest.mark.parametrize("text, fragment", [
    ("gpio:\n  buton_pin: 5\n", "gpio.buton_pin: unknown key"),
    ("gpio:\n  button_pin: 40\n", "gpio.button_pin"),
    ("gpio:\n  signal: horn\n", "gpio.signal"),
    ("gpio:\n  button_pin: 5\n  signal_pin: 5\n", "different pins"),
    ("gpio:\n  pin_factory: magic\n", "gpio.pin_factory"),
    ("camera:\n  size: big\n", "camera.size"),
    ("camera:\n  calibraton: x.json\n", "unknown key"),
])
def test_bad_pi_settings_are_one_line_errors(tmp_path, text, fragment):
    f = tmp_path / "c.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_settings(f)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_validate_config_accepts_the_shipped_example(zatre):
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "firmware_config/etc/zatre/config.yaml"
    r = zatre("serve", "--validate-config", "--config", str(example))
    assert r.returncode == 0, r.stderr
    assert "settings are valid" in r.stderr
