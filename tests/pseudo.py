"""A pseudo-language for the tests that every shown word goes through the catalogue: each
translated string comes out between ⟦ and ⟧, so a word outside the marks in a rendered page
or mail was never translated. `leftover_words` finds those words.

    with pseudo():
        html = client.get("/").text
    assert leftover_words(page_text(html), allowed={"Ann"}) == []
"""

import gettext
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from html.parser import HTMLParser

import pbem.i18n

OPEN, CLOSE = "⟦", "⟧"
PSEUDO = "en"  # the language the context holds: the patched catalogue answers for every one
_MARKED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
_WORD = re.compile(r"[A-Za-z]{2,}")
# (and Babel's CLDR names of days and months, which the pseudo-language's English context
# gives a date; a deal commitment's hash)
_NOT_WORDS = re.compile(r"(https?://\S+|[\w.+-]+@[\w.-]+|&\w+;|\b[0-9]*[AKQJT2-9][SHDC]\b"
                        r"|\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep"
                        r"|Oct|Nov|Dec)\b|\b[0-9a-f]{16,}\b)")
# what no language translates: card ranks and suits as codes, the game's own name, units
ALWAYS = {"pbem", "Spades", "PBEM", "UTC"}


_PLACEHOLDER = re.compile(r"(%\(\w+\)[sd])")


def marked(message: str) -> str:
    """The message's own words between marks, each placeholder outside them: a value put in
    (a refusal from below, a name of a setting) must bring its own marks, or it shows."""
    parts = _PLACEHOLDER.split(message)
    return "".join(p if i % 2 else f"{OPEN}{p}{CLOSE}" for i, p in enumerate(parts) if p)


class Pseudo(gettext.NullTranslations):
    def gettext(self, message: str) -> str:
        return marked(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return marked(singular if n == 1 else plural)

    def pgettext(self, context: str, message: str) -> str:
        return marked(message)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return self.ngettext(singular, plural, n)


@contextmanager
def pseudo() -> Iterator[None]:
    """Every language's catalogue answers with marked words while inside."""
    pbem.i18n.translations.cache_clear()
    real = pbem.i18n.translations
    pbem.i18n.translations = lambda lang: Pseudo()  # type: ignore[assignment]
    try:
        yield
    finally:
        pbem.i18n.translations = real


def leftover_words(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """Words of two letters or more outside the marks: shown, and never translated."""
    while True:  # innermost first: a translated sentence may hold translated words
        unmarked = _MARKED.sub(" ", text)
        if unmarked == text:
            break
        text = unmarked
    rest = _NOT_WORDS.sub(" ", text)
    ok = ALWAYS | set(allowed)
    return [w for w in _WORD.findall(rest) if w not in ok]


class _Text(HTMLParser):
    """A page's shown text: its text nodes and the attributes a reader sees or hears."""

    SHOWN = {"title", "alt", "placeholder", "aria-label"}
    BUTTONS = {"submit", "button", "reset"}  # an input whose value is its label
    SKIP = {"script", "style"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        label = tag == "input" and dict(attrs).get("type") in self.BUTTONS
        for name, value in attrs:
            if value and (name in self.SHOWN or (label and name == "value")):
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def page_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return "\n".join(parser.parts)
