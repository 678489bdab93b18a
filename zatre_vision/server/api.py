"""The JSON API for club tools (contracts.md, "HTTP API of zatre serve")."""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, request

from . import forms
from .context import context
from .records import match_document, match_summary

bp = Blueprint("api", __name__, url_prefix="/api")

PER_PAGE = 20


def page_arg() -> int:
    return forms.whole_number(request.args.get("page", "1"), 1, 1_000_000,
                              "page must be a whole number from 1")


@bp.get("/state")
def state():
    return jsonify(context().table.state())


@bp.get("/matches")
def matches():
    page = page_arg()
    rows, total = context().store.list_matches(page, PER_PAGE)
    return jsonify({"page": page, "per_page": PER_PAGE, "total": total,
                    "pages": max(1, -(-total // PER_PAGE)),
                    "matches": [match_summary(r) for r in rows]})


@bp.get("/matches/<int:match_id>")
def match(match_id: int):
    row = context().store.get_match(match_id)
    if row is None:
        abort(404, f"no match {match_id}")
    return jsonify(match_document(row))
