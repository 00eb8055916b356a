"""Mail in the player's language (issue 32): every mail and answer is made in its recipient's
language (prefs' `lang`), says so in Content-Language, and shows no word outside the mail
catalogue (pbem/locale/mail.pot), which de, fr, es and pt translate whole."""

import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from helpers import deal
from mail_helpers import ANN, crafted, running
from sqlmodel import select

from pbem import clock, compose, digest
from pbem.engine import new_game, preset, view
from pbem.engine.cards import pretty
from pbem.i18n import LANGUAGES, LOCALE_DIR, language
from pbem.play import start, submit
from pbem.store import accounts, prefs
from pbem.store.games import create_game, player_for
from pbem.store.models import Deadline, Outbox, Player
from tests.browser_helpers import OUTPUT, launch
from tests.pseudo import leftover_words, page_text, pseudo

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [x for x in LANGUAGES if x != "en"]
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
# what a mail shows that no language translates: the players' names and the command words a
# reply writes (the parser reads them; another part of issue 32 reads each language's own)
NAMES = {"ann", "robot", "standard"}
COMMAND_WORDS = {"bid", "blind", "nil", "play", "pass", "none", "claim", "misdeal", "look",
                 "keep", "discard", "status", "help", "games", "say", "undo", "resign",
                 "auto", "on", "off", "equal", "notify", "every", "hand", "trick", "digest",
                 "orders", "clear", "turns", "daily", "each", "vacation", "days", "export",
                 "forget", "me", "mail", "zone", "rest", "quiet", "cap", "merge", "lang",
                 "moves", "leagues", "join", "leave", "with", "then", "lead", "next", "if",
                 "hearts", "are", "led", "follow", "low", "in", "clubs", "duck", "cover",
                 "sat", "sun", "weekends", "default", "de", "en", "fr", "es", "pt", "Europe",
                 "Paris", "QH", "KH", "AS"}


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


@pytest.fixture
def fresh_fragments():
    """The shared table fragment (pbem.compose.shared) is kept by content and language: a
    test that patches the catalogue must neither find nor leave a fragment of another."""
    compose._SHARED.pairs = []
    yield
    compose._SHARED.pairs = []


def started(store, seats=(ANN, "robot", "robot", "robot")) -> int:
    """A game dealt at random where ann (seat 0) bids first: her turn mail is written."""
    gid = create_game(store, preset("standard"), list(seats), first_dealer=3)
    start(store, gid)
    return gid


def speaking(store, lang: str | None) -> None:
    """ann, made before her game, speaks `lang` (None: never said)."""
    with store.session() as s:
        player = player_for(s, ANN)
        player.prefs = {"lang": lang} if lang else {}
        s.add(player)
        s.commit()


def rows(store, since: int = 0) -> list[Outbox]:
    with store.reader() as s:
        return list(s.exec(select(Outbox).where(Outbox.id > since).order_by(Outbox.id)).all())


def last_id(store) -> int:
    return max([r.id for r in rows(store)], default=0)


def ask(env, gid: int, line: str) -> Outbox:
    """ann mails `line` to her seat; our answer's row."""
    before = last_id(env.store)
    msg = env.mail(env.address(gid), f"{line}\n", mid=f"<ann.{before}@example.org>")
    assert env.send(msg)[0] == 250
    return next(r for r in rows(env.store, before) if r.dedupe_key.startswith("reply:"))


_HEX = re.compile(r"\b[0-9a-f]{16,}\b")  # a deal commitment's hash and salt


def shown(row: Outbox) -> str:
    return _HEX.sub(" ", "\n".join([row.subject, row.body_text, page_text(row.body_html or "")]))


# -- the catalogues ----------------------------------------------------------------------


def catalogue(path: Path, lang: str | None = None):
    with path.open("rb") as f:
        return read_po(f, locale=lang)


def test_every_mail_string_is_translated_in_every_language_with_its_placeholders():
    template = catalogue(LOCALE_DIR / "mail.pot")
    ids = [m.id for m in template if m.id]
    assert len(ids) > 200  # the turn mail, answers, refusals, reminders, league mails...
    for lang in SHIPPED:
        done = {m.id: m for m in catalogue(LOCALE_DIR / lang / "LC_MESSAGES" / "mail.po", lang)
                if m.id}
        for msgid in ids:
            message = done.get(msgid)
            assert message is not None and not message.fuzzy, (lang, msgid)
            forms = message.string if isinstance(message.string, tuple) else (message.string,)
            wanted = set(_PLACEHOLDER.findall(msgid if isinstance(msgid, str) else msgid[1]))
            for form in forms:
                assert form.strip(), (lang, msgid)
                assert set(_PLACEHOLDER.findall(form)) == wanted, (lang, msgid, form)


