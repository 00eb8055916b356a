"""The HTML part made from a text-only mail (pbem.store.text_html), laid out by a real
Chromium 360 px wide: no sideways scroll whatever its lines and links, the text's words
and line breaks shown as written, each link a link, and markup in the text shown as text."""

from browser_helpers import launch

from pbem.store.text_html import html_of
from pbem.store.wrap import wrap

LINK = "https://spades.example.org/j/confirm/" + "AbCdEf0123" * 20
TEXT = (f"Confirm your entry: {LINK}.\n\n"
        "  Table 3 <b>not bold</b> & Q♥ 10♠\n" + "a-very-long-word" * 12 + "\n"
        "Your account address: pbem+abcdefgh12345678@spades.example.org\n")


def test_a_text_mail_as_html_fits_a_phone_and_shows_the_text():
    with launch() as browser:
        page = browser.new_page(viewport={"width": 360, "height": 740})
        page.set_content(html_of(TEXT))
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        shown = page.inner_text("body")
        assert " ".join(shown.split()) == " ".join(TEXT.split())  # every word, nothing else
        assert "<b>not bold</b>" in shown and page.query_selector("b") is None
        assert page.eval_on_selector_all("a", "xs => xs.map(a => a.href)") == [LINK]
        # the same text wrapped for the text part also fits (a link alone on its line)
        page.set_content(html_of(wrap(TEXT)))
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
