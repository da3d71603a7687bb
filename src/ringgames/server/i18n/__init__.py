"""The site's languages: gettext catalogs (``*.po``, read with Babel), the language of a request,
and the catalog the pages ship to the browser as JSON.

Message ids are keys (``lobby.create``); ``en.po`` holds the English text. Placeholders are named,
``{name}``, and every language has whole sentences with them in its own word order. Plural messages
carry one form per gettext plural index of the language; the browser picks the index with
``Intl.PluralRules``, whose categories :data:`PLURAL_CATEGORIES` maps to those indexes (a test checks
the mapping against each catalog's ``Plural-Forms`` formula, through Babel's CLDR plural rules).

The language of a request: ``?lang=`` (which also sets the cookie), else the ``rg_lang`` cookie,
else ``Accept-Language``, else English. There are no accounts yet, so the cookie is the only memory.
The terminal client and the CLI stay English.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

HERE = Path(__file__).parent
#: the languages of the site, English first (the fallback)
LANGS: tuple[str, ...] = ("en", "ru", "sr", "sr-Latn", "cs")
DEFAULT = "en"
COOKIE = "rg_lang"
#: each language's own name, for the picker (the same in every language)
ENDONYMS: dict[str, str] = {"en": "English", "ru": "Русский", "sr": "Српски", "sr-Latn": "Srpski", "cs": "Čeština"}
#: the CLDR plural category of each gettext plural index, per language (integers only)
PLURAL_CATEGORIES: dict[str, tuple[str, ...]] = {
    "en": ("one", "other"),
    "ru": ("one", "few", "many"),
    "sr": ("one", "few", "other"),
    "sr-Latn": ("one", "few", "other"),
    "cs": ("one", "few", "other"),
}
#: the Babel locale of each language
BABEL_LOCALE: dict[str, str] = {"en": "en", "ru": "ru", "sr": "sr", "sr-Latn": "sr_Latn", "cs": "cs"}
PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def po_path(lang: str) -> Path:
    """The catalog file of a language."""
    return HERE / f"{lang}.po"


def read_catalog(lang: str) -> Catalog:
    """The parsed gettext catalog of ``lang``."""
    with open(po_path(lang), "rb") as f:
        return read_po(f, locale=BABEL_LOCALE[lang])


@cache
def messages(lang: str) -> dict[str, str | list[str]]:
    """key -> text, or key -> plural forms (in gettext index order) for ``lang``."""
    out: dict[str, str | list[str]] = {}
    for m in read_catalog(lang):
        if not m.id:
            continue
        if isinstance(m.id, (tuple, list)):
            out[str(m.id[0])] = [str(x) for x in (m.string or ())]
        else:
            out[str(m.id)] = str(m.string or "")
    return out


def client_catalog(lang: str) -> dict[str, Any]:
    """What a page ships to the browser: the language, its plural categories and its messages."""
    return {"lang": lang, "plural": list(PLURAL_CATEGORIES[lang]), "messages": messages(lang)}


def translate(lang: str, key: str, **params: object) -> str:
    """The message ``key`` in ``lang`` (English if the catalog lacks it) with ``{name}`` filled in."""
    text = messages(lang).get(key) or messages(DEFAULT).get(key)
    if text is None:
        raise KeyError(f"no message {key!r}")
    if isinstance(text, list):
        raise TypeError(f"{key!r} is a plural message: use translate_plural")
    return fill(text, params)


def translate_plural(lang: str, key: str, n: int, **params: object) -> str:
    """The plural message ``key`` for the count ``n`` in ``lang``, ``{n}`` and the others filled in."""
    from babel import Locale

    forms = messages(lang)[key]
    assert isinstance(forms, list)
    category = Locale.parse(BABEL_LOCALE[lang]).plural_form(n)
    cats = PLURAL_CATEGORIES[lang]
    idx = cats.index(category) if category in cats else len(cats) - 1
    return fill(forms[idx], {"n": n, **params})


def fill(text: str, params: dict[str, object]) -> str:
    """Replaces each ``{name}`` with its parameter (unknown ones are left as they are)."""
    return PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), text)


def _match(tag: str) -> str | None:
    """The site language for a BCP 47 tag (``sr-Latn-RS`` -> ``sr-Latn``, ``cs-CZ`` -> ``cs``), or None."""
    parts = tag.strip().lower().replace("_", "-").split("-")
    if not parts or not parts[0]:
        return None
    if parts[0] == "sr" and "latn" in parts[1:]:
        return "sr-Latn"
    for lang in LANGS:
        if lang.lower() == parts[0]:
            return lang
    return None


def parse_accept_language(header: str) -> list[str]:
    """The site languages a browser asks for, best first (at most 20 entries of the header are read)."""
    entries = []
    for i, item in enumerate(header[:2000].split(",")[:20]):
        tag, _, rest = item.partition(";")
        q = 1.0
        m = re.search(r"q\s*=\s*([0-9.]+)", rest)
        if m:
            try:
                q = float(m.group(1))
            except ValueError:
                q = 0.0
        lang = _match(tag)
        if lang and q > 0:
            entries.append((-q, i, lang))
    out: list[str] = []
    for _, _, lang in sorted(entries):
        if lang not in out:
            out.append(lang)
    return out


def normalize(value: str | None) -> str | None:
    """A ``?lang=`` or cookie value as a site language (case-insensitive), or None."""
    if not value or len(value) > 20:
        return None
    for lang in LANGS:
        if lang.lower() == value.strip().lower():
            return lang
    return None


def choose_language(query: str | None, cookie: str | None, accept_language: str | None) -> str:
    """``?lang=``, else the cookie, else ``Accept-Language``, else English."""
    for v in (normalize(query), normalize(cookie)):
        if v:
            return v
    prefs = parse_accept_language(accept_language or "")
    return prefs[0] if prefs else DEFAULT
