"""Moves, orders and command names in German, French, Spanish and Portuguese (issue 32;
pbem.engine.words, pbem.mail.commands.aliases): real phrasings, the collisions refused
rather than misread, and English read as before."""

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from pbem.engine import parse_action, words
from pbem.engine.cards import RANK_NAMES, SUIT_NAMES, all_cards
from pbem.engine.orders import read as read_orders
from pbem.engine.parse import _parse as english_only
from pbem.mail.commands import aliases
from pbem.mail.commands.registry import EVERY
from pbem.mail.commands.runner import Dispatch
from pbem.mail.quotes import command_lines


def bid(n, **more):
    return {"type": "bid", "bid": n, **more}


def play(card):
    return {"type": "play", "card": card}


def passing(*cards):
    return {"type": "pass", "cards": list(cards)}


GERMAN = [
    ("biete 4", bid(4)), ("Ich biete vier", bid(4)), ("bieten 3", bid(3)),
    ("Gebot: 5", bid(5)), ("gebot zwölf", bid(12)), ("biete zwoelf", bid(12)),
    ("vier", bid(4)), ("dreizehn", bid(13)), ("biete eins", bid(1)), ("Gebot: eins", bid(1)),
    ("Nil", bid("nil")), ("biete Nil", bid("nil")), ("Blind Nil", bid("blind nil")),
    ("Nil blind", bid("blind nil")), ("biete 7 blind", bid(7, blind=True)),
    ("spiele Herz Dame", play("QH")), ("Herz Dame", play("QH")), ("Herzdame", play("QH")),
    ("Herz-Dame", play("QH")), ("Pik As", play("AS")), ("Pik Ass", play("AS")),
    ("pikass", play("AS")), ("lege Kreuz 10", play("TC")), ("Kreuz zehn", play("TC")),
    ("spielen Karo König", play("KD")), ("Karo Konig", play("KD")),
    ("Karo Koenig", play("KD")), ("ich spiele den Herz Buben", play("JH")),
    ("Treff Bube", play("JC")), ("Dame Herz", play("QH")), ("bitte Pik 2", play("2S")),
    ("spiele Q♥", play("QH")), ("Kreuz zwei.", play("2C")),
    ("passe Kreuz drei, Karo vier und Herz neun", passing("3C", "4D", "9H")),
    ("passe Kreuz 3 Karo 4 Herz 9", passing("3C", "4D", "9H")),
    ("passe 3C 4D 9H", passing("3C", "4D", "9H")),
    ("biete 4 ohne Trumpf", bid(4, no_trump=True)),
]
FRENCH = [
    ("annonce 4", bid(4)), ("j'annonce quatre", bid(4)), ("J’annonce 6", bid(6)),
    ("annoncer: 2", bid(2)), ("quatre", bid(4)), ("douze", bid(12)), ("treize", bid(13)),
    ("j'annonce un", bid(1)), ("nil", bid("nil")), ("j'annonce nil", bid("nil")),
    ("nil aveugle", bid("blind nil")), ("annonce 7 à l'aveugle", bid(7, blind=True)),
    ("jouer dame de cœur", play("QH")), ("dame de coeur", play("QH")),
    ("je joue la dame de cœur", play("QH")), ("Dame de Cœur", play("QH")),
    ("as de pique", play("AS")), ("je joue l'as de pique", play("AS")),
    ("joue le roi de carreau", play("KD")), ("valet de trèfle", play("JC")),
    ("valet de trefle", play("JC")), ("dix de cœur", play("TH")),
    ("10 de carreau", play("TD")), ("deux de pique", play("2S")),
    ("s'il vous plaît, je joue la dame de cœur", play("QH")),
    ("passe trois de trèfle, quatre de carreau et neuf de cœur",
     passing("3C", "4D", "9H")),
    ("annonce 5 sans atout", bid(5, no_trump=True)),
]
SPANISH = [
    ("apuesto 4", bid(4)), ("apuesto cuatro", bid(4)), ("apuesta: 3", bid(3)),
    ("apostar 2", bid(2)), ("yo apuesto 5", bid(5)), ("cuatro", bid(4)), ("trece", bid(13)),
    ("apuesto uno", bid(1)), ("nil", bid("nil")), ("apuesto nil", bid("nil")),
    ("nil a ciegas", bid("blind nil")), ("apuesto 6 a ciegas", bid(6, blind=True)),
    ("juego la reina de corazones", play("QH")), ("reina de corazones", play("QH")),
    ("dama de corazones", play("QH")), ("Reina de Corazón", play("QH")),
    ("as de picas", play("AS")), ("jugar el rey de diamantes", play("KD")),
    ("jota de tréboles", play("JC")), ("sota de treboles", play("JC")),
    ("diez de picas", play("TS")), ("juego 10♥", play("TH")),
    ("rey de oros", play("KD")), ("as de espadas", play("AS")), ("dos de bastos", play("2C")),
    ("por favor, juego la reina de corazones.", play("QH")),
    ("paso tres de tréboles, cuatro de diamantes y nueve de corazones",
     passing("3C", "4D", "9H")),
    ("paso 3C 4D 9H", passing("3C", "4D", "9H")),
]
PORTUGUESE = [
    ("aposto 4", bid(4)), ("aposto quatro", bid(4)), ("aposta: 3", bid(3)),
    ("apostar 2", bid(2)), ("eu aposto 5", bid(5)), ("quatro", bid(4)), ("treze", bid(13)),
    ("aposto um", bid(1)), ("nil", bid("nil")), ("aposto nil", bid("nil")),
    ("nil às cegas", bid("blind nil")), ("nil as cegas", bid("blind nil")),
    ("aposto 6 às cegas", bid(6, blind=True)),
    ("jogo a dama de copas", play("QH")), ("dama de copas", play("QH")),
    ("jogo o ás de copas", play("AH")), ("ás de espadas", play("AS")),
    ("as de espadas", play("AS")), ("jogar o rei de ouros", play("KD")),
    ("valete de paus", play("JC")), ("10 de ouros", play("TD")), ("dez de ouros", play("TD")),
    ("dois de paus", play("2C")), ("duas de copas", play("2H")),
    ("passo três de paus, quatro de ouros e nove de copas", passing("3C", "4D", "9H")),
    ("passo tres de paus, quatro de ouros e nove de copas", passing("3C", "4D", "9H")),
]