def test_the_mail_catalogue_holds_what_the_code_marks(tmp_path):
    """scripts/catalogues mail was run after the last marked word: a fresh extraction has
    the same messages as pbem/locale/mail.pot (a refusal's template missing from it was
    never marked)."""
    out = tmp_path / "mail.pot"
    pybabel = Path(sys.executable).parent / "pybabel"  # Babel's own command, as the script
    subprocess.run([str(pybabel), "--quiet", "extract", "-F", "pbem/locale/mail.cfg",
                    "-k", "count:2,3", "-o", str(out), "."], cwd=ROOT, check=True)
    fresh = {(m.id, m.context) for m in catalogue(out) if m.id}
    assert fresh == {(m.id, m.context) for m in catalogue(LOCALE_DIR / "mail.pot") if m.id}


# -- every kind of mail, in the pseudo-language ------------------------------------------


def test_every_kind_of_mail_shows_only_words_of_the_catalogue(env, fresh_fragments):
    """Turn mails (bidding, play), the answers (done, each refusal, help, status, games,
    a setting), news of a trick, a reminder, a timeout, a digest, the account footer: under
    the pseudo-language every word a player reads comes from the catalogue."""
    store = env.store
    with pseudo():
        gid, hands = crafted(store, first_dealer=3)
        with store.session() as s:
            ann = s.exec(select(Player).where(Player.email == ANN)).one()
        prefs.update(store, ann.id, notify="every trick", turns="each")
        submit(store, gid, 0, {"type": "bid", "bid": 3})  # her turn mail asks for a card now
        for line in (*LINES, "play " + hands[1][0]):
            ask(env, gid, line)
        ask(env, gid, "orders")
        ask(env, gid, "play " + next(c for c in hands[0] if not c.endswith("S")))
        timed = create_game(store, preset("standard"), [ANN, "robot", "robot", "robot"],
                            first_dealer=3, time_control={"move_hours": 6, "remind_hours": [2]})
        start(store, timed)
        due = _due(store, timed)
        clock.tick(store, due - timedelta(hours=1))  # the reminder
        clock.tick(store, due + timedelta(minutes=1))  # the timeout: the robot moves for her
        prefs.update(store, ann.id, notify="digest")
        digest.send_digests(store)
        with store.reader() as s:
            footer = accounts.footers(s, {ANN: ann}, env.domain)[ANN]
        mails = rows(store)
    kinds = {r.dedupe_key.split(":")[0] for r in mails}
    assert {"turn", "reply", "remind", "digest"} <= kinds, kinds
    # the timeout's notice goes in the turn mail the robots' replies leave her (one mail),
    # whose words are checked below with the rest
    assert "timeout" not in kinds and any(
        r.dedupe_key.startswith(f"turn:{timed}:0:") for r in mails), kinds
    # and the player's own lines, which an answer quotes
    allowed = (NAMES | COMMAND_WORDS | {c for h in hands for c in h}
               | set(re.findall(r"[A-Za-z]+", " ".join(LINES))))
    left = {row.dedupe_key: leftover_words(shown(row), allowed) for row in mails}
    assert not any(left.values()), "\n".join(f"{k}: {v}" for k, v in left.items() if v)
    assert leftover_words(footer.text, allowed) == []


LINES = ("help", "status", "games", "notify every trick", "thanks for the game", "bid 14",
         "xyzzy", "auto on", "undo now", "zone Mars/Olympus", "undo", "claim", "resign off",
         "pass 2C 3C 4C", "say", "lead AS next", "vacation 99 days")


def _due(store, gid: int):
    with store.reader() as s:
        return s.exec(select(Deadline.due).where(Deadline.game_id == gid,
                                                 Deadline.kind == "timeout",
                                                 Deadline.state == "pending")).one()


# -- each shipped language --------------------------------------------------------------

# words each language's turn mail must hold (the glossary: docs/translating.md)
WORDS = {"de": ["Gebot", "Stiche", "Spielstand", "Deine Karten"],
         "fr": ["Enchère", "Plis", "Score", "Votre main"],
         "es": ["Apuesta", "Bazas", "Puntuación", "Tu mano"],
         "pt": ["Aposta", "Vazas", "Pontuação", "A sua mão"]}
ANSWER = {"de": "Erledigt", "fr": "Fait", "es": "Hecho", "pt": "Feito"}
REFUSED = {"de": "ist hier nicht erlaubt", "fr": "n'est pas permise ici",
           "es": "no está permitida aquí", "pt": "não é permitida aqui"}


