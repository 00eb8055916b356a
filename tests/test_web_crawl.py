"""A crawler: every page and JSON endpoint, as each seat and as a stranger, at several
points of a game, and no card shows that the visitor may not see.

What a visitor may see is worked out here from the engine's state, not from the view the
pages use: the cards played to this hand's tricks (the trick in progress and the finished
ones), and once the hand is over the whole deal (hands and the cut-throat "out" card); a
seat also its own hand (once looked at) and the cards it passed and received. Every card
a page shows, in any form ("QH" in a form value or JSON, "Q♥" or "10♥" in text, "Big
Joker", or inside a signed move link), must be in that set. GETs change nothing."""

import json
import re
from html.parser import HTMLParser

import pytest
from sqlmodel import select

from pbem.engine import Rules, legal, pretty
from pbem.signing import Signer
from pbem.store.models import Move, Seat
from tests.test_web_bounds import check_headers
from tests.web_helpers import (
    BASE,
    counts,
    drive,
    game_state,
    humans_game,
    make_app,
    sign_in,
)

SYMBOL = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
CODE = re.compile(r"(?:10|[2-9TJQKA])[SHDC]|BJ|LJ")
PRETTY = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♠♥♦♣])|(Big|Little) Joker")


def _code(text: str) -> str:
    return "T" + text[2] if text.startswith("10") else text


class Cards(HTMLParser):
    """Cards on an HTML page: pretty text anywhere, codes that are a whole attribute value
    or a whole word of text (so no hex digest or word like "as" is taken for one), and the
    cards inside signed move links."""

    def __init__(self, keys):
        super().__init__()
        self.keys, self.found = keys, []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            value = value or ""
            self._pretty(value, f"<{tag} {name}>")
            if CODE.fullmatch(value):
                self.found.append((_code(value), f"<{tag} {name}={value!r}>"))
            if name in ("href", "action") and "/m/" in value:
                data = Signer(self.keys).loads(value.split("/m/")[1].split("?")[0])
                card = data["a"].get("card")
                for c in [card] if card else data["a"].get("cards", []):
                    self.found.append((c, f"move link {data['a']}"))

    def handle_data(self, data):
        self._pretty(data, data.strip()[:60])
        for word in re.findall(r"[0-9A-Za-z]+", data):
            if CODE.fullmatch(word):
                self.found.append((_code(word), f"text {word!r}"))

    def _pretty(self, text, where):
        for m in PRETTY.finditer(text):
            if m.group(3):
                self.found.append(("BJ" if m.group(3) == "Big" else "LJ", where))
            else:
                rank = "T" if m.group(1) == "10" else m.group(1)
                self.found.append((rank + SYMBOL[m.group(2)], where))


def html_cards(text: str, keys) -> list[tuple[str, str]]:
    p = Cards(keys)
    p.feed(text)
    return p.found


def json_cards(obj, where="") -> list[tuple[str, str]]:
    """Every string in the JSON that is a card (the rules' option values are not cards)."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k != "rules":
                out += json_cards(v, f"{where}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += json_cards(v, f"{where}[{i}]")
    elif isinstance(obj, str):
        if CODE.fullmatch(obj):
            out.append((_code(obj), where))
        else:
            out += [(c, where) for c, _ in html_cards(f"<p>{obj}</p>", [])]
    return out


def may_see(st, seat: int | None) -> set[str]:
    ok = {c for _, c in st.trick} | {c for cards, _ in st.tricks for _, c in cards}
    if st.hand_over():
        d = st.last_deal
        ok |= {c for h in d["hands"] for c in h} | set(d["out"])
        ok |= {c for h in d.get("discards") or [] for c in h}
    if seat is not None and st.looked[seat]:
        ok |= set(st.hands[seat]) | set(st.passed_away[seat]) | set(st.passed_to[seat])
    return ok


class Crawler:
    """GETs only: follows every same-site link and checks each response's cards."""

    def __init__(self, app, store):
        self.app, self.store, self.keys = app, store, app.config["PBEM_KEYS"]
        with store.session() as s:
            self.seat_of = {x.token: (x.game_id, x.seat) for x in s.exec(select(Seat)).all()}
        self.states = {}

    def visitor(self, path: str, me):
        """(game, seat) whose view `path` shows: a token's seat, a pad's stranger, or None
        for pages of no game (the list of games) where no card may show at all."""
        if m := re.match(r"/(?:api/)?[ti]/([a-z0-9]+)", path):
            return self.seat_of[m.group(1)]
        if m := re.match(r"/m/([^/?]+)", path):
            d = Signer(self.keys).loads(m.group(1))
            return d["g"], d["s"]
        if m := re.match(r"/(?:api/)?g/(\d+)", path):
            return int(m.group(1)), None
        return None

    def allowed(self, who) -> set[str]:
        if who is None:
            return set()
        gid, seat = who
        if gid not in self.states:
            self.states[gid] = game_state(self.store, gid)
        return may_see(self.states[gid], seat)

    def crawl(self, start: list[str], me) -> dict[str, set[str]]:
        """Visit from `start` as visitor `me` (a (game, seat) or None); per page, its cards."""
        client = self.app.test_client()  # a browser of its own: no session carried over
        todo, seen, shown = list(start), set(start), {}
        while todo:
            path = todo.pop(0)
            r = client.get(path)
            assert r.status_code in (200, 404), (path, r.status_code)
            check_headers(path, r)
            if r.status_code != 200:
                continue
            if r.mimetype not in ("text/html", "application/json"):
                shown[path] = set()  # the organiser's export (its own test reads the zip)
                continue
            who = self.visitor(path, me)
            if who is not None and who[1] is not None:
                assert me is not None and who == me, f"{me} reached {path}, {who}'s page"
            if r.is_json:
                found = json_cards(r.get_json())
            else:
                found = html_cards(r.text, self.keys)
                for link in re.findall(r'href="([^"]+)"', r.text):
                    link = link.removeprefix(BASE)
                    if link.startswith("/") and link not in seen:
                        seen.add(link)
                        todo.append(link)
            ok = self.allowed(who)
            if m := re.match(r"/t/[a-z0-9]+/deal/(\d+)$", path):  # a finished hand's deal
                ok = ok | revealed_cards(self.store, who[0], int(m.group(1)))
            bad = [(c, where) for c, where in found if c not in ok]
            assert not bad, f"{path} as {me} shows cards it may not: {bad[:5]}"
            shown[path] = {c for c, _ in found}
        return shown


