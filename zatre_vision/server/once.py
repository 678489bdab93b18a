"""Idempotent writes: a double click, a resent form or a retried API call changes the
match once.

Every write the dashboard sends carries the table's ``revision`` it was made from (the
state's ``revision``, which grows on every change of the match) and the server's
``boot``. A write whose route, revision and fields were recorded already is answered
"Already recorded" (200) and changes nothing. A write made from an older revision that
is no repeat is refused (409: the match changed meanwhile; look again) where it acts on
the live match; setup and tournaments take it. A write made before the server
restarted is refused (409: reload). A write without a revision (an older club tool)
is applied as before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import wraps

from flask import abort, flash, g, jsonify, redirect, request, url_for

from . import forms
from .context import context

#: fields of a form that say nothing about what it changes
NOT_CONTENT = frozenset({"csrf_token", "revision", "boot", "next"})
BOOT_CHARS = 32


def content_key(data: dict) -> str:
    body = {k: v for k, v in data.items() if k not in NOT_CONTENT}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def made_from(data: dict) -> int | None:
    """The revision the write was made from (None: not given); a write from before the
    server's restart is a 409."""
    raw = data.get("revision")
    if raw in (None, ""):
        return None
    revision = forms.whole_number(raw, 0, forms.MAX_ID,
                                  "revision must be the state's revision (a whole number)")
    boot = data.get("boot")
    table = context().table
    if boot not in (None, "") and (not isinstance(boot, str) or len(boot) > BOOT_CHARS
                                   or boot != table.boot):
        abort(409, "the table's server restarted since this page was loaded: reload the "
                   "page and check the board before trying again")
    return revision


def already_recorded(message: str):
    text = f"Already recorded: {message}"
    from .replies import wants_json

    if wants_json():
        return jsonify({"ok": True, "already": True, "message": text,
                        "state": context().table.state()})
    flash(text)
    return redirect(forms.local_path(request.form.get("next"), "") or url_for("pages.table"))


def run_once(data: dict, call: Callable, *, strict: bool = True):
    """``call()`` unless ``data`` repeats a recorded write (see the module)."""
    revision = made_from(data)
    if revision is None:
        return call()
    ctx = context()
    key = (request.path, revision, content_key(data))
    with ctx.writes.lock:
        if (message := ctx.writes.get(key)) is not None:
            return already_recorded(message)
        if strict and revision != ctx.table.revision:
            abort(409, f"the match changed since this was sent (revision {revision}, now "
                       f"{ctx.table.revision}): look at the board again, then retry")
        response = call()
        ctx.writes.put(key, g.get("write_message") or "done")
        return response


def once(view=None, *, strict: bool = True):
    """A write route made idempotent by :func:`run_once` (after the PIN check)."""

    def wrap(fn):
        @wraps(fn)
        def wrapped(*args, **kwargs):
            return run_once(forms.payload(), lambda: fn(*args, **kwargs), strict=strict)

        return wrapped

    return wrap(view) if view is not None else wrap
