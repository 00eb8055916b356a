"""The pages in the player's language (issue 32): every word a page shows comes from the web
catalogue (rendered in the pseudo-language, no word is left outside its marks), every
language's catalogue is complete and keeps the placeholders and tags of its English, the
catalogue holds what the code marks, and a request's language is the player's setting, the
visitor's choice, or the browser's."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from sqlmodel import select

from pbem import i18n
from pbem.engine import PRESETS, legal, preset
from pbem.signing import Signer
from pbem.store.models import Entry, League, Player
from tests.pseudo import leftover_words, page_text, pseudo
from tests.test_web_crawl import _rules
from tests.web_helpers import csrf, drive, game_state, humans_game, sign_in, tokens

LOCALE = Path(i18n.__file__).parent / "locale"
ROOT = LOCALE.parent.parent
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]
# what is no language's word: the players' names in these games (p0..p3 are one letter and a
# digit), the rules' preset names (the mail commands' words too), the languages' own names
NOT_WORDS = {w for name in [*PRESETS, *i18n.LANGUAGES.values()]
             for w in re.findall(r"[A-Za-z]{2,}", name)}


def mid_trick(st) -> bool:
    return st.phase == "play" and 0 in st.to_act() and len(st.trick) >= 1 and st.tricks


@pytest.fixture
def pages(store, client, app):
    """A path for every page in the states that matter: a table in bidding, in play and
    over, its deal, the confirm page of a move link and of a stale one, the pads, the home
    of a signed-in player, the forms, and the error pages."""
    bidding = humans_game(store, preset("standard"))
    playing = humans_game(store, preset("standard"))
    drive(store, playing, mid_trick)
    over = humans_game(store, _rules("standard", max_hands=1))
    drive(store, over, lambda st: False)
    st = game_state(store, playing)
    signer = Signer(app.config["PBEM_KEYS"])
    link = signer.dumps({"g": playing, "s": 0, "a": legal(st, 0)[0], "q": st.seq})
    old = game_state(store, bidding)
    first = old.to_act()[0]
    stale = signer.dumps({"g": bidding, "s": first, "a": legal(old, first)[0], "q": old.seq})
    drive(store, bidding, lambda s: s.seq > old.seq)
    deal = game_state(store, over).revealed_deal["seq"]
    sign_in(client, store, "p0@x.test")
    return {
        "index": "/", "new game": "/new", "sign in": "/signin", "home": "/home",
        "table bidding": f"/t/{tokens(store, bidding)[game_state(store, bidding).to_act()[0]]}",
        "table in play": f"/t/{tokens(store, playing)[0]}",
        "table over": f"/t/{tokens(store, over)[0]}",
        "pad in play": f"/g/{playing}", "pad over": f"/g/{over}",
        "deal": f"/t/{tokens(store, over)[0]}/deal/{deal}",
        "resign": f"/t/{tokens(store, playing)[0]}/resign",
        "move link": f"/m/{link}", "stale move link": f"/m/{stale}",
        "broken move link": "/m/not-a-link", "not found": "/t/nosuchtoken",
    }


def test_every_page_shows_only_catalogue_words(client, pages):
    """Rendered in the pseudo-language, no page shows a word outside the marks."""
    left = {}
    for name, path in pages.items():
        with pseudo():
            r = client.get(path, follow_redirects=True)
        assert r.status_code in (200, 400, 404), (name, r.status_code)
        words = leftover_words(page_text(r.text), allowed=NOT_WORDS)
        if words:
            left[name] = words
    assert left == {}, "\n".join(f"{k}: {sorted(set(v))}" for k, v in left.items())


def test_the_pseudo_check_can_fail(client, pages):
    with pseudo():
        text = page_text(client.get(pages["index"]).text)
    assert leftover_words(text + " an untranslated sentence", allowed=NOT_WORDS) == [
        "an", "untranslated", "sentence"]


def catalogue(lang: str | None):
    path = LOCALE / "web.pot" if lang is None else LOCALE / lang / "LC_MESSAGES" / "web.po"
    with path.open("rb") as f:
        return read_po(f, locale=lang)


PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
TAG = re.compile(r"</?([a-z]+)")


def _marks(text: str) -> tuple[list, list]:
    return sorted(PLACEHOLDER.findall(text)), sorted(TAG.findall(text))


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_language_translates_every_web_word_and_keeps_its_placeholders(lang):
    po = {m.id: m for m in catalogue(lang) if m.id}
    missing, broken = [], []
    for m in catalogue(None):
        if not m.id:
            continue
        t = po.get(m.id)
        strings = tuple(t.string) if t and isinstance(t.string, (list, tuple)) \
            else (t.string if t else "",)
        if t is None or t.fuzzy or not all(strings):
            missing.append(m.id)
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        if any(_marks(s) != _marks(ids[-1]) for s in strings):
            broken.append((m.id, t.string))
    assert missing == [] and broken == []


def test_the_catalogue_holds_what_the_code_marks(tmp_path):
    """scripts/catalogues was run after the last marked word: a fresh extraction has the same
    messages as pbem/locale/web.pot."""
    out = tmp_path / "web.pot"
    pybabel = Path(sys.executable).parent / "pybabel"  # Babel's own command, as the script
    subprocess.run([str(pybabel), "--quiet", "extract", "-F", "pbem/locale/web.cfg",
                    "-k", "count:2,3", "-o", str(out), "."], cwd=ROOT, check=True)
    with out.open("rb") as f:
        fresh = {(m.id, m.context) for m in read_po(f) if m.id}
    assert fresh == {(m.id, m.context) for m in catalogue(None) if m.id}


def test_a_pages_language_comes_from_the_browser_with_english_last(client):
    r = client.get("/", headers={"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.5"})
    assert '<html lang="fr">' in r.text and r.headers["Content-Language"] == "fr"
    assert "Accept-Language" in r.headers["Vary"]
    assert "Parties publiques" in r.text
    r = client.get("/", headers={"Accept-Language": "ja, zh;q=0.8"})
    assert '<html lang="en">' in r.text and r.headers["Content-Language"] == "en"
    assert "Public games" in r.text
    r = client.get("/t/nosuchtoken", headers={"Accept-Language": "de"})
    assert r.status_code == 404 and "Nicht gefunden" in r.text  # error pages too


def test_the_language_menu_keeps_a_visitors_choice_and_a_players_setting(client, store):
    token = csrf(client)
    r = client.post("/lang", data={"csrf": token, "lang": "es", "next": "/new"})
    assert r.status_code == 303 and r.headers["Location"] == "/new"
    page = client.get("/new", headers={"Accept-Language": "de"})  # the choice beats the browser
    assert '<html lang="es">' in page.text and "Empezar una partida" in page.text
    # a language not shipped, or a page elsewhere, changes nothing / goes nowhere else
    r = client.post("/lang", data={"csrf": token, "lang": "xx", "next": "/"},
                    follow_redirects=True)
    assert '<html lang="es">' in r.text and 'role="alert"' in r.text
    r = client.post("/lang", data={"csrf": token, "lang": "de", "next": "//evil.test/x"})
    assert r.headers["Location"] == "/"
    assert client.post("/lang", data={"lang": "fr"}).status_code == 400  # no CSRF: refused
    # a signed-in player's choice is their setting: their mails follow it, and it holds in
    # another browser
    humans_game(store, preset("standard"))  # p0@x.test is a player
    player = client.application.test_client()
    sign_in(player, store, "p0@x.test")
    player.post("/lang", data={"csrf": csrf(player), "lang": "pt", "next": "/home"})
    with store.session() as s:
        assert s.exec(select(Player).where(Player.email == "p0@x.test")).one().prefs["lang"] \
            == "pt"
    other = client.application.test_client()
    sign_in(other, store, "p0@x.test")
    r = other.get("/home", headers={"Accept-Language": "fr"})
    assert '<html lang="pt">' in r.text and "As suas partidas" in r.text


# the words a Spades table shows, in each language (docs/translating.md's glossary)
TABLE_WORDS = {
    "en": ("Your hand", "Tricks of this hand", "Bags", "Bid"),
    "de": ("Deine Karten", "Stiche dieser Runde", "Säcke", "Gebot"),
    "fr": ("Votre main", "Plis de cette donne", "Sacs", "Enchère"),
    "es": ("Tu mano", "Bazas de esta mano", "Sacos", "Apuesta"),
    "pt": ("A sua mão", "Vazas desta mão", "Sacos", "Aposta"),
}


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_the_table_page_speaks_each_language(client, store, lang):
    gid = humans_game(store, preset("standard"))
    drive(store, gid, mid_trick)
    r = client.get(f"/t/{tokens(store, gid)[0]}", headers={"Accept-Language": lang})
    assert f'<html lang="{lang}">' in r.text
    for word in TABLE_WORDS[lang]:
        assert word in r.text, (lang, word)
    for other, words in TABLE_WORDS.items():
        if other != lang:
            assert words[0] not in r.text, (lang, other)


# the pages a mailed link opens (its confirm page), from test_web_flow's samples, and the
# league pages a player joins by (a league's own pages: test_the_league_pages_...)
LINK_PAGES = ("/c/<token>", "/new/confirm/<link:token>", "/i/<token>", "/a/<link:token>",
              "/signin/<link:token>", "/forget/<token>", "/u/<token>", "/j/<join_token>",
              "/j/confirm/<token>", "/j/partner/<token>", "/l")


def test_the_pages_a_mailed_link_opens_show_only_catalogue_words(app, store, client):
    from tests.test_web_flow import samples

    cases = samples(app, store, client)
    left = {}
    cases["/l"] = ("/l", {})
    for rule in LINK_PAGES:
        with pseudo():
            r = client.get(cases[rule][0])
        assert r.status_code == 200, (rule, r.status_code)
        # what the player typed and the page repeats: a seat's "robot", a command's "zone",
        # the fixture league's name
        text = page_text(r.text).replace("Test League", " ")
        # (and the names the samples' players gave: a partner's, an entry's)
        words = leftover_words(text, allowed=NOT_WORDS | {"robot", "zone", "Newt", "ann",
                                                            "bob"})
        if words:
            left[rule] = sorted(set(words))
    assert left == {}, left


def test_a_cached_pad_is_kept_per_language(client, store):
    """The score pad is rendered once per game and move (pbem.web.pad_cache): the German
    reader's copy never reaches an English one, and each language has its own ETag."""
    gid = humans_game(store, preset("standard"))
    de = client.get(f"/g/{gid}", headers={"Accept-Language": "de"})
    en = client.get(f"/g/{gid}", headers={"Accept-Language": "en"})
    assert "Punkteblock" in de.text and "Score pad" in en.text and "Punkteblock" not in en.text
    assert de.headers["ETag"] != en.headers["ETag"]
    again = client.get(f"/g/{gid}", headers={"Accept-Language": "de",
                                              "If-None-Match": de.headers["ETag"]})
    assert again.status_code == 304


