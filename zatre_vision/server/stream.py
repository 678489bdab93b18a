"""``GET /events``: the live state as server-sent events (event name ``state``).

Each stream holds a waitress thread; it sends the current state at once, then every
new state, a keep-alive comment when nothing happened for ``server.keepalive_s``, and
ends cleanly when the table closes (server shutdown)."""

from __future__ import annotations

from flask import Blueprint, Response, current_app

from ..table import Subscription

bp = Blueprint("stream", __name__)


@bp.get("/events")
def events():
    ctx = current_app.extensions["zatre"]
    table = ctx.table
    keepalive = ctx.config.server.keepalive_s

    def generate():
        # subscribed only once the stream is read: a response never iterated (a HEAD
        # request) would otherwise leave its subscription behind
        sub = table.subscribe()
        try:
            yield "retry: 2000\n\n"
            while True:
                try:
                    message = sub.get(timeout=keepalive)
                except Subscription.Closed:
                    return
                if message is None:
                    yield ": keep-alive\n\n"
                else:
                    yield f"event: state\ndata: {message}\n\n"
        finally:
            table.unsubscribe(sub)

    return Response(generate(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
