"""How the pages look and work for a person (issue 18), in Debian's Chromium: every page at
360, 390 and 1280 px without sideways scrolling, controls a thumb can hit, no serious
accessibility fault by axe-core; the table drawn around its felt, the confirm page, the score
pad and its chart. One browser and one site for the module; screenshots go to tests/output/
for a reviewer (not committed)."""

from types import SimpleNamespace

import pytest

from pbem.engine import legal, preset, pretty
from pbem.signing import Signer
from pbem.store.games import create_game
from tests.browser_helpers import OUTPUT, axe_or_skip, launch, mailed_link, serve
from tests.test_web_crawl import _rules, html_cards, may_see
from tests.web_helpers import drive, game_state, humans_game, tokens

# one xdist worker runs this file (scripts/test): one Chromium and one site for the file
pytestmark = pytest.mark.xdist_group("test_browser_look")

WIDTHS = (360, 390, 1280)
PHONE = 400  # at most this wide, a control must be 44 px tall
CONTROLS = ("button, select, textarea, "
            "input:not([type=hidden]):not([type=checkbox]):not([type=radio]), "
            "label:has(> input[type=checkbox]), label:has(> input[type=radio])")
HAND = 'section[aria-label="Your hand"]'


def mid_trick(st) -> bool:
    """Seat 0 to play, with cards of others on the table and a trick or two done."""
    return st.phase == "play" and 0 in st.to_act() and len(st.trick) >= 2 and st.tricks


@pytest.fixture(scope="module")
def chromium():
    with launch() as browser:
        yield browser


@pytest.fixture(scope="module")
def axe():
    return axe_or_skip()


@pytest.fixture(scope="module")
def world(tmp_path_factory, chromium):
    """One site with a game in mid trick, a game with a hand scored, a running league, a
    game waiting for its invitations; the paths of every page the tests look at; and a
    browser's sign-in as p0 (its cookies), for the pages of a signed-in player."""
    from pbem.league.manage import OPERATOR
    from pbem.organise import seasons
    from pbem.store.models import League
    from pbem.store.states import Store
    from tests.league_helpers import league

    var = tmp_path_factory.mktemp("look")
    with serve(var) as (url, app):
        store = Store(f"sqlite:///{var / 'pbem.db'}")
        playing = humans_game(store, preset("standard"))
        drive(store, playing, mid_trick)
        spare = humans_game(store, preset("standard"))  # the keyboard test plays on it
        drive(store, spare, mid_trick, seed=1)
        plain = humans_game(store, preset("standard"))  # played with script turned off
        drive(store, plain, mid_trick, seed=2)
        six = humans_game(store, preset("six-handed"))  # the most seats around the felt
        drive(store, six, mid_trick)
        scored = humans_game(store, preset("standard"))
        drive(store, scored, lambda st: len(st.history) >= 1 and st.phase == "play")
        passing = humans_game(store, _rules("standard", pass_to_partner=2))
        drive(store, passing, lambda st: st.phase == "pass" and 0 in st.to_act())
        over = humans_game(store, _rules("standard", max_hands=1))
        drive(store, over, lambda st: False)
        deal = game_state(store, over).revealed_deal["seq"]
        st = game_state(store, playing)
        link = Signer(app.config["PBEM_KEYS"]).dumps(
            {"g": playing, "s": 0, "a": legal(st, 0)[0], "q": st.seq})
        lid = league(store, players=4)
        seasons.start_season(store, lid, OPERATOR)
        with store.session() as s:
            admin = s.get(League, lid).admin_token
        invited = tokens(store, create_game(store, preset("standard"), [
            "ann@x.test", "bob@x.test", "robot", "robot"]))[1]
        _seeks(store)  # p0's own (a Withdraw button) and another's (Take a seat)
        yield SimpleNamespace(url=url, app=app, store=store, playing=playing, spare=spare,
                              scored=scored, plain=plain,
                              signed_in=sign_in(chromium, url, store), pages={
            "index": "/", "table": f"/t/{tokens(store, playing)[0]}", "confirm": f"/m/{link}",
            "pad": f"/g/{scored}", "table-scored": f"/t/{tokens(store, scored)[0]}",
            "organiser": f"/o/{admin}", "leagues": "/l", "league": f"/l/{lid}",
            "new-game": "/new", "new-league": "/l/new", "sign-in": "/signin",
            "table-passing": f"/t/{tokens(store, passing)[0]}",
            "table-over": f"/t/{tokens(store, over)[0]}",
            "table-six": f"/t/{tokens(store, six)[0]}",
            "deal": f"/t/{tokens(store, over)[0]}/deal/{deal}", "home": "/home",
            "invitation": f"/i/{invited}", "seeks": "/seeks"})