@pytest.fixture
def league_pages(store, client):
    """A path for every league page in the states that matter: a league taking entries, one
    whose season runs with a finished game ruled a replay, its replay played and rated, and
    round two playing, one whose season is over (standings, a bye, a withdrawn entry,
    ratings); the organiser's pages; the new-league form refused three ways."""
    from pbem.league.manage import OPERATOR, withdraw
    from pbem.league.reports import forget
    from pbem.organise import seasons
    from pbem.organise.adjudicate import deal_replay
    from tests.league_helpers import fixtures, league, play_out, play_season, replay_ruled

    running, ruled = replay_ruled(store)
    play_out(store, deal_replay(store, running, OPERATOR, ruled), seed=2)
    over = league(store, players=5)
    seasons.start_season(store, over, OPERATOR)
    bye = next(f.seats[0] for f in fixtures(store, over) if f.status == "bye")
    with store.reader() as s:
        who = s.get_one(Entry, bye).player_id
    withdraw(store, over, who, bye)
    play_season(store, over)
    fresh = league(store, players=3)
    with store.session() as s:
        keys = {x.id: x.admin_token for x in s.exec(select(League)).all()}
    forget()  # nothing rendered before in English is kept for the pseudo-language
    token = csrf(client)
    base = {"csrf": token, "organiser": "boss@x.test", "name": "Wednesday", "preset": "standard",
            "starts": "2030-01-10", "ends": "2030-06-10", "move_hours": "72",
            "on_timeout": "robot", "stale_hours": "168"}
    refusals = {"new league, a field": dict(base, stale_hours="lots"),
                "new league, the dates": dict(base, ends="2030-01-01"),
                "new league, the bank": dict(base, clock="bank", bank_hours="120",
                                             cap_hours="72")}
    return {"leagues": "/l", "taking entries": f"/l/{fresh}", "running": f"/l/{running}",
            "over": f"/l/{over}/s/1", "new league": "/l/new",
            "organiser, running": f"/o/{keys[running]}", "organiser, over": f"/o/{keys[over]}",
            "organiser, taking entries": f"/o/{keys[fresh]}"}, refusals


