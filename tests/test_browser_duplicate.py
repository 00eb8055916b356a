"""A duplicate league's pages in Chromium at 390 and 1280 px (issue 34): the season page with
its duplicate table and board links, and a board's page (the deal and each table's result);
axe-core finds nothing serious and the page never scrolls sideways."""

import pytest

from tests.browser_helpers import axe_or_skip, serve
from tests.test_browser import chromium  # noqa: F401 (a fixture)
from tests.test_browser_look import faults, open_at


@pytest.fixture(scope="module")
def axe():
    return axe_or_skip()


@pytest.fixture
def duplicate_pages(tmp_path):
    """Four pairs, one round of two boards, played: the season page's and a board's URLs."""
    from pbem.engine import preset
    from pbem.league.manage import OPERATOR
    from pbem.organise.seasons import start_season
    from pbem.store.states import Store
    from tests.league_helpers import fixtures, league, play_out

    with serve(tmp_path) as (url, _app):
        store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
        rules = preset("standard").with_options(max_hands=2, target=1000)
        lid = league(store, players=8, entry="pair", pairing="duplicate", rules=rules,
                     rounds=1)
        start_season(store, lid, OPERATOR)
        for f in fixtures(store, lid):
            play_out(store, f.game_id, seed=f.board)
        yield f"{url}/l/{lid}", f"{url}/l/{lid}/s/1/r/1/b/2"


@pytest.mark.parametrize("width", (390, 1280))
def test_the_duplicate_pages_pass_axe(chromium, axe, duplicate_pages, width):  # noqa: F811
    season, board = duplicate_pages
    page = open_at(chromium, width)
    page.goto(season)
    assert page.locator("tr.duplicate-standing").count() == 4
    assert faults(page, axe, width) == []
    page.goto(board)
    assert page.locator("tr.board-result").count() == 2
    assert page.locator("tr.hand").count() == 4
    assert faults(page, axe, width) == []
    page.context.close()
