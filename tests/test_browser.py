"""A person in a real browser: Debian's headless Chromium, driven by Playwright, against the
app served by werkzeug on a free 127.0.0.1 port. Screenshots go under the test's tmp_path,
and the final ones are copied to /tmp/pbem-shots/ for a person to look at."""

import re
import shutil
from pathlib import Path

import pytest

from tests.browser_helpers import launch, mailed_link, serve

# one xdist worker runs this file (scripts/test): one Chromium for the file
pytestmark = pytest.mark.xdist_group("test_browser")

SHOTS = Path("/tmp/pbem-shots")
DEMO = "Play a demo game against three robots"
MOVE, HAND = 'section[aria-label="Your move"]', 'section[aria-label="Your hand"]'
MOVES = f"{MOVE} button, {HAND} button"  # at one's turn to play, the cards are the buttons
SEQ = f'{MOVE} input[name="seq"], {HAND} input[name="seq"]'
PAD_ROWS = 'table[aria-label="Score pad"] tbody tr'
LINES = 'svg[role="img"] polyline'


@pytest.fixture(scope="module")
def chromium():
    with launch() as browser:
        yield browser


@pytest.fixture
def site(tmp_path):
    """The app on a fresh SQLite database, served on a free port; its base URL."""
    with serve(tmp_path) as (url, _app):
        yield url


def _forced_plays(tmp_path) -> list[dict]:
    """The demo player's plays made for them (an only card, or the rest of a hand no play
    can change: pbem.engine.settled), from the site's database."""
    from sqlmodel import col, select

    from pbem.store.models import Move
    from pbem.store.states import Store

    with Store(f"sqlite:///{tmp_path / 'pbem.db'}").session() as s:
        made = select(Move).where(col(Move.source).in_(("auto", "settled")))
        return [m.payload for m in s.exec(made).all() if m.actor == 0]


def csp_watch(page) -> list[str]:
    """What the browser blocked under the site's Content-Security-Policy (it says so on the
    console): nothing may be, or the strict policy broke a page."""
    blocked = []
    page.on("console", lambda m: blocked.append(m.text)
            if "Content Security Policy" in m.text else None)
    return blocked


