"""Fewer, better mails (issue 14): a player's `merge`, `quiet` and `cap` settings as the outbox
sender applies them, through the real SMTP handler, the real outbox and its Maildir delivery.
Rows are written at the real time; each drain passes its own `now` after that."""

import re
from datetime import UTC, datetime, time, timedelta
from email import policy
from email.parser import BytesParser
from urllib.parse import urlparse
from zoneinfo import ZoneInfo

import pytest
from league_helpers import TODAY, league
from mail_helpers import ANN, account, game, running, state, text
from sqlmodel import select

from pbem.config import load
from pbem.organise import seasons
from pbem.play import submit
from pbem.signing import Signer, secret_keys
from pbem.store import prefs
from pbem.store.games import player_for
from pbem.store.models import Outbox, Player
from pbem.store.models import now as utcnow
from pbem.store.outbox import drain, maildir_delivery
from pbem.store.pacing import aware, day_start, quiet_end
from pbem.web.app import create_app
from tests.web_helpers import csrf, sign_in

BOB = "bob@example.org"
M = timedelta(minutes=1)


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def waiting(env) -> int:
    """A game with robots whose first move is ann's bid: her turn mail is in the outbox."""
    return game(env.store, first_dealer=3)


def settle(env, **values) -> None:
    with env.store.session() as s:
        pid = s.exec(select(Player.id).where(Player.email == ANN)).one()
    prefs.update(env.store, pid, **values)


def delivered(env, now, **kw) -> list:
    """Drain at `now`; the mails that reached the Maildir in this drain."""
    box = env.maildir / "new"
    before = set(box.iterdir()) if box.exists() else set()
    drain(env.store, maildir_delivery(env.maildir, env.domain), now=now, **kw)
    return [BytesParser(policy=policy.default).parsebytes(p.read_bytes())
            for p in sorted(set(box.iterdir()) - before)]


def row(env, key_start: str) -> Outbox:
    with env.store.session() as s:
        return s.exec(select(Outbox).where(Outbox.dedupe_key.like(key_start + "%"))
                      .order_by(Outbox.id.desc())).first()


def queue(env, to, key, game_id=None) -> None:
    with env.store.session() as s:
        s.add(Outbox(to_addr=to, subject="news", body_text=f"{key}\n", dedupe_key=key,
                     game_id=game_id))
        s.commit()


def test_two_games_waiting_go_in_one_mail_whose_replies_and_links_work_for_each(env):
    one, _ = waiting(env), None  # ann bids first in both
    two, _ = waiting(env), None
    settle(env, merge=30)
    t0 = utcnow()
    assert delivered(env, t0 + 29 * M) == []  # each turn mail waits its 30 minutes
    [mail] = delivered(env, t0 + 31 * M)
    assert str(mail["Subject"]) == f"Spades: your move in games {one} and {two}"
    body = text(mail)
    first, second = env.address(one), env.address(two)
    assert body.count("Reply to this mail with one of:") == 1  # the first game's section
    assert f"Write to {second} with one of:" in body
    assert f"Reply to {first} to move in game {one}." in body
    assert f"Reply to {second} to move in game {two}." in body
    assert str(mail["Reply-To"]) == first and f"A reply to this mail moves in game {one}" in body
    assert "References" not in mail  # threaded under neither game alone
    assert re.match(rf"<turn\.{one}\.0\.", str(mail["Message-ID"]))
    html = mail.get_body(("html",)).get_content()
    assert re.search(rf"write its words to <span[^>]*>{re.escape(second)}</span>", html)
    assert html.count("reply to this mail with its words") == 1
    # every row is settled: one mail went, the other says it went with it
    assert row(env, f"turn:{one}:").last_error is None
    assert row(env, f"turn:{two}:").last_error.startswith("settled: in one mail with")
    assert delivered(env, t0 + 60 * M) == []  # nothing twice
    # a reply to the mail (its Reply-To) moves in the first game, one to the second
    # game's address in the second, and a link of the second game's section works
    env.send(env.mail(first, "bid 4", In_Reply_To=str(mail["Message-ID"])))
    assert state(env.store, one).bids[0] == 4
    links = re.findall(r'href="([^"]*/m/[^"]+)"', html)
    keys = Signer(secret_keys(load()))
    link_two = next(u for u in links if keys.loads(u.rsplit("/", 1)[1])["g"] == two
                    and keys.loads(u.rsplit("/", 1)[1])["a"].get("bid") == 2)
    client = create_app(load(), env.store, testing=True).test_client()
    r = client.post(urlparse(link_two).path, data={"csrf": csrf(client)})
    assert r.status_code == 303, r.text[-400:]
    assert state(env.store, two).bids[0] == 2
    answers = delivered(env, t0 + 61 * M)  # answers to her mail are never held
    assert any(text(m).startswith(f"Game {one}: you bid 4; your turn to lead")
               for m in answers)  # the robots bid after her: she leads