def _seeks(store) -> None:
    from pbem.organise import seeks
    from pbem.store.games import player_for

    with store.session() as s:
        mine, other = (player_for(s, x).id for x in ("p0@x.test", "ann@x.test"))
        s.commit()
    for who in (mine, other):
        seeks.post(store, who, seeks.read_spec({"preset": "standard", "rating_min": "1000",
                                                "rating_max": "2000", "robot_days": "3"}))


def sign_in(chromium, url: str, store) -> dict:
    """p0 signs in as a person does (the form, the mailed link's button): the cookies."""
    context = chromium.new_context()
    page = context.new_page()
    page.goto(url + "/signin")
    page.fill('input[name="email"]', "p0@x.test")
    with page.expect_navigation():
        page.get_by_role("button", name="Mail me a sign-in link").click()
    page.goto(url + mailed_link(store, "p0@x.test", "/signin/"))
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    assert page.url.endswith("/home")
    state = context.storage_state()
    context.close()
    return state


def shot(page, name: str) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{name}.png"), full_page=True)


def open_at(chromium, width: int, cookies: dict | None = None):
    phone = width <= PHONE
    context = chromium.new_context(viewport={"width": width, "height": 800 if phone else 900},
                                   is_mobile=phone, has_touch=phone, storage_state=cookies)
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


def look(chromium, world, width: int, name: str, game: int):
    """The game's state now, and its page `name` open at `width`."""
    page = open_at(chromium, width)
    page.goto(world.url + world.pages[name])
    return game_state(world.store, game), page


def faults(page, axe: str, width: int) -> list[str]:
    """What is wrong with the page as shown: sideways scrolling, small controls on a phone,
    and axe-core's serious and critical findings."""
    out = []
    wide = page.evaluate("document.scrollingElement.scrollWidth")
    if wide > width:
        out.append(f"the page scrolls sideways: {wide} px in {width}")
    if width <= PHONE:
        small = page.locator(CONTROLS).evaluate_all("""es => es.map(e => {
            const r = e.getBoundingClientRect();
            return [r.width && r.height ? r.height : 99, e.outerHTML.slice(0, 90)]; })
            .filter(([h]) => h < 44)""")
        out += [f"a control {h:.0f} px tall: {html}" for h, html in small]
    page.evaluate(axe)  # evaluated by the browser itself: the site's CSP stays as it is
    found = page.evaluate("""() => axe.run(document, {resultTypes: ["violations"]}).then(
        r => r.violations.filter(v => ["serious", "critical"].includes(v.impact)).map(
            v => v.id + ": " + v.help + " at " + v.nodes.slice(0, 3).map(
                n => n.target.join(" ")).join(", ")))""")
    return out + [f"axe: {f}" for f in found]


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_and_passes_the_accessibility_check(chromium, axe, world, width):
    page = open_at(chromium, width, world.signed_in)  # signed in: the header says so
    problems = {}
    for name, path in world.pages.items():
        r = page.goto(world.url + path)
        assert r.status == 200 and page.url == world.url + path, (name, r.status, page.url)
        problems[name] = faults(page, axe, width)
        if "<" in page.title() or not page.title().endswith("Spades by email"):
            problems[name].append(f"the tab's title is {page.title()!r}")
        if width == 390:
            shot(page, f"page-{name}-390")  # every page as a phone shows it
    page.context.close()
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}