def shot(page, tmp_path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    SHOTS.mkdir(exist_ok=True)
    shutil.copy(path, SHOTS / path.name)


def open_demo(page, site) -> None:
    page.goto(site + "/")
    with page.expect_navigation():
        page.get_by_role("button", name=DEMO).click()
    assert re.search(r"/t/[^/]+$", page.url), page.url
    assert page.locator('section[aria-label="Your hand"] .card').count() > 0


def pick_move(page):
    """The button a person would press: bid 3 when bidding, look at the cards when asked,
    else the first move offered (the first legal card when playing)."""
    buttons = page.locator(MOVES)
    labels = [" ".join(t.split()) for t in buttons.all_inner_texts()]  # "Play\n7♥": a card
    assert labels, "no move buttons on the table page: " + page.inner_text("main")[:500]
    for wanted in ("Bid 3", "Look"):
        if wanted in labels:
            return buttons.nth(labels.index(wanted)), wanted
    return buttons.first, labels[0]


def test_a_whole_hand_by_clicking(chromium, site, tmp_path):
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    blocked = csp_watch(page)
    page.set_default_timeout(15_000)
    page.goto(site + "/")
    shot(page, tmp_path, "desktop-0-index")
    open_demo(page, site)
    assert page.locator(PAD_ROWS).count() == 0  # nothing scored yet
    assert page.locator(LINES).count() == 0  # and no chart: an empty box says nothing
    shot(page, tmp_path, "desktop-1-start")

    pressed = []
    for _ in range(40):  # a bid and 13 cards, with room for a look or a come-out question
        if page.locator(PAD_ROWS).count():
            break
        button, label = pick_move(page)
        with page.expect_navigation():
            button.click()
        pressed.append(label)
        assert page.locator(".error").count() == 0, page.inner_text(".error")
        notice = page.locator('p.notice[role="status"]').inner_text()
        assert notice.startswith("Done:"), notice
        if label == "Bid 3":
            assert notice == "Done: bid 3."
        if len(pressed) == 7:
            shot(page, tmp_path, "desktop-2-mid-hand")
    else:
        pytest.fail(f"no hand was scored after pressing {pressed}")
    assert "Bid 3" in pressed
    plays = [x for x in pressed if x.startswith("Play ")]
    forced = _forced_plays(tmp_path)  # an only card, a settled hand's rest: play themselves
    assert len(forced) >= 1 and len(plays) + len(forced) == 13, (pressed, forced)

    rows = page.locator(PAD_ROWS)
    assert rows.count() == 1
    cells = [c.strip() for c in rows.first.locator("td").all_inner_texts()]
    assert cells[0] == "1"
    assert len(cells) == 1 + 2 * 5  # hand, then bid/tricks/points/bags/score per side
    for side in (cells[1:6], cells[6:11]):
        bid, tricks, points, bags, score = side
        assert re.fullmatch(r"\d+( blind)?.*", bid), side
        assert re.fullmatch(r"\d+", tricks) and re.fullmatch(r"-?\d+( −\d+)?", points), side
        assert re.fullmatch(r"\d+", bags) and re.fullmatch(r"-?\d+", score), side
    assert int(cells[2]) + int(cells[7]) == 13  # every trick went to one side
    assert int(cells[1].split()[0]) >= 3  # our side bid at least our 3

    lines_after = page.locator(LINES).evaluate_all("ls => ls.map(l => l.getAttribute('points'))")
    assert len(lines_after) == 2
    assert all(len(p.split()) == 2 for p in lines_after), lines_after  # 0, then hand 1
    chart_text = page.locator('svg[role="img"] text').all_text_contents()
    for label_score in (cells[5], cells[10]):
        assert any(t.endswith(f": {label_score}") for t in chart_text), (chart_text, cells)
    shot(page, tmp_path, "desktop-3-scored")
    assert blocked == []
    page.close()


def test_phone_viewport_and_keyboard(chromium, site, tmp_path):
    context = chromium.new_context(viewport={"width": 375, "height": 740}, is_mobile=True,
                                   has_touch=True, device_scale_factor=2)
    page = context.new_page()
    blocked = csp_watch(page)
    page.set_default_timeout(15_000)
    open_demo(page, site)
    shot(page, tmp_path, "phone-1-table")

    width = page.evaluate("innerWidth")
    assert width == 375
    scroll = page.evaluate("document.scrollingElement.scrollWidth")
    assert scroll <= width, f"the page scrolls sideways: {scroll} px wide in {width}"
    for box in page.locator('section[aria-label="Your hand"] .card').evaluate_all(
            "cs => cs.map(c => c.getBoundingClientRect().right)"):
        assert box <= width, "a card of the hand is off the screen"
    for right in page.locator(MOVES).evaluate_all(
            "bs => bs.map(b => b.getBoundingClientRect().right)"):
        assert right <= width, "a move button is off the screen"

    # Keyboard only: Tab to the first move button, Enter presses it.
    first = " ".join(page.locator(MOVES).first.inner_text().split())
    for _ in range(200):
        page.keyboard.press("Tab")
        focused = page.evaluate("""sel => {
            const e = document.activeElement;
            return e && e.matches(sel) ? e.innerText.trim() : null; }""", MOVES)
        focused = focused and " ".join(focused.split())
        if focused:
            break
    else:
        pytest.fail("Tab never reached a move button")
    assert focused == first  # the first move in reading order is the first one tabbed to
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none", "the focused button shows no focus ring"
    seq_before = page.locator(SEQ).first.get_attribute("value")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    notice = page.locator('p.notice[role="status"]').inner_text()
    assert notice.startswith("Done:"), notice
    expected = first.lower().replace("play ", "played ")
    assert notice.lower().rstrip(".") == "done: " + expected, (notice, first)
    seq_after = page.locator(SEQ).first.get_attribute("value")
    assert int(seq_after) > int(seq_before)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    shot(page, tmp_path, "phone-2-after-enter")
    assert blocked == []
    context.close()


def test_an_organiser_starts_a_league_and_its_table_shows(chromium, site, tmp_path):
    """The league form, the organiser's page and its start button, the league's table: in a
    real browser (forms with their CSRF fields, as a person fills them)."""
    from pbem.league.manage import join
    from pbem.store.states import Store

    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    blocked = csp_watch(page)
    page.set_default_timeout(15_000)
    page.goto(site + "/l/new")
    page.fill('input[name="organiser"]', "boss@x.test")
    page.fill('input[name="name"]', "Browser League")
    page.fill('textarea[name="options"]', "max_hands=1")
    page.check('input[name="pairing"][value="swiss"]')
    page.fill('input[name="rounds"]', "2")
    with page.expect_navigation():
        page.get_by_role("button", name="Mail me the link to start the league").click()
    assert page.locator("h1").inner_text() == "Check your mail"
    store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
    page.goto(site + mailed_link(store, "boss@x.test", "/l/new/confirm/"))  # from the mail
    assert "Browser League" in page.inner_text("main")
    with page.expect_navigation():
        page.get_by_role("button", name="Start the league").click()
    assert "/o/" in page.url and page.locator(".error").count() == 0
    organiser = page.url
    for i in range(4):
        join(store, 1, f"p{i}@x.test", name=f"Player {i}")
    page.goto(organiser)
    assert page.locator("tr.entry").count() == 4
    shot(page, tmp_path, "league-1-organiser")
    with page.expect_navigation():
        page.get_by_role("button", name="Start the season now").click()
    notice = page.locator('p.notice[role="status"]').inner_text()
    assert notice.startswith("Season 1 has started: 2 rounds"), notice
    assert page.locator("form.table-desk").count() == 1  # the one table, with its hand-over

    page.goto(site + "/l/1")
    names = page.locator("tr.standing td:nth-child(2)").all_inner_texts()
    assert sorted(names) == [f"Player {i}" for i in range(4)]
    assert page.locator("tr.fixture").count() == 1 and "@" not in page.inner_text("main")
    shot(page, tmp_path, "league-2-table")
    assert blocked == []
    page.close()


def test_a_game_with_a_friend_confirmed_from_the_mail(chromium, site, tmp_path):
    """The form, the creator's mailed link and its button, the creator's table; then the
    invited friend's mail, a yes, and the dealt table: each as a person does it."""
    from pbem.store.states import Store

    store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    blocked = csp_watch(page)
    page.set_default_timeout(15_000)
    page.goto(site + "/new")
    page.fill('input[name="you"]', "ann@x.test")
    page.fill('input[name="seat0"]', "ann@x.test")
    page.fill('input[name="seat2"]', "bob@x.test")
    with page.expect_navigation():
        page.get_by_role("button", name="Mail me the link to start the game").click()
    assert page.locator("h1").inner_text() == "Check your mail"
    assert "ann@x.test" in page.inner_text("main")
    shot(page, tmp_path, "new-1-check-your-mail")

    page.goto(site + mailed_link(store, "ann@x.test", "/new/confirm/"))
    details = page.inner_text("main")
    assert "bob@x.test" in details and "standard" in details
    shot(page, tmp_path, "new-2-confirm")
    with page.expect_navigation():
        page.get_by_role("button", name="Start the game and send the invitations").click()
    assert page.locator("h1").inner_text().endswith("is set up")
    with page.expect_navigation():
        page.get_by_role("link", name="Your table").click()
    assert re.search(r"/t/[^/]+$", page.url) and page.locator(".error").count() == 0

    friend = chromium.new_page(viewport={"width": 375, "height": 740})
    friend.set_default_timeout(15_000)
    friend.goto(site + mailed_link(store, "bob@x.test", "/i/"))  # the invitation mail
    with friend.expect_navigation():
        friend.get_by_role("button", name=re.compile("yes", re.I)).click()
    assert re.search(r"/t/[^/]+$", friend.url)
    assert friend.locator('section[aria-label="Your hand"] .card').count() == 13  # dealt
    shot(friend, tmp_path, "new-3-friend-table")
    assert blocked == []
    friend.close()
    page.close()


def test_two_pages_on_one_game_follow_it_without_a_click(chromium, site, tmp_path):
    """Two players' tables open on one game: one bids, and the other's page shows the bid
    and its own turn by itself (live.js polls the table's move number). The second player
    signs in by the mailed link and finds the game waiting for them on their home."""
    from pbem.engine import preset
    from pbem.play import start
    from pbem.store.games import create_game
    from pbem.store.states import Store
    from tests.web_helpers import tokens

    store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
    gid = create_game(store, preset("standard"), ["ann@x.test", "bob@x.test", "robot",
                                                  "robot"], first_dealer=3)  # ann bids first
    start(store, gid)
    ann_token, bob_token = tokens(store, gid)[:2]
    ann = chromium.new_page(viewport={"width": 1100, "height": 900})
    bob = chromium.new_context(viewport={"width": 1100, "height": 900}).new_page()
    blocked = csp_watch(ann) + csp_watch(bob)
    for page in (ann, bob):
        page.set_default_timeout(15_000)
    ann.goto(f"{site}/t/{ann_token}")
    bob.goto(f"{site}/t/{bob_token}")
    assert bob.locator(MOVES).count() == 0 and bob.get_by_role("link", name="Refresh").count()
    bob.wait_for_function("document.querySelector('#live .live-note').textContent !== ''")
    shot(bob, tmp_path, "live-1-bob-waits")

    with ann.expect_navigation():
        ann.get_by_role("button", name="Bid 3", exact=True).click()
    bob.wait_for_selector(MOVES)  # no click on bob's page: it loaded the table by itself
    assert re.search(rf"/t/{bob_token}$", bob.url)
    ann_seat = bob.locator(".felt li.seat.at-r")  # ann plays just before bob: on his right
    stats = ann_seat.locator(".stats").inner_text()  # after a hidden ", " for screen readers
    assert re.sub(r"[\s,]+", " ", stats).strip().startswith("bid 3 won 0")
    shot(bob, tmp_path, "live-2-bob-sees-the-bid")

    bob.goto(f"{site}/signin")
    bob.fill('input[name="email"]', "bob@x.test")
    with bob.expect_navigation():
        bob.get_by_role("button", name="Mail me a sign-in link").click()
    assert bob.locator("h1").inner_text() == "Check your mail"
    bob.goto(site + mailed_link(store, "bob@x.test", "/signin/"))
    with bob.expect_navigation():
        bob.get_by_role("button", name="Sign in").click()
    assert bob.url.endswith("/home")
    waiting = bob.locator('section[aria-label="Waiting for you"] li.game')
    assert waiting.count() == 1 and f"Game {gid}" in waiting.inner_text()
    shot(bob, tmp_path, "live-3-bob-home")
    assert blocked == []
    ann.close()
    bob.context.close()


def test_an_order_form_sent_twice_at_once_keeps_its_order_once(chromium, site, tmp_path):
    """The table page's order form posted twice at once from the page (a double click that
    reaches the server twice): both carry the page's own signed `form` field, so the order
    is kept once."""
    from sqlmodel import select

    from pbem.engine import preset
    from pbem.play import start, submit
    from pbem.store.games import create_game
    from pbem.store.models import SeatOrder
    from pbem.store.states import Store
    from tests.web_helpers import tokens

    store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
    gid = create_game(store, preset("standard"), ["a@x.test", "b@x.test", "c@x.test",
                                                  "d@x.test"], first_dealer=3)
    start(store, gid)
    for seat in range(4):  # seat 0 bids first, then leads
        submit(store, gid, seat, {"type": "bid", "bid": 3})
    page = chromium.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{site}/t/{tokens(store, gid)[1]}")
    page.fill('section[aria-label="Your orders"] input[name="order"]', "cover")
    statuses = page.evaluate("""async () => {
        const form = document.querySelector('section[aria-label="Your orders"] form');
        const data = new FormData(form);
        const sent = [0, 1].map(() => fetch(form.action, {method: "POST", body: data}));
        return (await Promise.all(sent)).map(r => r.status);
    }""")
    assert statuses == [200, 200]  # each followed its 303 to the table
    with store.reader() as s:
        kept = s.exec(select(SeatOrder.text).where(SeatOrder.game_id == gid)).all()
    assert kept == ["cover"]
    page.reload()
    assert "cover" in page.locator('section[aria-label="Your orders"]').inner_text()
    page.close()
