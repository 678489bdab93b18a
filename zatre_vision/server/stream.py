"""``GET /events``: the live state as server-sent events (event name ``state``).

Under ``zatre serve`` the :class:`~.stream_hub.StreamHub` answers streams before they
reach Flask, without holding a request thread; a stream that gets here there was over
the hub's caps and is told to poll ``GET /api/state`` (503, ``Retry-After``).

Without a hub (another WSGI server, the test client) this view streams itself: it
holds a thread per stream, so it keeps to the same caps per address and in all. It
sends the current state at once, then every new state, a keep-alive comment when
nothing happened for ``server.keepalive_s``, and ends when the table closes."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from ..table import Subscription
from .context import context

bp = Blueprint("stream", __name__)

RETRY_AFTER_S = 30


def too_many_streams():
    resp = jsonify({"error": "too many live views are open: this page polls the state "
                             "instead and tries again later",
                    "status": 503, "poll": "/api/state", "retry_after_s": RETRY_AFTER_S})
    resp.status_code = 503
    resp.headers["Retry-After"] = str(RETRY_AFTER_S)
    return resp


@bp.get("/events")
def events():
    ctx = context()
    if request.method == "HEAD":  # what a stream would be, without one: no slot taken
        return Response(b"", mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    if ctx.streams is not None:  # the hub refused it: over its caps
        return too_many_streams()
    address = request.remote_addr or "?"
    if not ctx.stream_slots.take(address):
        return too_many_streams()
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

    resp = Response(generate(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    resp.call_on_close(lambda: ctx.stream_slots.give_back(address))
    return resp