def test_the_checks_can_fail(chromium, axe, world):
    """A page made wrong on purpose is caught: sideways scroll, a small button, an image
    with no words, text too faint to read."""
    page = open_at(chromium, 390)
    page.goto(world.url + "/")
    page.evaluate("""() => {
        const m = document.querySelector("main");
        m.insertAdjacentHTML("beforeend", '<div style="width:600px">wide</div>' +
            '<button style="min-height:0;height:20px;padding:0">x</button>' +
            '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">' +
            '<p style="color:#ccc">faint</p>'); }""")
    found = " | ".join(faults(page, axe, 390))
    page.context.close()
    for expected in ("scrolls sideways", "a control 20 px tall", "axe: image-alt",
                     "axe: color-contrast"):
        assert expected in found, (expected, found)


@pytest.mark.parametrize("width", (390, 1280))
def test_the_table_reads_at_a_glance(chromium, world, width):
    st, page = look(chromium, world, width, "table", world.playing)
    seats = page.locator(".felt li.seat")
    assert seats.count() == 4
    box = {p: page.locator(f".felt li.at-{p}").bounding_box() for p in "bltr"}
    assert box["t"]["y"] < box["l"]["y"] < box["b"]["y"]  # the partner across, you below
    assert box["l"]["x"] < box["t"]["x"] < box["r"]["x"]
    assert "(you)" in page.inner_text(".felt .at-b") and "(partner)" in page.inner_text(
        ".felt .at-t")
    for i, place in enumerate("bltr"):  # play goes to the left: seat 1 sits on the left
        text = page.inner_text(f".felt .at-{place}")
        assert text.startswith(f"p{i}") and f"won {st.won[i]}" in text, text
        assert (f"bid {st.bids[i]}," in text), text
    turn = page.locator('.felt li[aria-current="true"]')
    assert turn.count() == 1 and "to play" in turn.inner_text() and "(you)" in turn.inner_text()
    leader = st.trick[0][0]
    assert "leads" in page.inner_text(f".felt .at-{'bltr'[leader]}")
    assert page.locator(".felt .tag", has_text="leads").count() == 1
    for seat, card in st.trick:  # each card in front of whoever played it, and no other
        assert page.locator(f".felt .at-{'bltr'[seat]} .played .card").inner_text() == pretty(
            card)
    assert page.locator(".felt .card").count() == len(st.trick)

    heard = page.locator('section[aria-label="The table"]').aria_snapshot()  # as a screen
    seats_heard = [" ".join(x.split()).replace(" ,", ",")  # reader has it: the seats in
                   for x in heard.split("- listitem:")[1:]]  # play order
    assert [x.split("strong: ")[1].split()[0] for x in seats_heard] == ["p0", "p1", "p2", "p3"]
    assert "(you), bid" in seats_heard[0] and ", to play" in seats_heard[0], heard
    assert f", played {pretty(st.trick[0][1])}" in seats_heard[leader], heard

    plays = [a["card"] for a in legal(st, 0) if a["type"] == "play"]
    buttons = page.locator(f"{HAND} button.card")
    labels = sorted(" ".join(t.split()) for t in buttons.all_inner_texts())
    assert labels == sorted(f"Play {pretty(c)}" for c in plays)
    for b in buttons.evaluate_all("bs => bs.map(b => b.getBoundingClientRect())"):
        assert b["height"] >= 44 and b["width"] >= 44, b
    assert page.locator(f"{HAND} .card.dim").count() == len(st.hands[0]) - len(plays)
    groups = page.locator(f"{HAND} .suit").evaluate_all(
        "gs => gs.map(g => g.getAttribute('aria-label'))")
    assert groups == [n for n in ("Spades", "Hearts", "Clubs", "Diamonds")
                      if any(c[1] == n[0] for c in st.hands[0])]
    colours = page.locator(f"{HAND} .card").evaluate_all(
        "cs => cs.map(c => [c.innerText, getComputedStyle(c).color])")
    for text, colour in colours:
        red = text[-1] in "♥♦"
        assert (colour in ("rgb(179, 38, 30)", "rgb(148, 32, 26)")) == red, (text, colour)
    shown = {c for c, _ in html_cards(page.content(), world.app.config["PBEM_KEYS"])}
    assert shown <= may_see(st, 0) and set(st.hands[0]) <= shown  # its own hand, no more
    shot(page, f"table-{width}")
    page.context.close()


