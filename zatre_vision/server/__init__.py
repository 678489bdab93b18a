"""The table dashboard: a Flask app built by :func:`create_app` from explicit inputs.

Blueprints: ``pages`` (HTML), ``api`` (JSON for club tools, contracts.md), ``stream``
(server-sent events) and ``admin`` (POST actions behind the PIN and a CSRF token).
No module-level app and no globals: everything a view needs is the app's
:class:`~.context.ServerContext`, made here once and reached through
:func:`~.context.context`; its services (analysis jobs, tile learning, live viewers)
are started here and stopped by the server's shutdown path.
"""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from ..config import Settings
from ..store import Store, StoreError
from ..store.session_key import SessionKey
from ..table import Table
from .camera import CameraControl
from .context import KEY, ServerContext, StreamSlots
from .forms import MAX_ID
from .paths import web_dir
from .replies import one_line, wants_json
from .security import PinGuard, csrf_token, signed_in
from .stream_hub import StreamHub


def _error_reply(code: int, name: str, message: str, choice: dict | None = None):
    """An error as the client wants it: ``{"error", "status"}`` JSON (with ``choice``,
    the way out a refusal offers) or the error page, in the request's language
    (i18n.localize: the JSON's field names stay)."""
    from .i18n import localize

    message = localize(message)
    if wants_json():
        body = {"error": message, "status": code}
        if choice:
            body["choice"] = choice
        return jsonify(body), code
    return render_template("error.html", code=code, name=name, message=message), code


class RecordId(IntegerConverter):
    """``<int:...>`` in a route: ids beyond what the database can hold are not found
    (404) instead of an overflow in the query."""

    def __init__(self, url_map, *args, **kwargs):
        kwargs.setdefault("max", MAX_ID)
        super().__init__(url_map, *args, **kwargs)


def create_app(config: Settings, table: Table, store: Store,
               camera: CameraControl | None = None, club: bool = False,
               streams: StreamHub | None = None) -> Flask:
    overview_only = club  # the name ``club`` is the blueprint's module below
    web = web_dir()
    app = Flask(__name__, template_folder=str(web / "templates"),
                static_folder=str(web / "static"), static_url_path="/static")
    pins = PinGuard(store, table.name, config.server.pin)
    try:  # the session key: a file beside the data, never in the database (session_key)
        session_key = SessionKey.load(config.server.data_dir, table.name, pins.pin_basis())
    except OSError as exc:
        raise StoreError(f"{config.server.data_dir}: cannot keep the session key there "
                         f"({exc.strerror or exc})") from None
    pins.session_key = session_key.key

    def pin_changed() -> None:  # every browser signed in with the old PIN signs in again
        app.secret_key = pins.session_key = session_key.rotate(pins.pin_basis())

    pins.on_pin_changed = pin_changed
    app.config.update(
        SECRET_KEY=session_key.key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=64 * 1024,
        JSON_SORT_KEYS=False,
    )
    app.json.sort_keys = False
    app.url_map.converters["int"] = RecordId
    from . import i18n

    i18n.init_app(app)
    # the dashboard calls tile learning, which reads boards, through this service
    from ..services.tile_learning import TileLearningService
    from .analysis_jobs import AnalysisRunner

    app.extensions[KEY] = ctx = ServerContext(
        config, table, store, pins, camera,
        analysis=AnalysisRunner(store, table), tiles=TileLearningService(),
        streams=streams, club=overview_only,
        stream_slots=StreamSlots(config.server.streams_per_address,
                                 min(config.server.streams_total, config.server.threads // 2)))

    from . import (
        admin,
        analysis_pages,
        api,
        calibration,
        club,
        coach,
        evenings,
        language,
        live_view,
        pages,
        stream,
        tile_learning,
    )
    from . import card_game as cards

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(admin.bp)
    app.register_blueprint(calibration.bp)
    app.register_blueprint(cards.bp)
    app.register_blueprint(analysis_pages.bp)
    app.register_blueprint(coach.bp)
    app.register_blueprint(live_view.bp)
    app.register_blueprint(tile_learning.bp)
    app.register_blueprint(language.bp)
    app.register_blueprint(club.bp)
    app.register_blueprint(evenings.bp)
    club.attach_overview_only(app)
    club.remember_reached_at(app, config.server.port)

    @app.context_processor
    def _globals():
        return {"csrf_token": csrf_token, "signed_in": signed_in(),
                "pin_set": ctx.pins.is_set, "table_name": table.name, "club_mode": ctx.club,
                "revision": table.revision, "boot": table.boot}

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        body, code = _error_reply(exc.code or 500, exc.name,
                                  one_line(exc.description or exc.name),
                                  getattr(exc, "choice", None))
        resp = app.make_response((body, code))
        retry = getattr(exc, "retry_after", None)  # a PIN lockout: when to try again
        if retry:
            resp.headers["Retry-After"] = str(retry)
        return resp

    @app.errorhandler(StoreError)
    def _store_failed(exc: StoreError):
        # disk full, read-only or locked: the table kept the match as it was stored
        app.logger.error("%s %s: %s", request.method, request.path, exc)
        return _error_reply(503, "Service Unavailable",
                            one_line(f"{exc}: the change was not saved; free disk space or "
                                     "check the data folder, then try again"))

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        # a fault of ours: the traceback goes to the server's log, the client gets one
        # line; the match is kept as it was stored before the request
        app.logger.exception("unexpected error on %s %s", request.method, request.path)
        return _error_reply(500, "Internal Server Error",
                            f"internal error ({type(exc).__name__}); the server log has "
                            "the details")

    @app.after_request
    def _headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'")
        return resp

    ctx.start()
    return app