@pytest.mark.parametrize("lang", SHIPPED)
def test_a_turn_mail_and_its_answers_come_in_the_players_language(env, lang, fresh_fragments):
    speaking(env.store, lang)
    gid = started(env.store)
    turn = next(r for r in rows(env.store) if r.dedupe_key.startswith("turn:"))
    assert turn.headers["Content-Language"] == lang
    for word in WORDS[lang]:
        assert word in shown(turn), (lang, word)
    assert "Your hand" not in turn.body_text and "Score:" not in turn.body_text
    refused = ask(env, gid, "bid 14")
    assert REFUSED[lang] in refused.body_text, refused.body_text
    answer = ask(env, gid, "bid 3")
    assert answer.headers["Content-Language"] == lang
    assert ANSWER[lang] in answer.body_text, answer.body_text
    snap(lang, turn, answer)


def test_english_is_the_language_of_a_player_who_never_chose(env):
    speaking(env.store, None)
    started(env.store)
    turn = next(r for r in rows(env.store) if r.dedupe_key.startswith("turn:"))
    assert turn.headers["Content-Language"] == "en"
    assert "Your hand:" in turn.body_text and "It is your turn." in turn.body_text


def test_lang_de_answers_in_german_and_the_next_mail_is_german(env):
    speaking(env.store, None)
    gid = started(env.store)
    answer = ask(env, gid, "lang de")
    assert answer.headers["Content-Language"] == "de"
    assert "Deine Karten:" in answer.body_text
    before = last_id(env.store)
    submit(env.store, gid, 0, {"type": "bid", "bid": 3})  # on the web, say
    turn = next(r for r in rows(env.store, before) if r.dedupe_key.startswith("turn:"))
    assert turn.headers["Content-Language"] == "de"
    assert "Du bist am Zug" in turn.body_text and "Stich" in turn.body_text


def test_the_shared_table_fragment_is_kept_for_each_language(fresh_fragments):
    """The table's public part is made once a move for all its mails (pbem.compose.shared):
    a French seat never gets the German one of the same table."""
    st = new_game(preset("standard"), 3)
    deal(st)
    v = compose.context(view(st, 0), 1, ["ann", "bob", "cy", "di"], st.table)
    with language("de"):
        german = compose.shared("txt", v, ["ann", "bob", "cy", "di"])
    with language("fr"):
        french = compose.shared("txt", v, ["ann", "bob", "cy", "di"])
    assert "Gebote und Stiche" in german and "Spielstand" in german
    assert "Enchères et plis" in french and "Gebote" not in french


def test_two_players_of_one_move_each_read_their_own_language(env, fresh_fragments):
    speaking(env.store, "de")
    with env.store.session() as s:
        bob = player_for(s, "bob@example.org")
        bob.prefs = {"lang": "fr"}
        s.add(bob)
        s.commit()
    gid = started(env.store, [ANN, "robot", "bob@example.org", "robot"])
    submit(env.store, gid, 0, {"type": "bid", "bid": 3})  # robot 1 bids, then bob's turn
    mails = {r.to_addr: r for r in rows(env.store) if r.dedupe_key.startswith("turn:")}
    assert mails[ANN].headers["Content-Language"] == "de"
    assert "Gebote und Stiche" in mails[ANN].body_text
    assert mails["bob@example.org"].headers["Content-Language"] == "fr"
    assert "Enchères et plis" in mails["bob@example.org"].body_text


def test_the_engines_refusal_is_told_in_the_players_language():
    from pbem.engine import IllegalAction
    from pbem.i18n import told

    e = IllegalAction("you may not play %(card)s now: %(reason)s", card="QH",
                      reason=_reason("you must follow suit"))
    assert str(e) == "you may not play QH now: you must follow suit"
    with language("de"):
        assert told(e) == "du darfst QH jetzt nicht spielen: du musst Farbe bedienen"


def _reason(words: str):
    from pbem.engine.errors import Words
    return Words(words)


# -- how they look ----------------------------------------------------------------------


def snap(lang: str, turn: Outbox, answer: Outbox) -> None:
    """The HTML turn mail and answer at 390 px, into tests/output/ for a reviewer; nothing
    wider than the phone."""
    OUTPUT.mkdir(exist_ok=True)
    with launch() as browser:
        page = browser.new_page(viewport={"width": 390, "height": 800})
        for name, row in (("turn", turn), ("answer", answer)):
            page.set_content(row.body_html)
            assert page.evaluate("document.documentElement.lang") == lang
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (lang, name, width)
            page.screenshot(path=str(OUTPUT / f"mail-{name}-{lang}.png"), full_page=True)


