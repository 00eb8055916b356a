"""The league table on a phone (390 px) and a laptop (1280 px), in Chromium (issue 34): its
last column (Forfeits) is shown whole inside the viewport, or (on a phone) the table scrolls
sideways within its own box while the page does not; at 1280 px the whole table shows, with
no scrolling to find a column; and axe-core finds nothing serious on the page."""

import pytest

from tests.browser_helpers import axe_or_skip, serve
from tests.test_browser import chromium  # noqa: F401 (a fixture)
from tests.test_browser_look import faults, open_at


@pytest.fixture(scope="module")
def axe():
    return axe_or_skip()


@pytest.fixture
def league_page(tmp_path):
    """A league of eight with long names, its first round played: the season page's URL."""
    from pbem.league.manage import OPERATOR, join
    from pbem.organise.seasons import start_season
    from pbem.store.states import Store
    from tests.league_helpers import fixtures, league, play_out

    with serve(tmp_path) as (url, _app):
        store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
        lid = league(store, players=0)
        for i in range(8):
            join(store, lid, f"p{i}@x.test", name=f"Maximiliane Wolkenstein-Rodenegg {i}")
        start_season(store, lid, OPERATOR)
        for f in fixtures(store, lid):
            play_out(store, f.game_id, seed=f.board)
        yield f"{url}/l/{lid}"


LAST_COLUMN = """() => {
    const th = [...document.querySelectorAll('table[aria-label="League table"] th')].pop();
    const r = th.getBoundingClientRect();
    const box = th.closest(".scroll");
    return {text: th.textContent, right: r.right,
            boxRight: box ? box.getBoundingClientRect().right : null,
            scrolls: box ? box.scrollWidth > box.clientWidth : false,
            overflow: box ? getComputedStyle(box).overflowX : null};
}"""


@pytest.mark.parametrize("width", (390, 1280))
def test_the_league_table_fits_or_scrolls_in_its_own_box(chromium, axe, league_page,  # noqa: F811
                                                         width):
    page = open_at(chromium, width)
    page.goto(league_page)
    last = page.evaluate(LAST_COLUMN)
    assert last["text"] == "Forfeits"
    # shown whole: inside the viewport and not clipped by its box
    whole = last["right"] <= min(width, last["boxRight"] or width) + 0.5
    own_box = last["scrolls"] and last["overflow"] in ("auto", "scroll") and \
        last["boxRight"] is not None and last["boxRight"] <= width
    assert whole or own_box, last
    if width >= 1280:  # room enough: the whole table, no scrolling to find a column
        assert whole and not last["scrolls"], last
    assert faults(page, axe, width) == []  # nor does the page scroll sideways
    page.context.close()
