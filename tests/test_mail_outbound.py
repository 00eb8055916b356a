"""The outbound checks, over every kind of mail the system sends (issue 13).

The system is made to send each kind through its own code: turn mails, news of a trick,
the end of a game, answers to a seat's mail (done, refused, status, help, no command, a
forged sender), answers at the account address, hand-overs, reminders, timeouts, a carer's
links, extra time, a dropped order, the digest, the league's mails (organiser, entry,
partner, join link, bye, season over), and the web's confirmation link for a new game and
its invitation.
Each is delivered into a Maildir as the outbox sends it (DKIM-signed), and the file is
read back: it parses under `email.policy.default` without a defect; every line of the text
part is at most 78 columns (a link longer than that stands alone on its line); the HTML
part has no fixed width over 360 px; a game's mail is threaded under the game's root and
has the game's subject, the same in all its mails. The headers another part adds (List-Id,
List-Unsubscribe, DKIM-Signature) are checked for their form when present.
"""

import mailbox
import os
import re
import subprocess
from datetime import UTC, datetime, timedelta
from email import policy
from email.parser import BytesParser
from email.utils import make_msgid

import pytest
import time_machine
from browser_helpers import launch
from click.testing import CliRunner
from league_helpers import league
from mail_helpers import ANN, account, running, state
from sqlmodel import select
from web_helpers import BASE, confirmed, csrf

from pbem import clock, digest, vacation
from pbem.cli import main
from pbem.compose import game_subject, thread_root
from pbem.config import load
from pbem.engine import choose, preset, view
from pbem.league.manage import request_join
from pbem.organise import seasons
from pbem.play import hand_over, start, submit
from pbem.store.games import create_game
from pbem.store.models import Game, Outbox, Player, Seat
from pbem.store.outbox import drain, key_name, maildir_delivery
from pbem.store.unsubscribe import is_news
from pbem.store.wrap import WIDTH, wrap
from pbem.web.app import create_app

T0 = datetime(2026, 11, 23, 12, tzinfo=UTC)  # the league helpers' today, noon
H = timedelta(hours=1)
BOB, CY = "bob@example.org", "cy@example.org"
# names as long as people give them: the table's columns must still fit
NAMES = {ANN: "Annabelle Fitzgerald-Montgomery", BOB: "Bartholomew Okonkwo-Vandersloot"}
FAST = {"move_hours": 6, "remind_hours": [2], "on_timeout": "robot"}
ONE_HAND = preset("standard").with_options(max_hands=1)
# what each kind's outbox key starts with
KINDS = {"turn", "news", "over", "reply", "handover", "remind", "timeout", "care", "extra",
         "digest", "league", "entry", "pbem.join", "bye", "season-over", "pbem.new-game",
         "invite", "order"}
SPAMASSASSIN = "/usr/bin/spamassassin"
LONE_LINK = re.compile(r"^\s*(https?://|mailto:)\S+$")
TAG = re.compile(r"</?(p|body|span|strong|a|table|td|br)\b")
WIDE = re.compile(r"(?:min-)?width\s*(?::|=)\s*[\"']?\s*(\d+)\s*(px)?", re.I)


def line_faults(text: str) -> list[str]:
    return [x for x in text.splitlines() if len(x) > WIDTH and not LONE_LINK.match(x)]


def html_faults(html: str) -> list[str]:
    return [m.group(0) for m in WIDE.finditer(html) if int(m.group(1)) > 360]


def header_faults(msg) -> list[str]:
    """The form of the headers another part adds, where present (RFC 2369, 2919, 8058, 6376).
    RFC 8058's one-click link must be https: over http (a dev's) there is no Post header."""
    out = []
    unsub = msg.get("List-Unsubscribe")
    if unsub is not None and not re.fullmatch(r"\s*<[a-z]+:[^<>\s]+>(\s*,\s*<[a-z]+:[^<>\s]+>)*\s*",
                                              str(unsub)):
        out.append(f"List-Unsubscribe: {unsub}")
    post = msg.get("List-Unsubscribe-Post")
    if post is not None and (str(post) != "List-Unsubscribe=One-Click"
                             or not re.search(r"<https://", str(unsub or ""))):
        out.append(f"List-Unsubscribe-Post: {post} with {unsub}")
    list_id = msg.get("List-Id")
    if list_id is not None and not re.fullmatch(r"[^<>]*<[^<>@\s]+\.[^<>@\s]+>", str(list_id)):
        out.append(f"List-Id: {list_id}")
    dkim = msg.get("DKIM-Signature")
    if dkim is not None:
        tags = dict(t.strip().split("=", 1) for t in "".join(str(dkim).split()).split(";")
                    if "=" in t)
        if tags.get("v") != "1" or not {"a", "b", "bh", "d", "s", "h"} <= set(tags) \
                or "from" not in tags["h"].lower().split(":"):
            out.append(f"DKIM-Signature: {dkim}")
    return out


