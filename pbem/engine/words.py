"""The move words of German, French, Spanish and Portuguese (issue 32), read as the English
words the parser knows: "biete 4" is "bid 4", "Herz Dame" and "dame de cœur" are "queen of
hearts", "10 de ouros" is "10 of diamonds". English is read first and always wins
(pbem.engine.parse); these tables only read a line English could not.

One table for all four languages, so a Swiss "spiele dame de cœur" reads too: a word that
meant one thing in one language and another in another would be refused, never guessed
(`AMBIGUOUS`; the tables below hold none). Accents and umlauts are optional (cœur, coeur;
König, Konig, Koenig); the reader before us has lower-cased and NFKC-normalised the line.
"""

import re
import unicodedata

from .errors import N_, Refusal

# What a word means, in the English the parser reads: a rank is "#" and its letter, a suit
# "@" and its letter, "" a word that says nothing (an article, "I").
_DE = {
    "bieten": "bid", "biete": "bid", "gebot": "bid", "passe": "pass", "spiele": "play",
    "spielen": "play", "lege": "play", "ich": "", "der": "", "die": "", "den": "",
    "das": "", "bitte": "", "und": "and", "dann": "then", "blind": "blind",
    "blind nil": "blind nil",
    "nil blind": "blind nil", "doppel": "double", "ohne trumpf": "no trump",
    "beanspruche": "claim", "beanspruchen": "claim", "vergeben": "misdeal",
    "ansehen": "look", "behalten": "keep", "behalte": "keep", "abwerfen": "discard",
    "pik": "@S", "herz": "@H", "karo": "@D", "kreuz": "@C", "treff": "@C",
    "as": "#A", "ass": "#A", "könig": "#K", "dame": "#Q", "bube": "#J", "buben": "#J",
    "null": "zero", "eins": "one", "zwei": "two", "drei": "three", "vier": "four",
    "fünf": "five", "sechs": "six", "sieben": "seven", "acht": "eight", "neun": "nine",
    "zehn": "ten", "elf": "eleven", "zwölf": "twelve", "dreizehn": "thirteen",
}
_FR = {
    "annonce": "bid", "annoncer": "bid", "passe": "pass",
    "joue": "play", "jouer": "play", "je": "", "j'": "", "le": "", "la": "", "l'": "",
    "s'il vous plait": "", "s'il te plait": "", "de": "of", "du": "of", "et": "and",
    "puis": "then", "aveugle": "blind",
    "nil aveugle": "blind nil", "a l'aveugle": "blind", "double": "double",
    "sans atout": "no trump", "revendique": "claim", "revendiquer": "claim",
    "maldonne": "misdeal", "regarder": "look", "garder": "keep", "garde": "keep",
    "defausser": "discard", "defausse": "discard",
    "pique": "@S", "piques": "@S", "cœur": "@H", "cœurs": "@H", "carreau": "@D",
    "carreaux": "@D", "trèfle": "@C", "trèfles": "@C",
    "as": "#A", "roi": "#K", "dame": "#Q", "valet": "#J",
    "zéro": "zero", "un": "one", "une": "one", "deux": "two", "trois": "three",
    "quatre": "four", "cinq": "five", "six": "six", "sept": "seven", "huit": "eight",
    "neuf": "nine", "dix": "ten", "onze": "eleven", "douze": "twelve", "treize": "thirteen",
}
_ES = {
    "apuesto": "bid", "apostar": "bid", "apuesta": "bid", "paso": "pass", "juego": "play",
    "jugar": "play", "yo": "", "el": "", "la": "", "por favor": "", "de": "of", "del": "of",
    "y": "and",
    "luego": "then", "después": "then", "a ciegas": "blind", "nil a ciegas": "blind nil",
    "doble": "double", "sin triunfo": "no trump", "reclamo": "claim", "reclamar": "claim",
    "miro": "look", "mirar": "look", "descarto": "discard", "descartar": "discard",
    "picas": "@S", "pica": "@S", "espadas": "@S", "corazones": "@H", "corazón": "@H",
    "copas": "@H", "diamantes": "@D", "diamante": "@D", "oros": "@D", "tréboles": "@C",
    "trébol": "@C", "bastos": "@C",
    "as": "#A", "rey": "#K", "reina": "#Q", "dama": "#Q", "jota": "#J", "sota": "#J",
    "cero": "zero", "uno": "one", "una": "one", "dos": "two", "tres": "three",
    "cuatro": "four", "cinco": "five", "seis": "six", "siete": "seven", "ocho": "eight",
    "nueve": "nine", "diez": "ten", "once": "eleven", "doce": "twelve", "trece": "thirteen",
}
_PT = {
    "aposto": "bid", "apostar": "bid", "aposta": "bid", "passo": "pass", "jogo": "play",
    "jogar": "play", "eu": "", "o": "", "por favor": "", "de": "of", "do": "of", "da": "of",
    "e": "and",
    "depois": "then", "às cegas": "blind", "nil às cegas": "blind nil", "duplo": "double",
    "sem trunfo": "no trump", "reivindico": "claim", "reivindicar": "claim",
    "olhar": "look", "descarto": "discard", "descartar": "discard",
    "espadas": "@S", "copas": "@H", "ouros": "@D", "paus": "@C",
    "ás": "#A", "rei": "#K", "dama": "#Q", "valete": "#J",
    "zero": "zero", "um": "one", "uma": "one", "dois": "two", "duas": "two",
    "três": "three", "quatro": "four", "cinco": "five", "seis": "six", "sete": "seven",
    "oito": "eight", "nove": "nine", "dez": "ten", "onze": "eleven", "doze": "twelve",
    "treze": "thirteen",
}
TABLES = {"de": _DE, "fr": _FR, "es": _ES, "pt": _PT}
_RANKS = {"#A": "ace", "#K": "king", "#Q": "queen", "#J": "jack"}
_SUITS = {"@S": "spades", "@H": "hearts", "@D": "diamonds", "@C": "clubs"}
# what names a rank besides "#" words: digits and number words from two to ten
_NUMBER_RANKS = {str(n): str(n) for n in range(2, 11)} | {
    w: str(n) for n, w in enumerate("two three four five six seven eight nine ten".split(), 2)}
