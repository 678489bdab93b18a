"""``zatre pin grant`` and ``zatre pin set``: the table's console looks after its PIN.

Run on the table's own machine (its terminal, or ssh), with the settings the service
uses. ``grant`` prints a one-time code that signs a browser in (``console_codes.py``),
whatever wrong PINs from the network made everyone else wait; ``set`` chooses a new PIN
(asked twice, not shown), as after a restore (a backup holds no PIN)."""

from __future__ import annotations

import click

from ..errors import InputError

_config = click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
                       help="The settings file the service uses (default: $ZATRE_CONFIG, "
                            "else /etc/zatre/config.yaml where it exists).")
_data_dir = click.option("--data-dir", type=click.Path(file_okay=False), default=None,
                         help="Folder of the SQLite database (default: from the settings).")


def _open(config_file: str | None, data_dir: str | None):
    """(settings, store, the line that says which settings) of the table."""
    from ..config import ConfigError, check_table_folder, load_command_settings
    from ..store import StoreError, open_store

    overrides = {"server": {"data_dir": data_dir}} if data_dir else None
    try:
        settings, line, found = load_command_settings(config_file, overrides)
        check_table_folder(settings, found or bool(data_dir), "a PIN")
        return settings, open_store(settings.server.data_dir, settings.server.db), line
    except (ConfigError, StoreError) as exc:
        raise InputError(str(exc)) from None


@click.group()
def pin() -> None:
    """The table's PIN from its console: a one-time sign-in code, a new PIN."""


@pin.command()
@_config
@_data_dir
def grant(config_file: str | None, data_dir: str | None) -> None:
    """Print a one-time code that signs one browser in (type it in place of the PIN)."""
    from ..store import StoreError
    from .console_codes import CODE_TTL_S, new_console_code

    settings, store, line = _open(config_file, data_dir)
    try:
        code = new_console_code(store, settings.server.table)
    except StoreError as exc:
        raise InputError(str(exc)) from None
    finally:
        store.close()
    click.echo(code)
    click.echo(f"type it on the sign-in page in place of the PIN; it signs in once, within "
               f"{CODE_TTL_S / 60:.0f} min; {line}", err=True)


@pin.command(name="set")
@_config
@_data_dir
@click.option("--pin", "new_pin", prompt="New PIN", hide_input=True, confirmation_prompt=True,
              help="The new PIN (asked, not shown, when not given).")
def set_pin(config_file: str | None, data_dir: str | None, new_pin: str) -> None:
    """Choose the table's PIN: 6 to 12 digits, or a passphrase of 12 to 128 characters."""
    from werkzeug.security import generate_password_hash

    from ..config import NEW_PIN_PATTERN, NEW_PIN_RULE
    from ..store import StoreError

    if not NEW_PIN_PATTERN.fullmatch(new_pin.strip()):
        raise InputError(f"the PIN is {NEW_PIN_RULE}")
    settings, store, line = _open(config_file, data_dir)
    table = settings.server.table
    try:
        if settings.server.pin:
            raise InputError("the PIN comes from the settings file (server.pin): change it there")
        store.set_setting(f"pin_hash:{table}", generate_password_hash(new_pin.strip()))
        store.delete_setting(f"setup_code:{table}")
    except StoreError as exc:
        raise InputError(str(exc)) from None
    finally:
        store.close()
    click.echo(f"table {table!r} has its new PIN; every browser signs in again; {line}", err=True)