def faults(raw: bytes, game_id: int | None, domain: str) -> list[str]:
    """Everything wrong with one delivered mail, as its reader's program would meet it."""
    out = [f"a line of {len(x)} octets" for x in raw.splitlines() if len(x) > 998]
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    for part in msg.walk():
        out += [f"defect {d!r} in {part.get_content_type()}" for d in part.defects]
    for name, value in msg.items():
        out += [f"defect {d!r} in {name}" for d in getattr(value, "defects", ())]
    for name in ("From", "To", "Subject", "Date", "Message-ID"):
        if not msg.get(name):
            out.append(f"no {name}")
    plain = msg.get_body(("plain",))
    if plain is None:
        out.append("no text part")
    else:
        out += [f"{len(x)} columns: {x}" for x in line_faults(plain.get_content())]
    html = msg.get_body(("html",))
    if html is not None:
        out += [f"HTML wider than 360 px: {x}" for x in html_faults(html.get_content())]
    out += header_faults(msg)
    if game_id is not None and thread_root(game_id, domain) not in str(msg["References"] or ""):
        out.append("not threaded under its game")
    if game_id is not None and msg["Subject"] != game_subject(game_id):
        out.append(f"a subject not the game's: {msg['Subject']}")
    return out


def test_the_checks_can_fail():
    assert line_faults("x" * 79) and not line_faults("  https://example.org/" + "x" * 90)
    assert line_faults("see https://example.org/" + "x" * 90)
    assert html_faults('<table width="600">') and html_faults("<div style='min-width: 400px'>")
    assert not html_faults('<td style="width: 50%">') and not html_faults("width: 360px")
    bad = (b"From: a@b.example\r\nTo: c@d.example\r\nSubject: x\r\nDate: nonsense\r\n"
           b"Message-ID: <1@b.example>\r\nList-Unsubscribe: mailto:x@b.example\r\n"
           b"DKIM-Signature: v=1; a=rsa-sha256; d=b.example; s=pbem; h=to:subject\r\n\r\n"
           + b"y" * 80 + b"\r\n")
    found = faults(bad, 7, "b.example")
    assert any("Date" in f for f in found), found
    assert any("80 columns" in f for f in found) and "not threaded under its game" in found
    assert "a subject not the game's: x" in found
    assert any(f.startswith("List-Unsubscribe") for f in found)
    assert any(f.startswith("DKIM-Signature") for f in found)  # no b=, bh=, nor From signed


def test_wrap_breaks_long_lines_at_spaces_and_keeps_a_link_whole():
    link = "https://pbem.example/c/" + "x" * 90
    text = "  " + "word " * 30 + "\nShort.\nYour table: " + link + "\n"
    lines = wrap(text).split("\n")
    assert lines[0].startswith("  word") and lines[1].startswith("    word")  # indented on
    assert all(len(x) <= WIDTH for x in lines if x != "  " + link)
    assert "Short." in lines and "  " + link in lines and "Your table:" in lines
    assert " ".join(wrap(text).split()) == " ".join(text.split())  # no word lost


def name_players(store) -> None:
    with store.session() as s:
        for p in s.exec(select(Player).where(Player.email.in_(list(NAMES)))).all():
            p.name = NAMES[p.email]
            s.add(p)
        s.commit()


def play_on(store, gid: int, until) -> None:
    """Every seat moves through the door (as its mail or link would) until `until()`."""
    for _ in range(400):
        st = state(store, gid)
        if until(st):
            return
        seat = st.to_act()[0]
        submit(store, gid, seat, choose(view(st, seat), seed=st.seq, rules=st.rules),
               expect_seq=st.seq, source="web")
    raise AssertionError("the game did not get there")


def _news_for(store, address) -> bool:
    with store.session() as s:
        return s.exec(select(Outbox.id).where(Outbox.to_addr == address,
                                              Outbox.dedupe_key.startswith("news:"))).first()


