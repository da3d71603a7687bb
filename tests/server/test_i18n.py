"""The site's languages: catalogs complete and consistent, plural rules, Serbian Latin, language choice,
and the pages in each language."""

import gettext
import re

import pytest
from babel import Locale

from ringgames.server import i18n
from ringgames.server.i18n import translit

CYRILLIC = re.compile(r"[\u0400-\u04FF]")
TAG = re.compile(r"</?[a-z]+[^>]*>")


def header_plural(lang):
    cat = i18n.read_catalog(lang)
    return cat.num_plurals, gettext.c2py(cat.plural_expr)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_catalog_has_every_english_key_with_the_same_placeholders_and_markup(lang):
    en, msgs = i18n.messages("en"), i18n.messages(lang)
    assert set(msgs) == set(en), (sorted(set(en) - set(msgs)), sorted(set(msgs) - set(en)))
    assert not [m.id for m in i18n.read_catalog(lang) if m.fuzzy], "fuzzy (unreviewed) messages"
    nplurals, _ = header_plural(lang)
    assert nplurals == len(i18n.PLURAL_CATEGORIES[lang])
    for key, text in msgs.items():
        ref = en[key]
        assert isinstance(text, list) == isinstance(ref, list), f"{lang} {key}: plural in one catalog only"
        forms = text if isinstance(text, list) else [text]
        ref_forms = ref if isinstance(ref, list) else [ref]
        if isinstance(text, list):
            assert len(forms) == nplurals, f"{lang} {key}: {len(forms)} plural forms, the language has {nplurals}"
        want = set(i18n.PLACEHOLDER.findall(ref_forms[-1]))
        for f in forms:
            assert f.strip(), f"{lang} {key}: empty"
            assert set(i18n.PLACEHOLDER.findall(f)) == want, f"{lang} {key}: placeholders {f!r} vs {ref_forms[-1]!r}"
            assert sorted(TAG.findall(f)) == sorted(TAG.findall(ref_forms[-1])), f"{lang} {key}: markup differs"
            assert f.count("{") == f.count("}"), f"{lang} {key}: unbalanced braces"


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_translated_catalogs_are_translated(lang):
    """Most messages differ from English (names like "API" or "{title} ({variant})" may stay)."""
    if lang == "en":
        return
    en, msgs = i18n.messages("en"), i18n.messages(lang)
    same = [k for k in en if msgs[k] == en[k]]
    assert len(same) <= 6, same


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_client_plural_categories_match_the_catalog_plural_formula(lang):
    """The browser picks a form by Intl.PluralRules' category (CLDR, as Babel has it); the category's
    index in PLURAL_CATEGORIES must be the index the catalog's gettext formula gives, for every count."""
    _, formula = header_plural(lang)
    loc = Locale.parse(i18n.BABEL_LOCALE[lang])
    cats = i18n.PLURAL_CATEGORIES[lang]
    for n in range(1200):
        assert cats.index(loc.plural_form(n)) == formula(n), (lang, n, loc.plural_form(n))


@pytest.mark.parametrize(("lang", "n", "text"), [
    ("ru", 1, "1 полуход"), ("ru", 2, "2 полухода"), ("ru", 5, "5 полуходов"), ("ru", 21, "21 полуход"),
    ("ru", 11, "11 полуходов"), ("ru", 22, "22 полухода"),
    ("cs", 1, "1 půltah"), ("cs", 2, "2 půltahy"), ("cs", 5, "5 půltahů"), ("cs", 21, "21 půltahů"),
    ("sr", 1, "1 полупотез"), ("sr", 2, "2 полупотеза"), ("sr", 5, "5 полупотеза"), ("sr", 21, "21 полупотез"),
    ("sr-Latn", 21, "21 polupotez"), ("en", 1, "1 ply"), ("en", 21, "21 plies"),
])
def test_plural_forms(lang, n, text):
    assert i18n.translate_plural(lang, "archive.plies", n) == text


def test_three_distinct_forms_in_russian_serbian_and_czech():
    for lang in ("ru", "sr", "cs"):
        forms = i18n.messages(lang)["game.heading_players"]
        assert len(forms) == 3
    assert len(set(i18n.messages("ru")["archive.plies"])) == 3 and len(set(i18n.messages("cs")["archive.plies"])) == 3