def revealed_cards(store, gid, seq) -> set[str]:
    """The cards of the deal at `seq`, public only once its salt was revealed."""
    st = game_state(store, gid)
    assert seq in st.reveals, f"the deal at {seq} is shown before its hand is over"
    with store.session() as s:
        ev = s.exec(select(Move.payload).where(Move.game_id == gid, Move.seq == seq)).one()
    return {c for h in ev["hands"] for c in h} | set(ev.get("out", []))


def _tokens(store, gid):
    with store.session() as s:
        return [x.token for x in s.exec(select(Seat).where(Seat.game_id == gid)
                                        .order_by(Seat.seat)).all()]


def _rules(name, **options):
    return Rules.from_dict({"preset": name, **{k: str(v) for k, v in options.items()}})


SCENARIOS = {
    # name: (rules, stop condition for drive)
    "bidding": (_rules("standard"), lambda st: True),
    "trick in progress": (_rules("standard"),
                          lambda st: len(st.tricks) >= 3 and len(st.trick) == 2),
    "next hand, after passing": (_rules("standard", pass_to_partner=2),
                                 lambda st: st.hand_no == 1 and st.phase == "bid"),
    "game over": (_rules("standard", max_hands=1), lambda st: False),
    "cutthroat trick": (_rules("cutthroat-3"), lambda st: len(st.tricks) >= 2 and st.trick),
    "cutthroat over": (_rules("cutthroat-3", max_hands=1), lambda st: False),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_no_card_shows_that_the_visitor_may_not_see(name, store, tmp_path, monkeypatch):
    app = make_app(store, tmp_path, monkeypatch)
    rules, stop = SCENARIOS[name]
    gid = humans_game(store, rules, first_dealer=1)
    other = humans_game(store, _rules("standard"))  # another game on the list, mid-bidding
    st = drive(store, gid, stop)
    if name == "trick in progress":
        assert st.trick and st.phase == "play"
    if "over" in name:
        assert st.phase == "over" and st.last_deal
    if name == "next hand, after passing":
        assert st.history and any(st.passed_to) and st.phase == "bid"
    before = counts(store)
    crawler = Crawler(app, store)
    toks = _tokens(store, gid)

    stranger = crawler.crawl(["/", f"/g/{gid}", "/api/games", f"/api/g/{gid}",
                              f"/g/{gid}/created"], None)
    assert f"/g/{other}" in stranger and f"/api/g/{gid}" in stranger
    assert not [p for p in stranger if re.match(r"/(api/)?[tmi]/", p)]  # no key to any seat

    for seat, tok in enumerate(toks):
        shown = crawler.crawl([f"/t/{tok}", f"/api/t/{tok}", f"/i/{tok}"], (gid, seat))
        mine = may_see(st, seat)
        others = {c for h in st.hands for c in h} - mine
        if st.phase != "over":
            assert others, "a test of hidden cards needs some hidden cards"
        # the extractor really finds cards: the seat's own table shows its own hand
        assert set(st.hands[seat]) <= shown[f"/t/{tok}"] and \
            set(st.hands[seat]) <= shown[f"/api/t/{tok}"]
        assert shown[f"/t/{tok}"].isdisjoint(others)
        if st.phase == "over":
            assert may_see(st, None) <= shown[f"/api/t/{tok}"]  # the whole deal, revealed
        for action in legal(st, seat)[:1]:  # a move link's confirm page: hand and table
            link = Signer(app.config["PBEM_KEYS"]).dumps(
                {"g": gid, "s": seat, "a": action, "q": st.seq})
            seen = crawler.crawl([f"/m/{link}"], (gid, seat))[f"/m/{link}"]
            assert set(st.hands[seat]) <= seen and seen.isdisjoint(others)
    public = may_see(st, None)
    if name.startswith("cutthroat"):
        out = set(st.last_deal["out"] if st.phase == "over" else st.out)
        assert len(out) == 1 and (out <= public) == (st.phase == "over")
    assert counts(store) == before, "a GET changed a game"

    for seat, tok in enumerate(toks):  # each player's home, signed in: no card at all
        browser = app.test_client()
        sign_in(browser, store, f"p{seat}@x.test")
        home = browser.get("/home")
        assert home.status_code == 200 and home.headers["Cache-Control"] == "no-store"
        assert html_cards(home.text, crawler.keys) == [], (seat, home.text[-800:])
        links = set(re.findall(r'href="/t/([a-z0-9]+)"', home.text))
        assert tok in links and not links & (set(toks) - {tok})  # no other seat's table


def test_the_checker_sees_a_leak(store, tmp_path, monkeypatch):
    """The crawler's test can fail: a hidden card put on a page, in any form, is caught."""
    app = make_app(store, tmp_path, monkeypatch)
    gid = humans_game(store, _rules("standard"))
    st = game_state(store, gid)
    keys = app.config["PBEM_KEYS"]
    hidden = st.hands[1][0]
    ten = next(c for c in st.hands[1] if c[0] == "T") if any(
        c[0] == "T" for c in st.hands[1]) else None
    page = app.test_client().get(f"/t/{_tokens(store, gid)[0]}").text
    assert {c for c, _ in html_cards(page, keys)} <= may_see(st, 0)
    leaks = [f'<span class="card">{pretty(hidden)}</span>', f'<input value="{hidden}">',
             f"<p>they hold {hidden} and more</p>",
             f'<a href="{BASE}/m/{Signer(keys).dumps({"a": {"type": "play", "card": hidden}})}">',
             "<p>Big Joker</p>"]
    if ten:
        leaks.append(f"<td>{pretty(ten)}</td>")
    for leak in leaks:
        found = {c for c, _ in html_cards(page.replace("</main>", leak + "</main>"), keys)}
        assert not found <= may_see(st, 0), leak
    assert json_cards({"x": [{"card": hidden}]}) == [(hidden, ".x[0].card")]
    assert json_cards(json.loads(json.dumps({"rules": {"top_trumps": ["BJ"]}}))) == []
    # no false alarms from digests, tokens or words
    quiet = "<p>AS 10 as Ace ♠ 2c3d</p><code>a7c0ffee2d5h</code><a href='/t/abc2sqhd'>x</a>"
    assert html_cards(quiet, keys) == [("AS", "text 'AS'")]  # a bare code is a card: precise


def test_league_pages_carry_the_headers_and_no_card(store, tmp_path, monkeypatch):
    """The league pages, crawled from the public list and from the organiser's and the join
    link's pages: every page with its headers, no card on any of them, no GET changes."""
    from pbem.league.manage import OPERATOR
    from pbem.organise import seasons
    from pbem.store.models import League
    from tests.league_helpers import league

    app = make_app(store, tmp_path, monkeypatch)
    lid = league(store, players=4)
    seasons.start_season(store, lid, OPERATOR)
    with store.session() as s:
        lg = s.get(League, lid)
    before = counts(store)
    shown = Crawler(app, store).crawl(["/l", "/api/leagues", f"/api/l/{lid}",
                                       f"/api/l/{lid}/s/1", f"/o/{lg.admin_token}",
                                       f"/j/{lg.join_token}"], None)
    assert {f"/l/{lid}", f"/l/{lid}/s/1", f"/o/{lg.admin_token}",
            f"/o/{lg.admin_token}/export.zip", f"/j/{lg.join_token}"} <= set(shown)
    assert any(p.startswith("/g/") for p in shown)  # the season's game, its public pad
    assert counts(store) == before
