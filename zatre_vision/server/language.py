"""The EN/DE switch: ``GET /language/<lang>?next=/path`` keeps the browser's choice in a
cookie (a year) and goes back to the page; the choice comes before Accept-Language."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, request

from . import forms
from .i18n import COOKIE, LANGUAGES

bp = Blueprint("language", __name__)


@bp.get("/language/<lang>")
def choose(lang: str):
    if lang not in LANGUAGES:
        abort(404, f"no language {lang[:10]!r} (en or de)")
    resp = redirect(forms.local_path(request.args.get("next"), "") or "/")
    resp.set_cookie(COOKIE, lang, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
    return resp