def test_serbian_transliteration():
    t = translit.cyrillic_to_latin
    assert t("Ђорђе Џаја једе ћевапе, чорбу и шљиве; жена њему") == "Đorđe Džaja jede ćevape, čorbu i šljive; žena njemu"
    assert t("ЉУБАВ Љубав ЊИВА Њива ЏЕП Џеп") == "LJUBAV Ljubav NJIVA Njiva DŽEP Džep"
    assert t("Gygès {name} <b>x</b> 6×6") == "Gygès {name} <b>x</b> 6×6"
    assert t("абвгдђежзијклљмнњопрстћуфхцчџш") == "abvgdđežzijklljmnnjoprstćufhcčdžš"


def test_the_latin_catalog_is_the_transliterated_cyrillic_one():
    sr = i18n.po_path("sr").read_bytes()
    assert i18n.po_path("sr-Latn").read_bytes() == translit.build_latin_catalog(sr), \
        "sr-Latn.po is stale: run python -m ringgames.server.i18n.translit"
    latn, cyr = i18n.messages("sr-Latn"), i18n.messages("sr")
    for key, text in latn.items():
        for f in text if isinstance(text, list) else [text]:
            assert not CYRILLIC.search(f), (key, f)
    assert latn["nav.lobby"] == "Predvorje" and cyr["nav.lobby"] == "Предворје"


@pytest.mark.parametrize(("header", "want"), [
    ("cs", ["cs"]), ("cs-CZ,cs;q=0.9,en;q=0.8", ["cs", "en"]), ("de-DE, ru;q=0.5, en;q=0.7", ["en", "ru"]),
    ("sr-Latn-RS", ["sr-Latn"]), ("sr-RS", ["sr"]), ("sr-Cyrl", ["sr"]), ("fr, *;q=0.1", []), ("", []),
    ("ru;q=0, cs", ["cs"]), ("ru;q=abc", ["ru"]), ("x" * 10_000, []),
])
def test_accept_language(header, want):
    assert i18n.parse_accept_language(header) == want


def test_language_choice_order():
    assert i18n.choose_language("ru", "cs", "sr") == "ru"
    assert i18n.choose_language("SR-latn", None, None) == "sr-Latn"
    assert i18n.choose_language("klingon", "cs", "sr") == "cs"
    assert i18n.choose_language(None, "bogus", "sr-RS,en;q=0.5") == "sr"
    assert i18n.choose_language(None, None, "de") == "en"


def _html_lang(text):
    return re.search(r'<html lang="([^"]+)"', text).group(1)


def test_rules_yinsh_in_russian(client):
    r = client.get("/rules/yinsh?lang=ru")
    assert r.status_code == 200 and _html_lang(r.text) == "ru"
    assert "<h1>YINSH — как играть</h1>" in r.text
    assert "Пять маркеров вашего цвета на одной прямой образуют ряд" in r.text
    assert len(CYRILLIC.findall(r.text)) > 1000
    assert "Five markers" not in r.text
    assert r.headers["content-language"] == "ru"
    assert "rg_lang=ru" in r.headers["set-cookie"]


def test_accept_language_czech_on_rings(client):
    r = client.get("/rules/rings", headers={"Accept-Language": "cs"})
    assert _html_lang(r.text) == "cs"
    assert "<h1>RINGS — jak se hraje</h1>" in r.text and "prstenec" in r.text
    assert "set-cookie" not in r.headers  # only ?lang= or the picker sets the cookie
    assert _html_lang(client.get("/rules/rings", headers={"Accept-Language": "de, cs-CZ;q=0.8"}).text) == "cs"
    assert _html_lang(client.get("/rules/rings", headers={"Accept-Language": "de"}).text) == "en"


def test_serbian_latin_gyges_has_no_cyrillic(client):
    r = client.get("/rules/gyges?lang=sr-Latn")
    assert _html_lang(r.text) == "sr-Latn"
    assert "Gygès — kako se igra" in r.text and "odbija" in r.text
    text = re.sub(r'<select name="lang".*?</select>', "", r.text, flags=re.DOTALL)  # the picker's endonyms aside
    assert not CYRILLIC.search(text), CYRILLIC.findall(text)[:10]
    cyr = client.get("/rules/gyges?lang=sr")
    assert "Gygès — како се игра" in cyr.text and _html_lang(cyr.text) == "sr"