def test_a_turn_mail_whose_seat_moved_while_it_waited_is_not_sent(env):
    gid, _ = waiting(env), None
    settle(env, merge=10)
    t0 = utcnow()
    submit(env.store, gid, 0, {"type": "bid", "bid": 3})  # on the table page, at once
    old = row(env, f"turn:{gid}:0:1")
    assert old is not None and state(env.store, gid).seq > 1
    [mail] = delivered(env, t0 + 11 * M)  # only the newer turn mail: her lead
    seq = state(env.store, gid).seq
    assert re.match(rf"<turn\.{gid}\.0\.{seq}\.", str(mail["Message-ID"]))
    old = row(env, f"turn:{gid}:0:1")
    assert old.sent_at is not None and "moved on" in old.last_error


def test_talk_at_the_table_does_not_stop_a_waiting_turn_mail(env):
    gid = waiting(env)
    settle(env, merge=10)
    t0 = utcnow()
    submit(env.store, gid, 0, {"type": "say", "text": "thinking..."})  # no move: still hers
    turns = [m for m in delivered(env, t0 + 11 * M) if "your turn" in text(m)]
    assert [str(m["Message-ID"])[:len(f"<turn.{gid}.0.1.")] for m in turns] == [
        f"<turn.{gid}.0.1."]


def test_quiet_hours_in_a_far_zone_hold_game_mails_but_not_answers(env):
    one, _ = waiting(env), None
    two, _ = waiting(env), None
    settle(env, zone="Pacific/Auckland", quiet=[22, 7])
    nz = ZoneInfo("Pacific/Auckland")
    night = (utcnow() + timedelta(days=1)).astimezone(nz).replace(
        hour=23, minute=30, second=0, microsecond=0)
    morning = (night + timedelta(hours=8)).replace(hour=7, minute=0)
    env.send(env.mail(account(env, ANN), "games"))  # she writes at night: answered
    [answer] = delivered(env, night)
    assert str(answer["To"]) == ANN and row(env, "reply:").sent_at is not None
    assert row(env, f"turn:{one}:").sent_at is None
    assert aware(row(env, f"turn:{one}:").next_attempt) == morning.astimezone(UTC)
    assert delivered(env, morning - M) == []
    [mail] = delivered(env, morning)  # at 07:00 in Auckland, both games in one mail
    assert str(mail["Subject"]) == f"Spades: your move in games {one} and {two}"


def test_the_cap_counts_mails_a_local_day_drops_news_and_holds_turns(env):
    la = ZoneInfo("America/Los_Angeles")
    first, _ = waiting(env), None
    settle(env, zone="America/Los_Angeles", cap=2)
    t0 = utcnow()
    assert len(delivered(env, t0)) == 1  # the first turn mail: 1 of 2
    queue(env, ANN, f"news:{first}:0:90", first)
    assert len(delivered(env, t0 + M)) == 1  # 2 of 2
    queue(env, ANN, f"news:{first}:0:91", first)
    queue(env, BOB, "news:0:1:1")  # another player's mail is not held behind hers
    [bobs] = delivered(env, t0 + 2 * M)
    assert str(bobs["To"]) == BOB
    dropped = row(env, f"news:{first}:0:91")
    assert dropped.sent_at is not None and "cap" in dropped.last_error
    two, _ = waiting(env), None
    three, _ = waiting(env), None
    assert delivered(env, t0 + 3 * M) == []  # turn mails past the cap wait...
    midnight = (t0.astimezone(la) + timedelta(days=1)).replace(
        hour=0, minute=0, second=0, microsecond=0)
    held = row(env, f"turn:{two}:")
    assert held.sent_at is None  # ...never dropped
    assert delivered(env, midnight - M) == []
    [mail] = delivered(env, midnight)  # the next local day, as one mail
    assert str(mail["Subject"]) == f"Spades: your move in games {two} and {three}"
    queue(env, ANN, f"news:{first}:0:92", first)  # the merged mail counted once: 1 of 2
    assert len(delivered(env, midnight + M)) == 1