_PUNCT = ",;:"  # kept, as the parser reads them ("bid: 4", "3C, 4D")
_END = "!?."  # dropped
MAX_WORDS = 40  # a move is a few words; a longer line is no move to translate
MAX_CHARS = 400


def fold(word: str) -> str:
    """A word without its accents: "cœur" is "coeur", "König" "konig", "às" "as"."""
    word = word.replace("œ", "oe").replace("æ", "ae").replace("ß", "ss").replace("’", "'")
    return "".join(c for c in unicodedata.normalize("NFD", word)
                   if not unicodedata.combining(c))


def _spellings(word: str) -> set[str]:
    """The ways a word is written: as is, without accents, and umlauts as "oe"."""
    umlauts = word.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")
    return {fold(word), fold(umlauts)}


def merge(tables: dict[str, dict[str, str]]) -> tuple[dict[str, str], dict[str, set[str]]]:
    """One table of every language's words by their spellings, and the spellings that mean
    different things in different languages (each with its languages)."""
    meaning: dict[str, str] = {}
    langs: dict[str, set[str]] = {}
    clash: set[str] = set()
    for lang, table in tables.items():
        for phrase, means in table.items():
            for key in _spellings(phrase):
                if meaning.setdefault(key, means) != means:
                    clash.add(key)
                langs.setdefault(key, set()).add(lang)
    return meaning, {key: langs[key] for key in clash}


WORDS, AMBIGUOUS = merge(TABLES)
_LONGEST = max(len(k.replace("'", "' ").split()) for k in WORDS)  # "s'il vous plait": 4
# German's suits, which start a compound ("Herzdame")
_SUIT_PREFIXES = sorted(w for s in ("pik", "herz", "karo", "kreuz", "treff")
                        for w in _spellings(s))
_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")  # "Herz-Dame", "nil-aveugle"


