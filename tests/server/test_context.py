"""The server's state in one ServerContext made by the app factory (context.py): no
state is added to the app after the factory returns, and the services that own the
background work stop with it."""

import pytest

from zatre_vision.server.context import KEY, ServerContext, context


def test_the_factory_makes_the_whole_context(app, client, operator, playing):
    made = set(app.extensions)
    assert isinstance(context(app), ServerContext) and app.extensions[KEY] is context(app)
    for path in ("/", "/api/state", "/api/coach", "/rankings", "/api/calibration/tiles",
                 "/camera/stream.mjpg", "/api/matches"):
        client.get(path)
    operator.post_json("/table/coach", {"on": True})
    operator.get("/api/coach")
    assert set(app.extensions) == made      # nothing added lazily on first use
    with app.test_request_context("/"):
        assert context() is context(app)


def test_stopped_services_take_no_more_work(app, playing):
    ctx = context(app)
    ctx.stop()
    assert ctx.viewers.stopped
    playing.finish({"Ann": 0, "Ben": 0})
    assert not ctx.analysis.ensure(playing.match_id)       # no job is queued
    learning = ctx.tiles.learning(ctx.config)
    with pytest.raises(ValueError, match="shutting down"):
        learning._start([], lambda: "", "a fit", skip_unreadable=True)
    ctx.start()
    assert not ctx.viewers.stopped and ctx.analysis.ensure(playing.match_id)
    assert ctx.analysis.wait_idle(60)