def test_a_merged_mail_that_fails_leaves_every_game_waiting_and_goes_later(env):
    one, two = waiting(env), waiting(env)
    settle(env, merge=5)
    t0 = utcnow()

    def refuse(row):
        raise OSError("the relay is away")

    assert drain(env.store, refuse, now=t0 + 6 * M) == 0
    with env.store.session() as s:
        assert not s.exec(select(Outbox).where(Outbox.sent_at.is_not(None))).all()
    [mail] = delivered(env, t0 + 8 * M)  # after the backoff, both again, in one mail
    assert str(mail["Subject"]) == f"Spades: your move in games {one} and {two}"


def test_held_mails_do_not_stall_the_drain_for_anyone_else(env):
    gids = [waiting(env) for _ in range(4)]
    settle(env, merge=60)
    queue(env, BOB, "news:0:1:2")  # written after her four turn mails
    t0 = utcnow()
    assert delivered(env, t0, limit=2) == []  # two of hers move out of the way
    assert delivered(env, t0, limit=2) == []  # the two others
    [bobs] = delivered(env, t0, limit=2)  # his, though hers are older and still wait
    assert str(bobs["To"]) == BOB
    [mail] = delivered(env, t0 + 61 * M, limit=2)  # hers: one mail, all four games
    assert str(mail["Subject"]).endswith(f"{gids[2]} and {gids[3]}")


def test_without_settings_each_mail_goes_at_once(env):
    one, _ = waiting(env), None
    two, _ = waiting(env), None
    mails = delivered(env, utcnow())
    assert sorted(str(m["Subject"]) for m in mails) == [f"Spades game {one}",
                                                        f"Spades game {two}"]


def test_league_turn_mails_wait_a_quarter_hour_unless_the_player_says_otherwise(env):
    league(env.store, players=4, rounds=1)
    seasons.tick(env.store, datetime.combine(TODAY + timedelta(days=7), time(12), UTC))
    with env.store.session() as s:
        [first] = s.exec(select(Outbox).where(Outbox.dedupe_key.like("turn:%"))).all()
        players = s.exec(select(Player.id).where(Player.email.like("%@league.test"))).all()
    gid = first.game_id

    def turns(now) -> list:
        return [m for m in delivered(env, now) if "your turn" in text(m)]

    t0 = utcnow()
    assert turns(t0) == []  # (the league's welcome mails go at once)
    assert aware(row(env, "turn:").next_attempt) > t0 + 14 * M  # held, out of the drain's way
    [mail] = turns(t0 + 15 * M)
    assert str(mail["To"]) == first.to_addr and str(mail["Subject"]) == f"Spades game {gid}"
    for pid in players:
        prefs.update(env.store, pid, merge=0)  # `merge off`: each turn mail at once
    st = state(env.store, gid)
    [seat] = st.to_act()
    submit(env.store, gid, seat, {"type": "bid", "bid": 3})
    [mail] = turns(t0 + 15 * M)
    assert str(mail["To"]) != first.to_addr
    assert re.match(rf"Game {gid}: p\d bid 3; your turn to bid\n", text(mail))


