"""The players' languages: every word a page or mail shows goes through `_` (gettext) or
`ngettext`, and comes out in the language of the context around it (`language("de")`).

The catalogues are gettext .po files under pbem/locale/<lang>/LC_MESSAGES/, one a part of
the program (web.po, mail.po...): they are read by Babel when a language is first used and
merged into one translation, so the source tree holds no compiled .mo files. English is the
source language: its words are the msgids, and a missing translation shows them.

    with language(player_language(player)):
        text = _("Your move in game %(game)s") % {"game": game_id}
"""

import gettext as _gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from functools import cache
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

DEFAULT = "en"
# the shipped languages, each by its own name (what a language menu shows)
LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch", "fr": "Français",
                             "es": "Español", "pt": "Português"}
LOCALE_DIR = Path(__file__).parent / "locale"
_current: ContextVar[str] = ContextVar("pbem_language", default=DEFAULT)


def known(lang: str | None) -> str:
    """A shipped language's code for what a player or a browser gave ("de-AT", "PT_br",
    "Deutsch"), or the default."""
    word = (lang or "").strip().replace("_", "-").lower()
    if word in LANGUAGES:
        return word
    base = word.split("-")[0]
    if base in LANGUAGES:
        return base
    by_name = {name.lower(): code for code, name in LANGUAGES.items()}
    return by_name.get(word, DEFAULT)


def current() -> str:
    return _current.get()


@contextmanager
def language(lang: str | None) -> Iterator[str]:
    """Words made inside come out in `lang` (a shipped language, or the default)."""
    token = _current.set(known(lang))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


@cache
def translations(lang: str) -> _gettext.NullTranslations:
    """The language's catalogues, read once: every .po of its folder, merged."""
    files = sorted((LOCALE_DIR / lang / "LC_MESSAGES").glob("*.po"))
    if lang == DEFAULT or not files:
        return _gettext.NullTranslations()
    merged = Catalog(locale=lang)
    for path in files:
        with path.open("rb") as f:
            part = read_po(f, locale=lang)
        for message in part:
            if message.id and message.string and not message.fuzzy:
                merged.add(message.id, message.string, context=message.context)
    buffer = BytesIO()
    write_mo(buffer, merged)
    buffer.seek(0)
    return _gettext.GNUTranslations(buffer)


def gettext(message: str) -> str:
    return translations(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """A word whose translation depends on where it stands ("pass" as a bid, as a card)."""
    return translations(current()).pgettext(context, message)


_ = gettext


def listing(items: list[str]) -> str:
    """Items as a sentence names them, in the context's language ("a, b and c", "a, b et
    c"): the catalogue's two list patterns (CLDR's middle and end), never an " and " glued
    in; the pseudo-language test sees them as it sees every word."""
    if not items:
        return ""
    middle, end = gettext("%(items)s, %(item)s"), gettext("%(items)s and %(item)s")
    text = items[0]
    for i, item in enumerate(items[1:], start=2):
        text = (end if i == len(items) else middle) % {"items": text, "item": item}
    return text


def N_(message: str) -> str:
    """A word marked for the catalogue where it is defined, translated where it is shown
    (`_(WORD)`): module-level tables, error classes' words."""
    return message


def set_current(lang: str | None) -> Token[str]:
    """Enter `lang` for what follows (a web request's hooks: `language()` as two halves)."""
    return _current.set(known(lang))


def reset_current(token: Token[str]) -> None:
    _current.reset(token)


def told(error: Exception) -> str:
    """An error's words in the context's language: a refusal of the engine (pbem.engine.
    errors.Refusal) carries them as a template and values, marked for the catalogue; any
    other error says what it says."""
    words = getattr(error, "words", None)
    return tell(words) if words is not None else str(error)


def tell(words: object, depth: int = 0) -> str:
    """Words (pbem.engine.errors.Words: a template and values, a value maybe Words again),
    translated; nested a few deep at most. Anything else as it says itself."""
    template, values = getattr(words, "template", None), getattr(words, "values", None)
    if not isinstance(template, str) or not isinstance(values, dict) or depth > 4:
        return str(words)
    if not values:
        return gettext(template)
    return gettext(template) % {k: tell(v, depth + 1) for k, v in values.items()}