def _order_to_drop(st) -> str:
    """An order of ann's that is never kept: when her longest suit is led to her (she holds
    it then) it names a card of another suit; if that never happens, the hand ends first."""
    suits = {}
    for card in st.hands[0]:
        suits.setdefault(card[-1], []).append(card)
    longest = max(suits, key=lambda x: len(suits[x]))
    other = next(c for c in st.hands[0] if c[-1] != longest)
    names = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    return f"if {names[longest]} are led play {other}"


def answer(env, gid: int, body: str, frm: str = ANN, to: str | None = None) -> None:
    msg = env.mail(to or env.address(gid), body, frm=frm, subject="Re: your turn",
                   mid=make_msgid(domain="example.org"))
    assert env.send(msg)[0] == 250


@pytest.fixture
def sent(store, monkeypatch, tmp_path):
    """Make the system send every kind of mail; the Outbox rows, once delivered."""
    with running(store, monkeypatch, tmp_path) as env, \
            time_machine.travel(T0, tick=False) as t:
        monkeypatch.delenv("PBEM_DKIM_KEY", raising=False)
        monkeypatch.setenv("PBEM_BASE_URL", BASE)  # the web helpers find links by it
        assert CliRunner().invoke(main, ["dkim", "keygen"]).exit_code == 0  # signed, as sent
        # a game on the clock: bob bids first, misses his move, the robot bids for him
        gid = create_game(store, ONE_HAND, [ANN, BOB, "robot", "robot"], first_dealer=0,
                          time_control=FAST)
        name_players(store)
        start(store, gid)
        t.shift(4 * H)
        clock.tick(store)  # a reminder to bob
        t.shift(2 * H)
        clock.tick(store)  # his time is up: the robot bids, and both are told
        assert state(store, gid).to_act() == [0]
        vacation.extra_time(store, gid, 24, by=1)  # bob gives ann a day more
        answer(env, gid, "status")
        answer(env, gid, "help")
        answer(env, gid, "Hello there")  # no command
        answer(env, gid, "bid 3\nplay KH")  # done, then refused
        answer(env, gid, _order_to_drop(state(store, gid)))  # dropped: illegal, or too late
        answer(env, gid, "bid 4", frm="mallory@example.org")  # forged: ann is warned
        answer(env, gid, "games", to=account(env, ANN))  # the account address
        answer(env, gid, "notify digest", to=account(env, ANN))
        answer(env, gid, "notify every trick", frm=BOB, to=account(env, BOB))
        answer(env, gid, "vacation 2", to=f"pbem@{env.domain}")  # plain pbem@: a link
        play_on(store, gid, lambda st: _news_for(store, BOB))  # a trick bob did not win
        hand_over(store, gid, 1, CY)
        play_on(store, gid, lambda st: st.phase == "over")
        digest.send_digests(store, T0.date() + timedelta(days=1))
        # a game that waits when time is up: its creator gets the carer's links
        waits = create_game(store, ONE_HAND, [ANN, "robot", "robot", "robot"], first_dealer=3,
                            time_control=dict(FAST, on_timeout="wait"))
        with store.session() as s:
            game = s.get(Game, waits)
            game.created_by = s.exec(select(Player.id).where(Player.email == BOB)).one()
            s.add(game)
            s.commit()
        start(store, waits)
        t.shift(7 * H)
        clock.tick(store)
        # a league of five: one sits out each round; its one round ends the season
        lg = league(store, players=5, rounds=1)
        request_join(store, lg, "late@league.test", name="Late Comer")
        seasons.tick(store, T0 + timedelta(days=7))
        with store.session() as s:
            games = s.exec(select(Seat.game_id).join(Player).where(
                Player.email.like("%@league.test"))).all()
        for g in sorted(set(games)):
            play_on(store, g, lambda st: st.phase == "over")
        seasons.tick(store, T0 + timedelta(days=8))
        # a game made on the web: its creator confirms by a mailed link, the other is invited
        client = create_app(load(), store, testing=True).test_client()
        form = {"csrf": csrf(client), "you": ANN, "preset": "standard", "public": "on",
                "seat0": ANN, "seat1": "dora@example.org", "seat2": "robot", "seat3": "robot"}
        assert confirmed(client, store, "/new", form, ANN).status_code == 303
        # ann's turn mails wait ten minutes: two games waiting for her go out as one mail
        answer(env, gid, "merge 10", to=account(env, ANN))
        start(store, create_game(store, ONE_HAND, [ANN, "robot", "robot", "robot"],
                                 first_dealer=3))
        box = tmp_path / "out"
        while drain(store, deliver=maildir_delivery(box, env.domain), now=T0 + 30 * H):
            pass
        with store.session() as s:
            rows = list(s.exec(select(Outbox).order_by(Outbox.id)).all())  # as written
        yield env.domain, rows, mailbox.Maildir(str(box), create=False)