def _league_words(html: str) -> list[str]:
    # what a person wrote and the page repeats: the leagues' names, the organiser's reason
    text = page_text(html).replace("Test League", " ").replace("a misdeal went unseen", " ")
    text = text.replace("'lots'", " ")  # what the organiser typed, quoted back
    return leftover_words(text, allowed=NOT_WORDS)


def test_the_league_pages_show_only_catalogue_words(client, league_pages):
    """The league's pages, the organiser's and the new-league form with its refusals (its
    own and those of the checks below the web), in the pseudo-language."""
    paths, refusals = league_pages
    left = {}
    with pseudo():
        for name, path in paths.items():
            r = client.get(path)
            assert r.status_code == 200, (name, r.status_code)
            left[name] = _league_words(r.text)
        for name, form in refusals.items():
            r = client.post("/l/new", data=form, follow_redirects=True)
            assert 'role="alert"' in r.text, name  # refused, and said so
            left[name] = _league_words(r.text)
    shown = {"running": ("ruled:", "replayed as", "Ratings"), "over": ("withdrawn", "won", "Bye")}
    with pseudo():
        for name, words in shown.items():  # the states the fixture means are on the pages
            text = client.get(paths[name]).text
            assert all(w in text for w in words), (name, words)
    assert {k: v for k, v in left.items() if v} == {}