def test_a_card_is_played_with_the_keyboard(chromium, world):
    st = game_state(world.store, world.spare)
    page = open_at(chromium, 390)
    page.goto(f"{world.url}/t/{tokens(world.store, world.spare)[0]}")
    for _ in range(200):
        page.keyboard.press("Tab")
        label = page.evaluate("""() => { const e = document.activeElement;
            return e.matches("section[aria-label='Your hand'] button") ? e.innerText : null }""")
        label = label and " ".join(label.split())
        if label:
            break
    else:
        pytest.fail("Tab never reached a card of the hand")
    style = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert style == "solid"  # the focus shows
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator(".notice").inner_text() == "Done: " + label.replace("Play", "played") \
        + "."
    after = game_state(world.store, world.spare)
    assert after.seq > st.seq and len(after.hands[0]) == len(st.hands[0]) - 1
    page.context.close()


def test_a_card_is_played_without_javascript(chromium, world):
    st = game_state(world.store, world.plain)
    context = chromium.new_context(viewport={"width": 360, "height": 800},
                                   java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{world.url}/t/{tokens(world.store, world.plain)[0]}")
    card = page.locator(f"{HAND} button.card").last
    text = " ".join(card.inner_text().split())
    with page.expect_navigation():
        card.click()
    assert page.locator(".notice").inner_text() == f"Done: {text.replace('Play', 'played')}."
    assert game_state(world.store, world.plain).seq > st.seq
    context.close()


@pytest.mark.parametrize("width", (390, 1280))
def test_the_confirm_page_shows_the_hand_and_the_table(chromium, world, width):
    st, page = look(chromium, world, width, "confirm", world.playing)
    button = page.get_by_role("button")
    assert button.count() == 1 and button.inner_text().startswith("Confirm: Play ")
    chosen = page.locator(f"{HAND} .card.chosen")  # the card it plays stands out
    assert chosen.count() == 1 and button.inner_text().endswith(
        " ".join(chosen.inner_text().split()[-1:]))
    assert page.locator(f"{HAND} .card").count() == len(st.hands[0])
    assert page.locator(".felt li.seat").count() == 4
    b, hand = button.bounding_box(), page.locator(HAND).bounding_box()
    if width > PHONE:
        assert b["x"] > hand["x"] + hand["width"] - 1  # beside the hand and the table
    else:
        assert b["y"] + b["height"] <= hand["y"]  # above them, first on the screen
    shot(page, f"confirm-{width}")
    page.context.close()


@pytest.mark.parametrize("width", (360, 390, 1280))
def test_the_score_pad_and_its_chart(chromium, world, width):
    st, page = look(chromium, world, width, "pad", world.scored)
    shown = page.locator("table:visible")
    if width <= PHONE:  # one table a side, stacked, each whole on the screen
        assert shown.count() == 2 and page.locator("table.pad-side:visible").count() == 2
    else:
        assert shown.count() == 1 and shown.get_attribute("aria-label") == "Score pad"
    for t in shown.evaluate_all("ts => ts.map(t => t.getBoundingClientRect().right)"):
        assert t <= width
    scores = page.locator("table:visible tbody tr td strong").all_inner_texts()
    assert [int(x) for x in scores] == [s["score"] for s in st.history[0]["sides"]]
    chart = page.locator("svg.chart")
    assert "target 500" in chart.text_content()
    assert chart.locator("line").count() >= 4  # the grid, the zero and the target line
    sizes = chart.locator("text").evaluate_all(
        "ts => ts.map(t => t.getBoundingClientRect().height)")
    assert min(sizes) >= 12, sizes  # readable on a phone
    if width in (390, 1280):
        shot(page, f"pad-{width}")
    page.context.close()