# -- the gaps: refusals made below the mail, more kinds of mail ---------------------------

# the words of a bid the refusals quote as it is written (command words: not translated)
CALL_WORDS = COMMAND_WORDS | {"little", "big", "mo", "bemo", "aces", "no", "trump", "nt",
                              "bids", "four", "of", "queen", "xyzzy"}


def _refusals() -> list[Exception]:
    """A refusal of each kind the variants, the parser and the orders give."""
    from pbem.engine import IllegalAction, parse_action
    from pbem.engine.orders import bid_order
    from tests.helpers import bid, do, fixed_hands

    def refused(rules, seat, action, bids=()) -> Exception:
        st = new_game(rules, 0)
        deal(st, fixed_hands(rules))
        for s, value in bids:
            if isinstance(value, dict):
                do(st, s, {"type": "bid", **value})
            else:
                bid(st, s, value)
        with pytest.raises(IllegalAction) as e:
            do(st, seat, action)
        return e.value

    std = preset("standard")
    mo, nt, aces = (std.with_options(mo="mo"), std.with_options(no_trump=True),
                    std.with_options(aces_bonus=100))
    raising = std.with_options(raise_round=True)
    out = [refused(std, 1, {"type": "bid", "bid": 4, "mo": "little mo"}),
           refused(mo, 1, {"type": "bid", "bid": 4, "mo": "little bemo"}),
           refused(mo, 1, {"type": "bid", "bid": "nil", "mo": "little mo"}),
           refused(mo, 2, {"type": "bid", "bid": 4, "mo": "big mo"},
                   [(1, {"bid": 4, "mo": "little mo"})]),
           refused(std, 1, {"type": "bid", "bid": 4, "aces": True}),
           refused(aces, 1, {"type": "bid", "bid": "nil", "aces": True}),
           refused(std, 1, {"type": "bid", "bid": 4, "no_trump": True}),
           refused(nt, 1, {"type": "bid", "bid": "nil", "no_trump": True}),
           refused(raising, 1, {"type": "bid", "bid": 3, "mo": "little mo"},
                   [(1, 3), (2, 3), (3, 3), (0, 3)]),
           refused(std, 1, "AS")]  # a card in the bidding: the phase is named
    for line in ("bid", "play", "pass", "bid 4 mo", "bid nil big mo", "bid blind 4 aces",
                 "bid nil no trump"):
        with pytest.raises(ValueError) as e:
            parse_action(line)
        out.append(e.value)
    for call in (lambda: bid_order({"type": "play"}),
                 lambda: bid_order({"type": "bid", "bid": 4, "blind": True})):
        with pytest.raises(ValueError) as e:
            call()
        out.append(e.value)
    return out


def test_the_refusals_below_the_mail_are_told_from_the_catalogue_and_stay_english():
    """The variants' bid refusals, the phase they name, the parser's hints and the orders'
    refusals: told in the pseudo-language, every word is the catalogue's; `str()` (logs,
    the command line) is the English."""
    from pbem.i18n import told

    refusals = _refusals()
    with pseudo():
        told_ = [told(e) for e in refusals]
    ids = {m.id for m in catalogue(LOCALE_DIR / "mail.pot") if m.id}
    for e, text in zip(refusals, told_, strict=True):
        assert "⟦" not in str(e) and str(e)
        assert leftover_words(text, CALL_WORDS) == [], (str(e), text)
        assert _templates(e.words) <= ids, str(e)  # marked, so extracted and translated
    assert any("the deal" in str(e) or "bidding" in str(e) for e in refusals)
    with language("de"):
        german = [told(e) for e in refusals]
    assert "dieses Spiel hat keinen Bonus für die vier Asse" in german
    assert not {str(e) for e in refusals} & set(german)  # each one translated


def _templates(words) -> set[str]:
    """A refusal's templates, its values' too (a value may be Words: a phase, a reason)."""
    from pbem.engine.errors import Words

    inner = [_templates(v) for v in words.values.values() if isinstance(v, Words)]
    return {words.template}.union(*inner)


def test_a_list_is_joined_by_the_languages_own_pattern():
    from pbem.i18n import listing

    assert listing([]) == "" and listing(["4"]) == "4"
    assert listing(["bid 4", "played Q♥"]) == "bid 4 and played Q♥"
    assert listing(["1", "2", "3"]) == "1, 2 and 3"
    with language("de"):
        assert listing(["1", "2", "3"]) == "1, 2 und 3"
    with language("fr"):
        assert listing(["1", "2"]) == "1 et 2"
    with pseudo():
        assert leftover_words(listing(["1", "2", "3"])) == []