def test_a_kept_season_page_is_kept_per_language(client, store):
    """The season's body is rendered once per results version and kept (pbem.league.
    reports): a German reader and an English one each get their own, every time."""
    from pbem.league.manage import OPERATOR
    from pbem.organise.adjudicate import deal_replay
    from tests.league_helpers import replay_ruled

    lid, gid = replay_ruled(store)
    deal_replay(store, lid, OPERATOR, gid)
    pages = {}
    for _ in range(2):
        for lang in ("de", "en"):
            pages.setdefault(lang, []).append(
                client.get(f"/l/{lid}", headers={"Accept-Language": lang}).text)
    de, en = pages["de"], pages["en"]
    assert de[0] == de[1] and en[0] == en[1]
    assert "Die Tabelle" in de[0] and "Die Tabelle" not in en[0]
    assert "The table" in en[0] and "The table" not in de[0]
    # the ruling, kept by the ledger in English for the JSON, is said again in German
    assert "neu gespielt" in de[0] and "to be replayed" in en[0]
    assert "to be replayed" not in de[0]


def test_the_new_league_form_says_a_refusal_from_below_in_the_readers_language(client):
    """The league's and the time control's checks (pbem.league.manage, pbem.deadlines,
    pbem.seatclock) raise refusals that carry their words (pbem.engine.errors.Refusal): the
    form tells them in the reader's language, the command line's str() in English."""
    from pbem.deadlines import check

    form = {"csrf": csrf(client), "organiser": "boss@x.test", "name": "Mittwoch",
            "preset": "standard", "starts": "2030-01-10", "ends": "2030-01-01",
            "move_hours": "72", "on_timeout": "robot", "stale_hours": "168"}
    de = {"Accept-Language": "de"}
    r = client.post("/l/new", data=form, headers=de, follow_redirects=True)
    assert "die Saison endet (2030-01-01), bevor sie beginnt (2030-01-10)" in r.text
    r = client.post("/l/new", data=dict(form, ends="2030-06-01", clock="bank",
                                        bank_hours="120", cap_hours="72"),
                    headers=de, follow_redirects=True)
    assert "die Obergrenze (72 h) liegt unter dem Startguthaben (120 h)" in r.text
    r = client.post("/l/new", data=dict(form, ends="2030-06-01", stale_hours="x"),
                    headers={"Accept-Language": "fr"}, follow_redirects=True)
    assert "heures avant qu&#39;une table silencieuse soit signalée : un nombre entier" in r.text
    with pytest.raises(ValueError) as refused:
        check({"clock": "bank", "bank_hours": 120, "cap_hours": 72})
    assert str(refused.value) == "the cap (72 h) is below the starting bank (120 h)"
    with pytest.raises(ValueError) as refused:
        check({"move_hours": 0})
    assert str(refused.value) == ("the time for a move is a whole number of hours from 1 to "
                                  "1440, not 0")
    with i18n.language("es"):
        assert i18n.told(refused.value).startswith("el tiempo para una jugada es un número")


