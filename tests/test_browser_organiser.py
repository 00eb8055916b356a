"""The organiser's new actions in a real browser (issue 16): on the organiser's page, a
table is given more hours, the robot makes one move, the players are reminded, a finished
game is ruled on (its reason then shows on the league's table and the game's page),
every player is mailed, and the season is paused and resumed. Chromium via Playwright, as
tests/test_browser.py."""

from sqlmodel import select

from tests.test_browser import chromium, csp_watch, shot, site  # noqa: F401 (fixtures)


def _league(tmp_path):
    """A Swiss league of eight started, its first game played out: (store, token, games)."""
    from pbem.league.manage import OPERATOR, LeagueSpec, create_league, join
    from pbem.organise.seasons import start_season
    from pbem.store.states import Store
    from tests.league_helpers import ONE_HAND, TODAY, fixtures, play_out

    store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
    lg = create_league(store, LeagueSpec("boss@x.test", "Care League", ONE_HAND, TODAY, TODAY))
    for i in range(8):
        join(store, lg.id, f"p{i}@x.test", name=f"Player {i}")
    start_season(store, lg.id, OPERATOR)
    games = [f.game_id for f in fixtures(store, lg.id)]
    play_out(store, games[0])
    return store, lg.admin_token, games


def _notice(page) -> str:
    assert page.locator(".error").count() == 0, page.inner_text("main")[:500]
    return page.locator('p.notice[role="status"]').inner_text()


def test_an_organiser_cares_for_tables_rules_and_writes(chromium, site, tmp_path):  # noqa: F811
    from pbem.store.models import Move, Outbox

    store, token, (done, playing) = _league(tmp_path)
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    blocked = csp_watch(page)
    page.set_default_timeout(15_000)
    page.goto(f"{site}/o/{token}")
    care = page.locator(f'div.table-care[data-game="{playing}"]')
    care.locator('input[name="hours"]').fill("36")
    with page.expect_navigation():
        care.get_by_role("button", name="Give the time").click()
    assert _notice(page) == f"Game {playing}: 36 more hours."
    care = page.locator(f'div.table-care[data-game="{playing}"]')
    with page.expect_navigation():
        care.get_by_role("button", name="Let the robot make this move").click()
    assert _notice(page) == f"Game {playing}: the robot made the move."
    care = page.locator(f'div.table-care[data-game="{playing}"]')
    with page.expect_navigation():
        care.get_by_role("button", name="Remind the players to act").click()
    assert "reminded to move" in _notice(page)
    with page.expect_navigation():  # a second reminder of the same move is refused
        page.locator(f'div.table-care[data-game="{playing}"]').get_by_role(
            "button", name="Remind the players to act").click()
    assert "reminded of this move already" in page.locator(".error").inner_text()

    form = page.locator("form.rule-form")
    form.locator('input[name="game"]').fill(str(done))
    form.locator('select[name="result"]').select_option("replay")
    form.locator('input[name="reason"]').fill("the deal was dealt twice")
    with page.expect_navigation():
        form.get_by_role("button", name="Rule").click()
    assert "to be replayed" in _notice(page)
    assert "the deal was dealt twice" in page.locator("li.ruling").inner_text()
    shot(page, tmp_path, "organiser-care")

    form = page.locator("form.message-form")
    form.locator('input[name="subject"]').fill("Holidays")
    form.locator('textarea[name="text"]').fill("No deadlines run over Christmas.")
    with page.expect_navigation():
        form.get_by_role("button", name="Send").click()
    assert _notice(page) == "Your message went to 8 players."
    with page.expect_navigation():
        page.get_by_role("button", name="Pause season 1").click()
    assert _notice(page) == "Paused: season 1."
    assert "Paused since" in page.locator("form.pause-form").inner_text()
    with page.expect_navigation():
        page.get_by_role("button", name="Resume season 1").click()
    assert _notice(page) == "Resumed: season 1."

    page.goto(f"{site}/l/1")
    assert "the deal was dealt twice" in page.locator("li.ruling").inner_text()
    assert page.locator("tr.standing td:nth-child(3)").all_inner_texts() == ["0"] * 8
    page.goto(f"{site}/g/{done}")
    assert "to be replayed" in page.locator("p.ruling").inner_text()
    assert blocked == []
    page.close()
    with store.session() as s:
        assert s.exec(select(Move.source).where(Move.game_id == playing,
                                                Move.source == "organiser")).first()
        assert len(s.exec(select(Outbox).where(Outbox.dedupe_key.like("message:1:%"))).all()) \
            == 9
