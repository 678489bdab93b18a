"""How a reply is shaped: JSON for club tools and scripts, HTML for the browser, and any
error message cut to one short line."""

from __future__ import annotations

from flask import request


def wants_json() -> bool:
    if request.path.startswith(("/api/", "/events")) or request.is_json:
        return True
    if "X-Table-PIN" in request.headers:
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


#: the longest error message sent back; longer ones (an echoed input) are cut
MAX_ERROR_CHARS = 300


def one_line(message: str) -> str:
    """An error message as one short line."""
    text = " ".join(str(message).split())
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS - 1] + "…"


__all__ = ["MAX_ERROR_CHARS", "one_line", "wants_json"]