def test_every_kind_of_mail_passes_the_outbound_checks(sent):
    domain, rows, box = sent
    kinds = {row.dedupe_key.split(":")[0] for row in rows}
    assert KINDS <= kinds, " ".join(sorted(kinds))
    own = {key_name(r.dedupe_key): r for r in rows if r.last_error is None}
    # every row was delivered in a mail of its own, or settled (merged into another's mail,
    # or a turn mail the game had passed by: pbem.store.pacing) and says so
    assert all(r.sent_at and (r.last_error is None or r.last_error.startswith("settled: "))
               for r in rows)
    merged = [k for k in box.keys() if k not in own]
    carriers = [k for k in own if k not in box]  # a merged mail is its first row's
    assert len(merged) == len(carriers) == 1  # ann's two games
    own = {k: r for k, r in own.items() if k not in carriers}
    assert all(b"DKIM-Signature:" in box.get_bytes(k) for k in box.keys())
    wrong = {}
    for name, row in own.items():
        found = faults(box.get_bytes(name), row.game_id, domain)
        if found:
            wrong.setdefault(row.dedupe_key.split(":")[0], (row.subject, found))
    for name in merged:
        found = faults(box.get_bytes(name), None, domain)
        if found:
            wrong["merged"] = (name, found)
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())


def test_game_mails_and_answers_to_a_seats_mail_have_both_parts(sent):
    domain, rows, box = sent
    answers = [r for r in rows if r.dedupe_key.startswith("reply:play+")
               and r.headers["In-Reply-To"] != thread_root(r.game_id, domain)]
    assert len(answers) == 5  # status, help, no command, done and refused, an order
    for row in rows:
        if row.last_error is not None or key_name(row.dedupe_key) not in box:
            continue  # settled, or the first of a merged mail's rows (pbem.store.pacing)
        if row.dedupe_key.split(":")[0] in {"turn", "news", "over"} or row in answers:
            msg = BytesParser(policy=policy.default).parsebytes(
                box.get_bytes(key_name(row.dedupe_key)))
            assert msg.get_body(("html",)) is not None, row.subject
    names = {key_name(r.dedupe_key) for r in rows}
    for merged in [k for k in box.keys() if k not in names]:  # several games in one mail
        msg = BytesParser(policy=policy.default).parsebytes(box.get_bytes(merged))
        assert msg.get_body(("html",)) is not None, msg["Subject"]


@pytest.fixture(scope="module")
def phone():
    """Debian's headless Chromium as a 360 px wide phone (never `playwright install`)."""
    with launch() as browser:
        yield browser.new_page(viewport={"width": 360, "height": 740})


def test_html_mails_fit_a_phone_and_show_red_suits_red(sent, phone):
    """Laid out by a real browser 360 px wide, no HTML mail is wider than the screen (the
    longest of each kind, with long names); hearts and diamonds are red, spades black."""
    _, rows, box = sent
    longest = {}
    for row in rows:
        kind = row.dedupe_key.split(":")[0]
        if row.body_html and len(row.body_html) > len(longest.get(kind, "")):
            longest[kind] = row.body_html
    names = {key_name(r.dedupe_key) for r in rows}
    for name in [k for k in box.keys() if k not in names]:  # several games' in one mail
        msg = BytesParser(policy=policy.default).parsebytes(box.get_bytes(name))
        longest["merged"] = msg.get_body(("html",)).get_content()
    assert {"turn", "news", "over", "reply", "merged"} <= set(longest)
    for kind, html in longest.items():
        phone.set_content(html)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, (kind, width)
        assert not TAG.search(phone.inner_text("body")), kind  # no markup shown as text
    turn = next(r.body_html for r in rows if r.dedupe_key.startswith("turn:")
                and "Last trick:" in r.body_html)
    phone.set_content(turn)
    shown = phone.inner_text("body")
    assert shown.startswith("Game 1: ") and "your turn to" in shown.split("\n")[0].lower()
    assert "(move " not in shown.split("\n")[0] and not TAG.search(shown)
    assert "Last trick:" in shown
    cards = phone.evaluate("""() => [...document.querySelectorAll('span[style*=nowrap]')]
        .filter(s => /^(10|[2-9JQKA])[♠♥♦♣]$/.test(s.textContent))
        .map(s => [s.textContent.slice(-1), getComputedStyle(s).color])""")
    red = "rgb(179, 38, 30)"
    suits = {suit for suit, _ in cards}
    assert suits & set("♥♦") and suits & set("♠♣"), cards  # both colours to compare
    assert all((colour == red) == (suit in "♥♦") for suit, colour in cards), cards