def test_the_mails_a_form_asks_for_show_only_catalogue_words(client, store):
    """The confirmation mails of the new-game and new-league forms and the sign-in link,
    in the pseudo-language: every word marked; in German (the page's language, or the
    reader's own choice) German; a refused seat and address in the page's words."""
    from pbem.store.models import Outbox

    game = {"csrf": csrf(client), "you": "a@x.test", "preset": "standard", "seat0": "a@x.test",
            "seat1": "robot", "seat2": "b@x.test", "seat3": "robot"}
    league = {"csrf": csrf(client), "organiser": "boss@x.test", "name": "Mittwoch",
              "preset": "standard", "starts": "2030-01-10", "ends": "2030-06-10",
              "move_hours": "72", "on_timeout": "robot", "stale_hours": "168"}
    with pseudo():
        assert client.post("/new", data=game).status_code == 303
        assert client.post("/l/new", data=league).status_code == 303
        bad = client.post("/new", data=dict(game, seat2="bob", you="a b@x.test"),
                          follow_redirects=True)
    with store.session() as s:  # a player: a sign-in link is mailed to players only
        s.add(Player(email="p9@x.test"))
        s.commit()
    with pseudo():
        client.post("/signin", data={"csrf": csrf(client), "email": "p9@x.test"})
    with store.reader() as s:
        mails = s.exec(select(Outbox).order_by(Outbox.id)).all()
    assert [m.to_addr for m in mails] == ["a@x.test", "boss@x.test", "p9@x.test"]
    for m in mails:
        words = leftover_words(f"{m.subject}\n{m.body_text}", NOT_WORDS | {"robot", "Mittwoch"})
        assert words == [], (m.subject, words)
    assert leftover_words(page_text(bad.text), NOT_WORDS | {"bob"}) == []
    de = {"Accept-Language": "de"}
    client.post("/new", data=dict(game, you="c@x.test", seat0="c@x.test"), headers=de)
    with store.reader() as s:
        m = s.exec(select(Outbox).where(Outbox.to_addr == "c@x.test")).one()
    assert m.subject == "Bestätige dein neues Spades-Spiel" and "Jemand" in m.body_text
    assert m.headers["Content-Language"] == "de"
    with store.session() as s:  # a player who chose French reads French, whatever the page
        p9 = s.exec(select(Player).where(Player.email == "p9@x.test")).one()
        p9.prefs = {"lang": "fr"}
        s.add(p9)
        s.commit()
    client.post("/l/new", data=dict(league, organiser="p9@x.test"), headers=de)
    with store.reader() as s:
        m = s.exec(select(Outbox).where(Outbox.to_addr == "p9@x.test")
                   .order_by(Outbox.id.desc())).first()
    assert m.subject == "Confirmez votre nouvelle ligue : Mittwoch", m.subject