def english(text: str) -> str | None:
    """The line in the parser's English, or None if no word of it is in the tables;
    ValueError for a word the tables read two ways."""
    if len(text) > MAX_CHARS:
        return None
    tokens = _tokens(text)
    if len(tokens) > MAX_WORDS:
        return None
    means, known = _meanings(tokens)
    if not known:
        return None
    out = [w for w in _cards(means) if w]
    while out and out[0] in _PUNCT:  # "bitte, ...": the comma after a word dropped
        out.pop(0)
    return _blind_first(" ".join(out))


def _tokens(text: str) -> list[str]:
    """The line's words, accents folded: "j'annonce" is two ("j'", "annonce"), a comma
    after a word its own; a card as "Q♥" or "10h" stays whole."""
    out: list[str] = []
    for word in _HYPHEN.sub(" ", fold(text.lower())).split():
        tail: list[str] = []
        while len(word) > 1 and word[-1] in _PUNCT + _END:
            if word[-1] in _PUNCT:
                tail.insert(0, word[-1])
            word = word[:-1]
        head, apostrophe, rest = word.partition("'")
        if apostrophe and rest and head.isalpha():
            out += [head + "'", rest]
        else:
            out += _compound(word)
        out += tail
    return out


def _compound(word: str) -> list[str]:
    """German writes suit and rank as one word: "Herzdame", "Pikass", "Kreuz10"."""
    for suit in _SUIT_PREFIXES:
        rest = word[len(suit):]
        if word.startswith(suit) and (_is_rank(WORDS.get(rest, "")) or rest in _NUMBER_RANKS):
            return [suit, rest]
    return [word]


def _meanings(tokens: list[str]) -> tuple[list[str], bool]:
    """Each word or phrase's meaning (a word no table has stays as it is), longest phrase
    first; and whether any word was a table's."""
    out: list[str] = []
    known = False
    i = 0
    while i < len(tokens):
        for n in range(min(_LONGEST, len(tokens) - i), 0, -1):
            phrase = " ".join(tokens[i:i + n]).replace("' ", "'")
            if phrase in AMBIGUOUS:
                raise Refusal(N_("%(phrase)s means different things in %(langs)s: write it "
                                 "in English"), phrase=repr(phrase),
                              langs=", ".join(sorted(AMBIGUOUS[phrase])))
            means = WORDS.get(phrase)
            said = [w for w in out if w and w not in _PUNCT]
            if means == "one" and (not said or said[-1] not in ("bid", "blind")):
                means = None  # "un", "una", "ein" alone are an article or a name (Una)
            if means is not None:
                out.append(means)
                known, i = True, i + n
                break
        else:
            out.append(tokens[i])
            i += 1
    return out, known


def _cards(means: list[str]) -> list[str]:
    """A rank and a suit, in either order, as the card's code: "@H #Q" (Herz Dame), "#Q
    of @H" (dame de cœur), "#Q @H" are all "QH"; so a list ("passe Kreuz 3 Karo 4 Herz
    9") is the English "pass 3C 4D 9H". A suit alone is its English name ("in Kreuz")."""
    out: list[str] = []
    i = 0
    while i < len(means):
        w, nxt = means[i], means[i + 1:i + 3]
        if w in _SUITS and nxt and _is_rank(nxt[0]):
            out.append(_code(nxt[0], w))
            i += 2
        elif _is_rank(w) and nxt and nxt[0] in _SUITS:
            out.append(_code(w, nxt[0]))
            i += 2
        elif _is_rank(w) and nxt[:1] == ["of"] and nxt[1:] and nxt[1] in _SUITS:
            out.append(_code(w, nxt[1]))
            i += 3
        else:
            out.append(_SUITS.get(w) or _RANKS.get(w, w))
            i += 1
    return out


def _is_rank(w: str) -> bool:
    return w in _RANKS or w in _NUMBER_RANKS


def _code(rank: str, suit: str) -> str:
    """"#Q", "@H": "QH"; "four", "@S": "4S"; "10", "@D": "10D"."""
    return (rank[1] if rank in _RANKS else _NUMBER_RANKS[rank]) + suit[1]


_AFTER = re.compile(r"^(?:bid )?(\S+) blind$")


def _blind_first(line: str) -> str:
    """"annonce 7 à l'aveugle", "Nil blind": English puts blind first (blind 7)."""
    m = _AFTER.match(line)
    return f"bid blind {m.group(1)}" if m else line
