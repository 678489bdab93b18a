"""The dashboard's languages, English and German (Flask-Babel).

The language of a request: the browser's own choice (the EN/DE switch, a cookie),
then the table's ``server.language`` unless it is ``auto``, then the browser's
Accept-Language, then English. Templates use ``_()``; the page scripts get their words
from the ``js`` catalogue in ``#i18n-data`` (see :func:`page_words`).

Messages that the rules engine, the table and the camera make stay English where they
are made (they are stored, broadcast to every screen, and read by club tools); they are
translated where a person reads them, by the templates in :mod:`.message_templates`:
on the server for error replies and toasts, in the browser for the live state.
JSON field names, and everything the CLI prints, stay as they are.

The catalogues are ``translations/<lang>/LC_MESSAGES/{messages,js}.po``, compiled to
``.mo`` files that are committed (tests/server/test_i18n.py checks they match the .po).
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from pathlib import Path

from babel.numbers import format_decimal
from babel.support import Translations
from flask import Flask, request
from flask_babel import Babel, get_locale, gettext

from .context import context
from .message_templates import TEMPLATES

LANGUAGES = ("en", "de")
COOKIE = "zatre-lang"
TRANSLATIONS = Path(__file__).with_name("translations")


def select_language() -> str:
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    table_default = context().config.server.language
    if table_default in LANGUAGES:
        return table_default
    return request.accept_languages.best_match(LANGUAGES) or "en"


def current_language() -> str:
    return str(get_locale() or "en")


def translate(template: str, lang: str | None = None) -> str:
    """A template of the ``messages`` catalogue in ``lang`` (its placeholders kept)."""
    lang = lang or current_language()
    return _catalogue(lang, "messages").get(template, template) if lang != "en" else template


def sentence(text: str) -> str:
    """A message shown on its own starts with a capital letter."""
    return text[:1].upper() + text[1:]


def format_number(value, digits: int | None = None, sign: bool = False,
                  lang: str | None = None) -> str:
    """A number in the locale's format (Babel): "33,0" and "4.907" in German, "33.0"
    and "4,907" in English; ``digits`` after the point (None: as an integer, or as it
    is), ``sign``: "+" before a positive number. None stays "–"."""
    if value is None:
        return "–"
    lang = lang or current_language()
    if digits is None:
        pattern = "#,##0" if float(value).is_integer() else "#,##0.###"
    else:
        pattern = "#,##0" + ("." + "0" * digits if digits else "")
    if sign:
        pattern = f"+{pattern};-{pattern}"
    return format_decimal(value, format=pattern, locale=lang)


#: a date and time as each language writes it ("28.11.2026 12:12" in German)
WHEN_FORMATS = {"en": "%Y-%m-%d %H:%M", "de": "%d.%m.%Y %H:%M"}


def format_when(stamp: str | None, lang: str | None = None) -> str:
    """A stored time (ISO 8601, as ``now_iso``) in the language's format, to the
    minute; anything else as it is."""
    if not stamp:
        return ""
    try:
        when = dt.datetime.fromisoformat(str(stamp))
    except ValueError:
        return str(stamp)
    return when.strftime(WHEN_FORMATS.get(lang or current_language(), WHEN_FORMATS["en"]))


def init_app(app: Flask) -> Babel:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    babel = Babel(app, locale_selector=select_language)
    app.jinja_env.filters["num"] = lambda v, digits=None, sign=False: format_number(
        v, digits, sign)
    app.jinja_env.filters["when"] = lambda stamp: format_when(stamp)

    @app.context_processor
    def _language():
        lang = current_language()
        return {"lang": lang, "languages": LANGUAGES, "localize": localize,
                "page_words": lambda: page_words(lang)}

    return babel


@lru_cache(maxsize=8)
def _catalogue(lang: str, domain: str) -> dict:
    if lang == "en":
        return {}
    t = Translations.load(str(TRANSLATIONS), [lang], domain=domain)
    return {k: v for k, v in getattr(t, "_catalog", {}).items() if isinstance(k, str) and k and v}


@lru_cache(maxsize=8)
def page_words(lang: str) -> dict:
    """What the page scripts need: their own words, and the message templates."""
    messages = _catalogue(lang, "messages")
    return {"lang": lang, "messages": _catalogue(lang, "js"),
            "templates": [[en, messages[en]] for en in TEMPLATES if en in messages]}


@lru_cache(maxsize=256)
def _pattern(template: str) -> tuple[re.Pattern, list[str]]:
    names: list[str] = []

    def hole(m: re.Match) -> str:
        names.append(m.group(1))
        return "(.+?)"

    parts = re.split(r"(\{\w+\})", template)
    src = "".join(hole(re.match(r"\{(\w+)\}", p)) if re.fullmatch(r"\{\w+\}", p) else re.escape(p)
                  for p in parts)
    return re.compile(f"^{src}$", re.S), names


def localize(message: str, lang: str | None = None) -> str:
    """An English message made elsewhere, in the request's language: the first
    template that matches it whole, its placeholders kept; else the message as it is.
    A message of several sentences joined by "; " is translated part by part."""
    lang = lang or current_language()
    if lang == "en" or not message:
        return message
    whole = _localize_one(message, lang)
    if whole is not None:
        return whole
    parts = message.split("; ")
    if len(parts) > 1:
        done = [_localize_one(p, lang) for p in parts]
        if any(d is not None for d in done):
            return "; ".join(d if d is not None else p for d, p in zip(done, parts, strict=True))
    return message


def _localize_one(message: str, lang: str) -> str | None:
    messages = _catalogue(lang, "messages")
    for template in TEMPLATES:
        translated = messages.get(template)
        if not translated:
            continue
        pattern, names = _pattern(template)
        m = pattern.match(message)
        if m:
            # a filled-in part may be a message itself ("Turn flagged: {reasons}")
            values = {k: localize(v, lang) for k, v in zip(names, m.groups(), strict=True)}
            return _fill(translated, values)
    return None


def _fill(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda x: values.get(x.group(1), x.group(0)), text)


__all__ = ["COOKIE", "LANGUAGES", "current_language", "format_number", "gettext", "init_app",
           "localize", "page_words", "select_language", "translate"]