def test_cookie_remembers_and_query_wins(client):
    client.get("/?lang=cs")
    r = client.get("/archive", headers={"Accept-Language": "ru"})
    assert _html_lang(r.text) == "cs" and "Dohrané a nahrané partie" in r.text
    r = client.get("/archive?lang=en", headers={"Accept-Language": "ru"})
    assert _html_lang(r.text) == "en" and "Finished and imported games" in r.text
    assert _html_lang(client.get("/game/abc").text) == "en"  # the cookie now says en
    bad = client.get("/rules/yinsh?lang=%3Cscript%3E")
    assert bad.status_code == 200 and _html_lang(bad.text) == "en" and "set-cookie" not in bad.headers


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_every_page_has_the_language_picker_and_the_catalog(client, lang):
    import json

    for path in ("/", "/game/xyz", "/archive", "/rules/yinsh", "/rules/gyges", "/rules/rings"):
        r = client.get(f"{path}?lang={lang}")
        assert r.status_code == (404 if path == "/game/xyz" else 200) and _html_lang(r.text) == lang, path  # no game xyz
        assert f'<option value="{lang}" lang="{lang}" selected>' in r.text, path
        cat = json.loads(re.search(r'<script type="application/json" id="i18n">(.*?)</script>', r.text, re.DOTALL).group(1))
        assert cat["lang"] == lang and cat["messages"]["lobby.create"] == i18n.messages(lang)["lobby.create"]
        assert cat["plural"] == list(i18n.PLURAL_CATEGORIES[lang])


def test_unknown_rules_page_is_a_clean_404(client):
    r = client.get("/rules/chess?lang=ru")
    assert r.status_code == 404 and '<html lang="ru">' in r.text and "Такой страницы нет" in r.text


def test_every_key_the_pages_use_exists_and_every_key_is_used():
    """Keys named in the templates and scripts exist in English; every English key is used (literally, or
    through one of the families the scripts build from server words, like ``seat.<name>``)."""
    from pathlib import Path

    server = Path(i18n.__file__).parent.parent
    sources = [p.read_text() for p in sorted((server / "templates").glob("*.html")) + sorted((server / "static").glob("*.js"))]
    used = set()
    for src in sources:
        used |= set(re.findall(r"\b(?:t|tn|tOr)\(\s*[\"'`]([a-z0-9_]+(?:\.[a-z0-9_]+)+)[\"'`]", src))
        used |= set(re.findall(r"[\"']((?:gyges|setup|action|game|phase)\.[a-z_.]+)[\"']", src))  # keys held in variables
    from ringgames.server import learn  # the lessons' texts and the diagrams' captions: keys held in server/learn.py
    used |= {les.key(part) for ls in learn.LESSONS.values() for les in ls for part in ("title", "task", "hint", "done")}
    used |= {d.caption for ds in learn.DIAGRAMS.values() for d in ds}
    en = i18n.messages("en")
    assert used and not sorted(used - set(en)), sorted(used - set(en))
    families = ("seat.", "variant.", "reason.", "result.", "source.", "summary.", "kind.", "error.", "phase.yinsh.")
    unused = [k for k in en if k not in used and not k.startswith(families)]
    assert not unused, unused
    for fam in families:  # each family is really built by a script
        assert any(f"`{fam}${{" in src for src in sources), fam


def test_every_error_code_the_server_raises_has_a_message_in_every_language():
    """The pages show ``error.<code>`` from the catalog; a code without one falls back to the English server text."""
    from pathlib import Path

    import ringgames.server as server

    codes = set()
    for f in Path(server.__file__).parent.glob("*.py"):
        codes |= set(re.findall(r'ApiError\(\s*\d+,\s*"([a-z_]+)"', f.read_text(encoding="utf-8")))
    assert {"not_your_seat", "takeback_rated", "cross_site", "too_many_sockets"} <= codes  # the scan finds them
    for lang in ("en", "ru", "sr", "sr-Latn", "cs"):
        text = i18n.po_path(lang).read_text(encoding="utf-8")
        missing = sorted(c for c in codes if f'msgid "error.{c}"' not in text)
        assert not missing, f"{lang}: no error.<code> message for {missing}"