def test_league_refusals_come_in_the_askers_language():
    from pbem.league.manage import LeagueError, check_forfeit
    from pbem.store.addresses import AddressError, check_address

    with language("fr"), pytest.raises(LeagueError) as e:
        check_forfeit(0)
    assert "un camp perd par forfait" in str(e.value)
    with language("es"), pytest.raises(AddressError) as a:
        check_address("")
    assert str(a.value) == "se necesita una dirección de correo"
    with pytest.raises(LeagueError, match="a side forfeits after 1 to"):
        check_forfeit(0)  # the command line's: English


def test_more_kinds_of_answers_show_only_words_of_the_catalogue(env, fresh_fragments):
    """A note's and a name's answers, a mail of two moves and a failure (its summary joins
    the moves by the catalogue's pattern), a move played for ann by her order, a game's
    status words in `games`."""
    store = env.store
    with pseudo():
        gid, hands = crafted(store, first_dealer=3)
        lead = next(c for c in hands[0] if not c.endswith("S"))
        answers = [ask(env, gid, line) for line in
                   ("note my own words", "name Ann Smith", "name", "note",
                    f"bid 3\nplay {lead}\nbid 14", "games")]
    allowed = (NAMES | CALL_WORDS | {c for h in hands for c in h}
               | {"my", "own", "words", "Ann", "Smith"})
    left = {a.subject: leftover_words(shown(a), allowed) for a in answers}
    assert not any(left.values()), left
    summary = answers[4].body_text.splitlines()[0]  # you bid 3 and played ...; not done
    assert f"⟦bid ⟧3⟦ and ⟧⟦played ⟧{pretty(lead)}" in summary, summary
    assert "%(line)s" not in summary and "⟦not done: ⟧bid 14" in summary


def test_news_of_a_dead_trick_shows_only_words_of_the_catalogue(fresh_fragments):
    from tests.helpers import bid_round, do, fixed_hands

    r = preset("six-handed").with_options(identical="cancel")
    paired = {1: "AH", 2: "AH", 3: "KH", 4: "KH", 5: "QH", 0: "QH"}
    st = new_game(r, 0)
    deal(st, fixed_hands(r, {s: [c] for s, c in paired.items()}))
    bid_round(st)
    for seat in (1, 2, 3, 4, 5, 0):
        do(st, seat, paired[seat])
    names = [f"p{i}" for i in range(6)]
    with pseudo():
        v = compose.context(view(st, 0), 7, names)
        values = {"done": [], "error": None, "v": v, "names": names, "moves": [], "text": "x",
                  "for_you": ["bid 4 (your order)"]}
        parts = [compose.render("reply.txt", **values), compose.render("reply.html", **values)]
    for part in parts:
        assert "⟦(dead: won by no one)⟧" in part
        assert leftover_words(page_text(part) if "<" in part else part,
                              set(names) | {"x", "bid", "your", "order", "six", "handed"}) == []


def test_no_catalogue_holds_an_empty_or_fuzzy_translation():
    """Every .po of every language (web, mail, any other): each message translated in all
    its plural forms, none fuzzy (a fuzzy or empty one is not used: English would show)."""
    files = sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po"))
    assert len(files) >= 2 * len(SHIPPED)
    left = []
    for path in files:
        lang = path.parent.parent.name
        for m in catalogue(path, lang):
            forms = m.string if isinstance(m.string, tuple) else (m.string,)
            if m.id and (m.fuzzy or not all(f.strip() for f in forms)):
                left.append((path.parent.parent.name, path.name, m.id))
    assert left == []


def test_portuguese_says_partida_for_a_game_on_pages_and_in_mails():
    """The glossary's one word for a game (docs/translating.md): partida, in web.po and
    mail.po alike; jogo stays only as play ("em jogo", "fora de jogo") and the verb."""
    noun = re.compile(r"\bjogos?\b", re.I)
    play = re.compile(r"\b(em jogo|fora de jogo|durante o jogo|o jogo das cartas|"
                      r"o jogo de uma mão)\b", re.I)
    left = []
    for name in ("web.po", "mail.po"):
        for m in catalogue(LOCALE_DIR / "pt" / "LC_MESSAGES" / name, "pt"):
            ids = " ".join(m.id) if isinstance(m.id, tuple) else m.id
            if not m.id or not re.search(r"\bgames?\b", _PLACEHOLDER.sub("", ids), re.I):
                continue
            forms = m.string if isinstance(m.string, tuple) else (m.string,)
            if any(noun.search(play.sub("", f)) for f in forms):
                left.append((name, m.id, forms))
    assert left == []
