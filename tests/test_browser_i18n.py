"""The table page in each shipped language, in Debian's Chromium at a phone's 390 px: the
browser asks for the language (its locale: Accept-Language), the page answers in it, with its
card-table words (docs/translating.md), and the longer words of some languages still fit
without sideways scrolling. A screenshot of each goes to tests/output/ for a reviewer."""

import pytest

from pbem import i18n
from pbem.engine import preset
from tests.browser_helpers import OUTPUT, launch, serve
from tests.web_helpers import drive, humans_game, tokens

pytestmark = pytest.mark.xdist_group("test_browser_i18n")

WIDTH = 390
# a word of the table in each language, as the page shows it: the tricks' heading, the bags
WORDS = {"en": ("Tricks of this hand", "Bags"), "de": ("Stiche dieser Runde", "Säcke"),
         "fr": ("Plis de cette donne", "Sacs"), "es": ("Bazas de esta mano", "Sacos"),
         "pt": ("Vazas desta mão", "Sacos")}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A site with a game in mid trick (a trick or two done, cards on the table)."""
    from pbem.store.states import Store

    var = tmp_path_factory.mktemp("i18n")
    with launch() as browser, serve(var) as (url, _app):
        store = Store(f"sqlite:///{var / 'pbem.db'}")
        gid = humans_game(store, preset("standard"))
        drive(store, gid, lambda st: st.phase == "play" and 0 in st.to_act()
              and len(st.trick) >= 1 and len(st.tricks) >= 2)
        yield browser, f"{url}/t/{tokens(store, gid)[0]}"


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_the_table_in_each_language_at_390_px(site, lang):
    browser, table = site
    context = browser.new_context(viewport={"width": WIDTH, "height": 800}, is_mobile=True,
                                  has_touch=True, locale=lang)
    page = context.new_page()
    page.goto(table)
    assert page.locator("html").get_attribute("lang") == lang
    text = page.locator("main").inner_text()
    for word in WORDS[lang]:
        assert word in text, (lang, word)
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"table-{lang}-390.png"), full_page=True)
    wide = page.evaluate("document.scrollingElement.scrollWidth")
    assert wide <= WIDTH, f"{lang}: the page scrolls sideways ({wide} px): {widest(page)}"
    context.close()


def widest(page) -> list:
    """The elements wider than the page (what makes it scroll sideways), for the message."""
    return page.evaluate("""() => [...document.querySelectorAll('body *')].filter(
        e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .slice(-3).map(e => e.outerHTML.slice(0, 120))""")