def test_merge_default_by_mail_and_on_the_home_page_keeps_the_league_default(env, client):
    waiting(env)
    settle(env, merge=30)
    env.send(env.mail(account(env, ANN), "merge default"))
    [answer] = [m for m in delivered(env, utcnow()) if "merge:" in text(m)]
    assert "merge: default (15 minutes in a league's games" in text(answer)
    with env.store.session() as s:
        player = s.exec(select(Player).where(Player.email == ANN)).one()
    assert "merge" not in player.prefs
    sign_in(client, env.store, ANN)
    assert 'name="merge" value="default"' in client.get("/home").text
    form = {"notify": "every hand", "auto": "forced", "mail": "on", "zone": "Asia/Tokyo",
            "rest": "none", "quiet": "off", "cap": "off", "merge": "default"}
    r = client.post("/home/settings", data=dict(form, csrf=csrf(client)), follow_redirects=True)
    assert r.history and "saved" in r.text
    with env.store.session() as s:
        saved = s.exec(select(Player).where(Player.email == ANN)).one().prefs
    assert saved["zone"] == "Asia/Tokyo" and "merge" not in saved  # not turned into 0


def test_local_midnights_and_quiet_ends_follow_a_clock_change():
    """Los Angeles leaves summer time on 1 Nov 2026: that local day has 25 hours."""
    la = Player(email="la@example.org", prefs={"zone": "America/Los_Angeles",
                                               "quiet": [22, 7]})
    noon = datetime(2026, 11, 1, 12, tzinfo=UTC)
    assert day_start(la, noon) == datetime(2026, 11, 1, 7, tzinfo=UTC)  # PDT, -7
    assert day_start(la, noon, days=1) == datetime(2026, 11, 2, 8, tzinfo=UTC)  # PST, -8
    night = datetime(2026, 11, 1, 6, tzinfo=UTC)  # 23:00 on 31 Oct, in summer time
    assert quiet_end(la, night) == datetime(2026, 11, 1, 15, tzinfo=UTC)  # 07:00 PST
    assert quiet_end(la, noon) == datetime(2026, 11, 1, 15, tzinfo=UTC)  # 04:00 PST
    assert quiet_end(la, datetime(2026, 11, 1, 20, tzinfo=UTC)) is None  # 12:00 PST


def _speaking(env, lang: str) -> None:
    """ann, made before her games, speaks `lang`."""
    with env.store.session() as s:
        player = player_for(s, ANN)
        player.prefs = {"lang": lang, "merge": 30}
        s.add(player)
        s.commit()


def test_a_merged_mail_speaks_its_players_language_in_every_line(env):
    """Its subject, its opening lines and each game's heading come from the catalogue (the
    pseudo-language leaves no word unmarked), and each section's "reply to this mail" is
    found and rewritten in the language its mail was written in (German here)."""
    from pbem import compose
    from tests.pseudo import leftover_words, page_text, pseudo
    from tests.test_mail_translated import COMMAND_WORDS, NAMES

    compose._SHARED.pairs = []  # no table fragment kept from an English mail before
    _speaking(env, "en")  # (English's names of days and months: the pseudo test allows them)
    with pseudo():
        one, two = waiting(env), waiting(env)
        news = waiting(env)
        queue(env, ANN, f"news:{news}:0:9", news)  # news of a third game, no turn of it
        with env.store.session() as s:  # that game's turn mail is not in this merge
            s.delete(row(env, f"turn:{news}:"))
            s.commit()
        [mail] = delivered(env, utcnow() + 31 * M)
    html = mail.get_body(("html",)).get_content()
    shown = "\n".join([str(mail["Subject"]), text(mail), page_text(html)])
    allowed = NAMES | COMMAND_WORDS | {"news"}  # (the queued news's own text: its key)
    assert leftover_words(shown, allowed) == [], leftover_words(shown, allowed)
    assert f"⟦Game ⟧{two}⟦: your move.⟧" in text(mail) and f"⟦Game ⟧{news}⟦: news.⟧" in shown
    compose._SHARED.pairs = []  # nor a marked one after
    _speaking(env, "de")
    one, two = waiting(env), waiting(env)
    [mail] = delivered(env, utcnow() + 31 * M)
    body, html = text(mail), mail.get_body(("html",)).get_content()
    assert str(mail["Subject"]) == f"Spades: dein Zug in den Spielen {one} und {two}"
    assert '<html lang="de">' in html
    assert f"Spiel {two}: du bist am Zug." in body
    assert f"Schreib an {env.address(two)}" in body and "Antworte auf diese Mail" in body
    assert body.count("Antworte auf diese Mail mit einem von") == 1
    assert html.count("antworte auf diese Mail mit seinen Worten") == 1
