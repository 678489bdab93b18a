"""``zatre backup FILE`` and ``zatre restore FILE`` (see store/backup.py)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import InputError

_config = click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
                       help="The settings file the service uses (e.g. /etc/zatre/config.yaml).")
_data_dir = click.option("--data-dir", type=click.Path(file_okay=False), default=None,
                         help="Folder of the SQLite database (default: from the settings).")


def _database(config_file: str | None, data_dir: str | None) -> Path:
    from ..config import ConfigError, load_settings
    from .backup import database_path
    from .base import StoreError

    overrides = {"server": {"data_dir": data_dir}} if data_dir else None
    try:
        settings = load_settings(config_file, overrides)
        return database_path(settings.server.data_dir, settings.server.db)
    except (ConfigError, StoreError) as exc:
        raise InputError(str(exc)) from None


@click.command()
@click.argument("target", metavar="FILE")
@_config
@_data_dir
def backup(target: str, config_file: str | None, data_dir: str | None) -> None:
    """Copy the SQLite database to a file while the table may be running."""
    from .backup import backup as do_backup
    from .base import StoreError

    source = _database(config_file, data_dir)
    try:
        version = do_backup(source, Path(target))
    except (StoreError, OSError) as exc:
        raise InputError(str(exc)) from None
    click.echo(f"backed up {source} to {target} (schema version {version})", err=True)


@click.command()
@click.argument("source", metavar="FILE")
@_config
@_data_dir
def restore(source: str, config_file: str | None, data_dir: str | None) -> None:
    """Put a backup made by `zatre backup` back as the table's database."""
    from .backup import restore as do_restore
    from .base import StoreError

    target = _database(config_file, data_dir)
    try:
        kept = do_restore(Path(source), target)
    except (StoreError, OSError) as exc:
        raise InputError(str(exc)) from None
    note = f"; the database it replaced is kept as {kept}" if kept else ""
    click.echo(f"restored {source} as {target}{note}", err=True)
