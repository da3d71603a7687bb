"""Serbian Cyrillic -> Serbian Latin (the standard one-to-one alphabet mapping), and the build step
that writes ``sr-Latn.po`` from ``sr.po``.

``python -m ringgames.server.i18n.translit`` regenerates ``sr-Latn.po``; a test fails when the shipped
file differs from what this produces, so the Latin catalog never drifts from the Cyrillic one.
Only Cyrillic letters change: placeholders (``{name}``), markup and Latin text such as game names pass
through unchanged.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

_FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)

_LOWER = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "ђ": "đ", "е": "e", "ж": "ž", "з": "z", "и": "i",
    "ј": "j", "к": "k", "л": "l", "љ": "lj", "м": "m", "н": "n", "њ": "nj", "о": "o", "п": "p", "р": "r",
    "с": "s", "т": "t", "ћ": "ć", "у": "u", "ф": "f", "х": "h", "ц": "c", "ч": "č", "џ": "dž", "ш": "š",
}
_DIGRAPH_UPPER = {"Љ": ("Lj", "LJ"), "Њ": ("Nj", "NJ"), "Џ": ("Dž", "DŽ")}


def cyrillic_to_latin(text: str) -> str:
    """Serbian Cyrillic text in Latin script.

    Љ, Њ, Џ become ``Lj``, ``Nj``, ``Dž`` before a lower-case letter and ``LJ``, ``NJ``, ``DŽ`` in an
    all-capitals word.

    >>> cyrillic_to_latin("Љубав, ЊЕГОШ, џеп, Ђорђе, шах {name} YINSH")
    'Ljubav, NJEGOŠ, džep, Đorđe, šah {name} YINSH'
    """
    out = []
    for i, ch in enumerate(text):
        low = ch.lower()
        if low not in _LOWER:
            out.append(ch)
            continue
        if ch == low:
            out.append(_LOWER[low])
        elif ch in _DIGRAPH_UPPER:
            nxt = text[i + 1] if i + 1 < len(text) else ""
            prev = text[i - 1] if i > 0 else ""
            all_caps = (nxt.isalpha() and nxt.isupper()) or (not nxt.isalpha() and prev.isalpha() and prev.isupper())
            out.append(_DIGRAPH_UPPER[ch][1 if all_caps else 0])
        else:
            out.append(_LOWER[low].upper())
    return "".join(out)


def build_latin_catalog(cyrillic_po: bytes) -> bytes:
    """The ``sr-Latn`` catalog (as .po bytes) made from the ``sr`` one."""
    from babel.messages.pofile import read_po, write_po

    cat = read_po(io.BytesIO(cyrillic_po), locale="sr")
    cat.locale = "sr_Latn"
    cat.header_comment = ("# Serbian (Latin) messages of the ringgames site, GENERATED from sr.po: do not edit;\n"
                          "# run python -m ringgames.server.i18n.translit after changing sr.po.")
    cat.creation_date = cat.revision_date = _FIXED_DATE  # the output depends on the input only
    for m in cat:
        if not m.id:
            continue
        if isinstance(m.string, (list, tuple)):
            m.string = tuple(cyrillic_to_latin(s) for s in m.string)
        else:
            m.string = cyrillic_to_latin(m.string or "")
    buf = io.BytesIO()
    write_po(buf, cat, width=0, omit_header=False, no_location=True)
    return buf.getvalue()


def main() -> None:
    """Writes ``sr-Latn.po`` next to ``sr.po``."""
    here = Path(__file__).parent
    (here / "sr-Latn.po").write_bytes(build_latin_catalog((here / "sr.po").read_bytes()))
    print(f"wrote {here / 'sr-Latn.po'}")


if __name__ == "__main__":
    main()
