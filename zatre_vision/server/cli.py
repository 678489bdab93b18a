"""``zatre serve``: the table dashboard, served by waitress.

Registered in the ``zatre`` group by the lead (``from zatre_vision.server.cli import
serve``); also runs on its own as ``python -m zatre_vision.server``.
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import sys
import threading

import click

from ..errors import EXIT_INTERNAL, InputError, fail

log = logging.getLogger("zatre.serve")


def _check_host(ctx, param, value: str | None) -> str | None:
    from ..config import valid_host

    if value is not None and not valid_host(value):
        raise click.BadParameter(f"{value!r} is neither an IP address nor a host name "
                                 "(letters, digits, dots and hyphens)")
    return value


@click.command()
@click.option("--host", default=None, callback=_check_host, help="Address to listen on (default 0.0.0.0; 127.0.0.1 for this machine only).")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Port (default 8000).")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Folder of the SQLite database (default ./data).")
@click.option("--db", default=None, metavar="URL",
              help="postgresql://user:pass@host/db to share one club server between tables.")
@click.option("--pin", default=None, help="The table's PIN (4 to 12 digits, or a passphrase of 12 to 128 "
              "characters); else chosen on first setup.")
@click.option("--table", "table_name", default=None, help="This table's name (default table-1).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="YAML settings file (sections server, camera, gpio, ui).")
@click.option("--validate-config", is_flag=True, help="Check the settings and exit (0 good, 2 bad).")
@click.option("--demo", is_flag=True, help="Play a simulated game that plays itself (camera source demo).")
@click.option("--source", default=None, help="Camera source: demo, none (manual entry), picamera2, "
              "a device number, a URL or a folder.")
@click.option("--demo-interval", type=click.FloatRange(0.01, 60), default=None,
              help="Seconds between turns of the demo game (default 2).")
@click.option("--threads", type=click.IntRange(4, 1024), default=None,
              help="Worker threads for requests (live views hold none; default 64).")
@click.option("--club", is_flag=True,
              help="The club overview: every table's live match on one page (no camera, no "
                   "table of its own); use with --db postgresql://... shared by the tables.")
def serve(host, port, data_dir, db, pin, table_name, config_file, validate_config, demo, source,
          demo_interval, threads, club) -> None:
    """Serve the table dashboard (board, score sheets, corrections, records, API)."""
    from ..config import ConfigError, load_settings

    if demo and source not in (None, "demo"):
        raise InputError("--demo and --source exclude each other")
    if club and (demo or source not in (None, "none") or table_name):
        raise InputError("--club shows the tables' matches: it takes no camera source and "
                         "no --table")
    if club:
        source, table_name = "none", CLUB_TABLE
    overrides = {
        "server": {"host": host, "port": port, "data_dir": data_dir, "db": db, "pin": pin,
                   "table": table_name, "threads": threads},
        "camera": {"source": "demo" if demo else source, "demo_interval_s": demo_interval},
    }
    overrides = {k: {kk: vv for kk, vv in v.items() if vv is not None} for k, v in overrides.items()}
    try:
        settings = load_settings(config_file, overrides)
    except ConfigError as exc:
        raise InputError(str(exc)) from None
    if validate_config:
        click.echo("settings are valid", err=True)
        return
    run_server(settings, club=club)


def _camera_pipeline(settings):
    """The factory CameraControl uses for camera sources (and the demo): a camera
    service running frames through vision and tracking into the table."""
    from ..calibrate.files import CalibrationError
    from ..camera.base import SourceError
    from ..config import calibration_path
    from ..tracking.sources import camera_service

    def make(table, source, players):
        try:
            return camera_service(table, source, players, seed=settings.camera.demo_seed,
                                  calibration=str(calibration_path(settings)),
                                  model=str(settings.camera.model) if settings.camera.model
                                  else None,
                                  size=settings.camera.size_wh(),
                                  fps=settings.camera.fps,
                                  flicker_hz=settings.camera.flicker_hz)
        except (SourceError, CalibrationError) as exc:
            table.set_camera_status({"source": source, "state": "error", "message": str(exc)})
            return _Idle()

    return make


class _Idle:
    """Stands in for a camera that could not even be named."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