def test_news_carries_the_list_headers_and_no_other_mail_does(sent):
    """A game's or a league's news (and the answer to a seat's mail) has List-Id and the
    one-click List-Unsubscribe (its Post header: the site is http here); a sign-in link,
    a confirmation, an invitation, an answer at the account address has neither."""
    _, rows, box = sent
    seen: dict[bool, set[str]] = {True: set(), False: set()}
    for row in rows:
        name = key_name(row.dedupe_key)
        if row.last_error is not None or name not in box:
            continue  # settled, or merged into another mail
        msg = BytesParser(policy=policy.default).parsebytes(box.get_bytes(name))
        news = is_news(row)
        kind = row.dedupe_key.split(":")[0]
        has = {h for h in ("List-Id", "List-Unsubscribe") if msg[h] is not None}
        assert has == ({"List-Id", "List-Unsubscribe"} if news else set()), (kind, has)
        assert msg["List-Unsubscribe-Post"] is None  # http: RFC 8058 is https only
        seen[news].add(kind)
    assert {"turn", "news", "over", "digest", "handover", "remind", "timeout", "extra",
            "bye", "season-over", "reply"} <= seen[True], seen
    assert {"pbem.join", "pbem.new-game", "invite", "entry", "league", "reply",
            "plain"} <= seen[False], seen


def spam_scores(raws: list[bytes], home) -> dict[str, tuple[float, str]]:
    """SpamAssassin's (score, rules hit) of each mail by its Message-ID, its local rules
    only (no network), all in one run over an mbox: the program takes seconds to start,
    not to score. (It writes the mails back in an order of its own.)"""
    (home / "all.mbox").unlink(missing_ok=True)
    box = mailbox.mbox(str(home / "all.mbox"))
    for raw in raws:
        box.add(raw)
    box.flush()
    run = subprocess.run(
        [SPAMASSASSIN, "--local", "--mbox", "--cf=use_bayes 0", "--cf=bayes_auto_learn 0",
         str(home / "all.mbox")], capture_output=True, timeout=600, check=True,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    found = {}
    for msg in mailbox.mbox(_written(home / "scored.mbox", run.stdout)):
        status = " ".join(str(msg["X-Spam-Status"]).split())
        score = re.search(r"score=(-?[\d.]+)", status)
        tests = re.search(r"tests=(\S*)", status)
        assert score and tests, status
        found[" ".join(str(msg["Message-ID"]).split())] = (float(score.group(1)), tests.group(1))
    assert len(found) == len(raws)
    return found


def _written(path, data: bytes):
    path.write_bytes(data)
    return str(path)


SPAM = (b"From: Winner <win@b.example>\r\nTo: c@d.example\r\nSubject: FREE MONEY!!! Viagra, "
        b"CASH NOW\r\nMessage-ID: <spam.1@b.example>\r\n\r\n"
        b"Click here to claim your FREE prize. 100% guaranteed.\r\n")


@pytest.mark.skipif(not os.path.exists(SPAMASSASSIN),
                    reason="Debian's spamassassin is not installed (apt-get install spamassassin)")
def test_no_kind_of_mail_looks_like_spam_to_spamassassin(sent, tmp_path):
    """The longest mail of each kind scores at most 1.0 with SpamAssassin's local rules.
    One run over all of them, and a spammer's mail that must score more (the check can
    fail): 21 mails took 12 to 17 s on a loaded machine, every mail sent (58) 29 s."""
    _, rows, box = sent
    kinds = {key_name(r.dedupe_key): r.dedupe_key.split(":")[0] for r in rows}
    longest: dict[str, bytes] = {}
    for name in box.keys():
        raw, kind = box.get_bytes(name), kinds.get(name, "merged")
        if len(raw) > len(longest.get(kind, b"")):
            longest[kind] = raw
    assert len(longest) >= 20, sorted(longest)
    scores = spam_scores([*longest.values(), SPAM], tmp_path)
    assert scores.pop("<spam.1@b.example>")[0] > 1.0
    ids = {str(BytesParser(policy=policy.default).parsebytes(raw)["Message-ID"]): kind
           for kind, raw in longest.items()}
    found = {ids[mid]: score for mid, score in scores.items()}
    assert set(found) == set(longest)
    assert not {k: v for k, v in found.items() if v[0] > 1.0}, found