@pytest.mark.parametrize("text, action", GERMAN)
def test_german(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("text, action", FRENCH)
def test_french(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("text, action", SPANISH)
def test_spanish(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("text, action", PORTUGUESE)
def test_portuguese(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("text, action", [
    ("maldonne", {"type": "misdeal"}), ("vergeben", {"type": "misdeal"}),
    ("revendique", {"type": "claim"}), ("reclamo", {"type": "claim"}),
    ("beanspruche", {"type": "claim"}), ("reivindico", {"type": "claim"}),
    ("ansehen", {"type": "look"}), ("regarder", {"type": "look"}), ("miro", {"type": "look"}),
    ("olhar", {"type": "look"}), ("behalte", {"type": "draw", "keep": True}),
    ("garder", {"type": "draw", "keep": True}), ("descarto", {"type": "draw", "keep": False}),
    ("défausse", {"type": "draw", "keep": False}),
    ("descarto 3C 4D", passing("3C", "4D")),  # D6's discard, as "discard 3C 4D"
])
def test_the_other_move_words(text, action):
    if action is None:  # no move: refused
        with pytest.raises(ValueError):
            parse_action(text)
    else:
        assert parse_action(text) == action


@pytest.mark.parametrize("text, hint", [
    ("biete", "say how many"), ("je joue", "say which card"), ("paso", "say which cards"),
    ("doble nil", "scores as double nil"), ("Doppel Nil", "scores as double nil"),
])
def test_a_bare_verb_gets_the_english_hint(text, hint):
    with pytest.raises(ValueError, match=hint):
        parse_action(text)


@pytest.mark.parametrize("text", [
    "Una", "uno", "un", "ein", "uma",  # an article or a name alone: no bid of 1
    "je joue un as",  # which ace?
    "dame", "Dame Edna", "Reina", "jota",  # a rank with no suit
    "biete viel", "ich spiele nicht Herz Dame", "no juego la reina de corazones",
    "je ne joue pas la dame de cœur", "apuesto 4 o 5", "passe Herz Dame Pik",
    "gioco la donna di cuori",  # Italian: not one of ours
    "juego la reina de corazones y el rey de picas",  # two cards: which?
])
def test_what_is_no_move_is_refused_not_guessed(text):
    with pytest.raises(ValueError):
        parse_action(text)


def test_a_refusal_quotes_the_line_as_written():
    with pytest.raises(ValueError, match="ich spiele nicht Herz Dame"):
        parse_action("ich spiele nicht Herz Dame")


def test_english_reads_first_as_is_the_ace_of_spades():
    """"as" is ace in all four languages, and the ace of spades in English's short form;
    English wins, as it always has ("as" alone names no suit in the others anyway)."""
    assert parse_action("as") == play("AS")
    assert parse_action("As") == play("AS")
    assert parse_action("as de cœur") == play("AH")


def test_no_word_means_two_things_across_the_languages():
    """The merged table holds no word that two languages read differently; if one came in,
    the line would be refused with the languages named."""
    assert words.AMBIGUOUS == {}
    table, clash = words.merge({"xx": {"dame": "#Q"}, "yy": {"dame": "#K", "roi": "#K"}})
    assert clash == {"dame": {"xx", "yy"}} and table["roi"] == "#K"


def test_a_line_with_an_ambiguous_word_is_refused(monkeypatch):
    monkeypatch.setattr(words, "AMBIGUOUS", {"dame": {"xx", "yy"}})
    with pytest.raises(ValueError, match="means different things in xx, yy"):
        parse_action("dame de cœur")


# --- orders: their cards, suits and "then" in any of the languages

@pytest.mark.parametrize("text, orders", [
    ("joue dame de cœur puis roi de cœur",
     [{"kind": "play", "card": "QH"}, {"kind": "play", "card": "KH"}]),
    ("spiele Herz Dame dann Herz König",
     [{"kind": "play", "card": "QH"}, {"kind": "play", "card": "KH"}]),
    ("juego reina de corazones luego rey de corazones",
     [{"kind": "play", "card": "QH"}, {"kind": "play", "card": "KH"}]),
    ("jogo dama de copas depois rei de copas",
     [{"kind": "play", "card": "QH"}, {"kind": "play", "card": "KH"}]),
    ("lead as de picas next", [{"kind": "lead", "card": "AS"}]),
    ("follow low in Kreuz", [{"kind": "low", "suit": "C"}]),
    ("cover in corazones", [{"kind": "cover", "suits": ["H"]}]),
    ("if copas are led play dama de copas", [{"kind": "follow", "suit": "H", "card": "QH"}]),
    ("spiele Herz Dame", None), ("biete 4", None),
])
def test_orders_in_the_languages(text, orders):
    assert read_orders(text) == orders


def test_an_order_with_a_bad_card_keeps_englishs_error():
    with pytest.raises(ValueError, match="not a card: 'xyz'"):
        read_orders("play xyz then KH")


# --- command names

@pytest.mark.parametrize("line, name, args", [
    ("hilfe", "help", ""), ("Aide", "help", ""), ("AYUDA:", "help", ""), ("ajuda", "help", ""),
    ("rückgängig", "undo", ""), ("ruckgangig", "undo", ""), ("rueckgaengig", "undo", ""),
    ("annuler", "undo", ""), ("deshacer", "undo", ""), ("desfazer", "undo", ""),
    ("urlaub 5 days", "vacation", "5 days"), ("vacances off", "vacation", "off"),
    ("sprache de", "lang", "de"), ("idioma pt", "lang", "pt"), ("estado", "status", ""),
    ("état", "status", ""), ("etat", "status", ""), ("partien", "games", ""),
    ("aufgeben", "resign", ""), ("abandonner off", "resign", "off"),
    ("help", "help", ""),  # English stays
])
def test_a_commands_name_in_the_languages(line, name, args):
    command, rest = Dispatch(EVERY).pick(line)
    assert (command.name, rest) == (name, args)


def test_say_in_another_language_is_talk_not_an_order():
    command, line = Dispatch(EVERY).pick("sage spiele Herz Dame dann Herz König")
    assert command.name == "say" and line == "say spiele Herz Dame dann Herz König"


def test_no_alias_is_a_move_word_or_another_commands_name():
    """"spiele" is "I play" (German games are "partien"), "juego" and "jogo" too: a move
    word never names a command, and no alias is a move."""
    names = {c.name for c in EVERY if c.name}
    for alias in aliases.ALIASES:
        assert alias not in words.WORDS, alias
        assert alias not in names, alias
        with pytest.raises(ValueError):
            parse_action(alias)
    for word in ("spiele", "juego", "jogo", "passe", "paso", "passo"):
        assert aliases.name(word) == word  # no command: the move's
        assert Dispatch(EVERY).pick(word)[0].name == ""


# --- properties

@hs.composite
def english_moves(draw) -> tuple[str, dict]:
    """An English move and its meaning, written as players write it."""
    numbers = "zero one two three four five six seven eight nine ten eleven twelve thirteen"
    kind = draw(hs.sampled_from(["bid", "play", "pass"]))
    if kind == "bid":
        n = draw(hs.integers(1, 13))
        word = draw(hs.sampled_from([str(n), numbers.split()[n]]))
        pre = draw(hs.sampled_from(["", "bid ", "I bid ", "bid: "]))
        return pre + word, bid(n)
    cards = draw(hs.lists(hs.sampled_from(all_cards()), min_size=1, max_size=3, unique=True))
    names = [draw(hs.sampled_from(_english_names(c))) for c in cards]
    if kind == "play":
        pre = draw(hs.sampled_from(["", "play ", "I'll play ", "please play "]))
        return pre + names[0], play(cards[0])
    joined = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    return "pass " + joined, passing(*cards)


def _english_names(card: str) -> list[str]:
    rank, suit = card
    short = ("10" if rank == "T" else rank) + suit
    symbol = short[:-1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[suit]
    return [short, short.lower(), symbol, f"{RANK_NAMES[rank]} of {SUIT_NAMES[suit]}"]


@given(english_moves(), hs.sampled_from([str.lower, str.upper, str.title, str]))
def test_english_reads_as_it_always_did(move, case):
    text, action = move
    assert parse_action(case(text)) == action


_ANY_WORD = sorted(words.WORDS) + ["bid", "play", "pass", "nil", "blind", "claim", "qh", "10♥",
                                   "4", "four", "queen", "of", "hearts", "the", "and", ","]


@given(hs.lists(hs.sampled_from(_ANY_WORD), min_size=1, max_size=6))
def test_no_line_english_reads_changes_meaning(tokens):
    """Whatever the mix of English and the other languages' words, a line the English
    parser reads means what it meant; the other languages read only the rest."""
    line = " ".join(tokens)
    try:
        meant = english_only(line)
    except ValueError:
        return
    assert parse_action(line) == meant


# each language's rank and suit words, from its own table (accents as written)
def _named(table: dict, kind: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for word, means in table.items():
        if means[:1] == kind:
            out.setdefault(means[1], []).append(word)
    return out


_RANK_WORDS = {lang: _named(t, "#") for lang, t in words.TABLES.items()}
_SUIT_WORDS = {lang: _named(t, "@") for lang, t in words.TABLES.items()}


@given(hs.sampled_from(sorted(words.TABLES)), hs.sampled_from(all_cards()),
       hs.sampled_from(["suit rank", "rank suit", "rank de suit"]), hs.booleans(), hs.data())
def test_every_card_reads_in_every_language(lang, card, order, folded, data):
    """"Herz Dame", "Dame Herz", "dame de cœur", "reina de corazones", "dama de copas",
    "dix de cœur", "Kreuz 10": any card, by any of its words."""
    rank_word = RANK_NAMES[card[0]]
    ranks = _RANK_WORDS[lang].get(card[0]) or [
        "10" if card[0] == "T" else card[0],
        *[w for w, means in words.TABLES[lang].items() if means == rank_word]]
    rank = data.draw(hs.sampled_from(sorted(ranks)))
    suit = data.draw(hs.sampled_from(sorted(_SUIT_WORDS[lang][card[1]])))
    of = "" if lang == "de" else "de "
    text = {"suit rank": f"{suit} {rank}", "rank suit": f"{rank} {suit}",
            "rank de suit": f"{rank} {of}{suit}"}[order]
    if folded:
        text = words.fold(text)
    assert parse_action(text) == play(card)


@pytest.mark.parametrize("body, lines", [
    ("biete 4\nHilfe", ["biete 4", "Hilfe"]),  # a command's name, not a signature
    ("spiele Karo 4\nHerz Dame", ["spiele Karo 4", "Herz Dame"]),  # a move
    ("biete 4\nUna", ["biete 4"]),  # a name: no bid of one
    ("biete 4\nDame Edna", ["biete 4"]),
])
def test_a_name_at_the_end_is_a_signature_a_word_of_ours_is_not(body, lines):
    assert command_lines(body) == lines