def _start_gpio(settings, table, camera):
    """The button and signal of the ``gpio`` settings; a GPIO problem is logged and
    logged, never fatal (the table still works from the browser)."""
    if not settings.gpio.enabled:
        return None
    from ..gpio import GPIOError, start_gpio

    try:
        hardware = start_gpio(settings.gpio, table, camera)
    except GPIOError as exc:
        log.warning("%s", exc)
        return None
    log.info("gpio: button on BCM %s, %s on BCM %s", settings.gpio.button_pin,
             settings.gpio.signal, settings.gpio.signal_pin)
    return hardware


def _systemd_ready(host: str, port: int):
    """Under systemd (Type=notify): READY=1 now, and WATCHDOG=1 while the server answers
    a request to itself (see sd_notify.py). Returns the feeder thread, or None."""
    from ..sd_notify import TableHealth, WatchdogFeeder, notify, self_url, watchdog_interval_s

    notify("READY=1")
    interval = watchdog_interval_s()
    if interval is None:
        return None
    every = interval / 3
    health = TableHealth(self_url(host, port), timeout_s=max(0.05, min(5.0, every / 2)))
    feeder = WatchdogFeeder(interval, health)
    feeder.start()
    return feeder


def _lease_table_name(store, srv):
    """Hold the table's name in the database while this server runs (``TableNameTaken``,
    a ``StoreError``, when another live server holds it); a lost lease stops this one."""
    from ..store.leases import TableLeases
    from .club import dashboard_url
    from .table_lease import TableLease

    def lost(message: str) -> None:
        log.error(message)
        os.kill(os.getpid(), signal.SIGTERM)

    return TableLease(TableLeases(store), srv.table, dashboard_url(srv.host, srv.port),
                      on_lost=lost).acquire()


def _give_back(lease) -> None:
    if lease is not None:
        lease.release()


#: the name the club overview's server goes by (it plays no match of its own)
CLUB_TABLE = "club-overview"


def run_server(settings, ready: threading.Event | None = None, club: bool = False) -> None:
    """Open the store, resume the table, start the camera source and serve until
    SIGTERM/SIGINT; then stop the app's services (``ServerContext.stop``), end every
    event stream and close the store cleanly.
    ``club``: the club overview (``/club`` at ``/``), no camera."""
    from ..store import StoreError, open_store
    from ..store.leases import TableNameTaken
    from ..table import Table
    from ..tracking.sources import model_available
    from . import create_app
    from .camera import CameraControl
    from .context import context
    from .stream_hub import StreamHub, make_server, raise_open_files_limit
    from .table_lock import TableBusy, TableLock

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    srv = settings.server
    try:
        lock = TableLock(srv.data_dir, srv.table).acquire()
    except TableBusy as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{srv.data_dir}: cannot use the data folder ({exc.strerror})") from None
    try:
        store = open_store(srv.data_dir, srv.db)
    except StoreError as exc:
        lock.release()
        raise InputError(str(exc)) from None
    try:  # the table's name in the (club) database; the overview plays no table
        lease = None if club else _lease_table_name(store, srv)
    except TableNameTaken as exc:
        # not bad settings: exit 1, so that systemd tries again (the holder may stop,
        # or be this table before a reboot, whose lease lapses); the journal names it
        store.close()
        lock.release()
        fail(str(exc), EXIT_INTERNAL)
    except StoreError as exc:
        store.close()
        lock.release()
        raise InputError(str(exc)) from None
    source = settings.camera.source
    table = Table(store, srv.table, season=srv.season, profi=settings.ui.profi,
                  camera_source=source)
    camera = CameraControl(table, settings.camera.demo_interval_s, settings.camera.demo_seed,
                           pipelines=_camera_pipeline(settings),
                           demo_through_pipeline=model_available())
    hub = StreamHub(table, keepalive_s=srv.keepalive_s, per_address=srv.streams_per_address,
                    total=srv.streams_total)
    app = create_app(settings, table, store, None if club else camera, club=club, streams=hub)
    raise_open_files_limit(srv.max_connections + 64)
    try:
        server = make_server(app, hub, host=srv.host, port=srv.port, threads=srv.threads,
                             idle_timeout_s=srv.idle_timeout_s,
                             max_connections=srv.max_connections,
                             connections_per_address=srv.connections_per_address,
                             reserved_connections=srv.reserved_connections,
                             headers_timeout_s=srv.headers_timeout_s,
                             request_timeout_s=srv.request_timeout_s)
    except OSError as exc:
        _give_back(lease)
        store.close()
        lock.release()
        message = f"cannot listen on {srv.host}:{srv.port} ({exc.strerror})"
        if exc.errno == errno.EADDRINUSE:
            # not bad settings: exit 1, so that systemd tries again (the holder may be a
            # program that goes away); the journal names the holder every time
            from ..port_holder import describe_holders

            held = describe_holders(srv.port)
            fail(f"{message}: port {srv.port} is {held or 'held by another program'}; stop "
                 f"that program or set another server.port", EXIT_INTERNAL)
        raise InputError(message) from None
    except ValueError:  # waitress: a host name that does not resolve
        _give_back(lease)
        store.close()
        lock.release()
        raise InputError(f"cannot listen on {srv.host}:{srv.port} (no such host)") from None
    camera.start(source, table.match.players if (source == "demo" and table.match
                                                 and table.match_source == "demo") else None)
    hardware = None if club else _start_gpio(settings, table, camera)
    restarts = None
    if not club:  # a camera that hangs is started again here, not by systemd
        from .camera_restarts import CameraRestarts

        restarts = CameraRestarts(table, camera)
        restarts.start()
    if not club:  # where the club overview links to this table's dashboard
        from .club import register_dashboard

        register_dashboard(store, srv.table, srv.host, srv.port)

    stopping = threading.Event()

    def shutdown(signum=None, frame=None):
        # Only the first signal acts, and it only ends server.run(): the cleanup is the
        # finally below: work done in the handler itself would deadlock when a second
        # SIGTERM comes while the first is inside camera.stop(), holding its lock.
        if stopping.is_set():
            return
        stopping.set()
        log.info("shutting down")
        from ..sd_notify import notify

        notify("STOPPING=1")
        raise KeyboardInterrupt

    feeder = None
    try:  # from the handlers on: a signal at any point ends in the cleanup below
        signal.signal(signal.SIGTERM, shutdown)
        signal.signal(signal.SIGINT, shutdown)
        # the club overview plays no match, so it has no Setup and no setup code: its
        # PIN (for tournaments and annulling) comes from --pin or server.pin
        code = None if club else context(app).pins.setup_code()
        if code:  # as Jupyter prints its token: whoever can read this log may set the PIN
            click.echo(f"zatre: table {srv.table!r} has no PIN yet: its first setup needs the "
                       f"setup code {code} (`zatre doctor` shows it too)", err=True)
        where = f"http://{'localhost' if srv.host in ('0.0.0.0', '127.0.0.1') else srv.host}:{srv.port}"
        if club:
            click.echo(f"zatre: serving the club overview at {where}/club "
                       f"(data: {srv.db or srv.data_dir})", err=True)
        else:
            click.echo(f"zatre: serving table {srv.table!r} at {where} "
                       f"(camera: {source}; data: {srv.db or srv.data_dir})", err=True)
        if ready is not None:
            ready.set()
        feeder = _systemd_ready(srv.host, getattr(server, "effective_port", srv.port))
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        stopping.set()  # a signal during the cleanup is ignored, not a traceback
        if feeder is not None:
            feeder.stop()
        if hardware is not None:
            hardware.close()
        context(app).stop()  # its services: the live viewers, tile learning, analysis
        if restarts is not None:
            restarts.stop()
        camera.stop()
        table.close()
        server.close()
        _give_back(lease)
        store.close()
        lock.release()
    sys.stderr.flush()
