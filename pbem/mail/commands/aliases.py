"""The mail commands' names in the players' other languages (issue 32): `hilfe`, `aide`,
`ayuda`, `ajuda` are `help`. The English name stays the command's own (the registry's, the
docs', the `help` answer's); an alias is read as it, on a line's first word only, and the
rest of the line is the command's as in English. No alias is a move word in any language
("spiele" is "I play", so German's games are "partien"): tests/test_words.py checks."""

from ...engine.words import fold

_ALIASES: dict[str, tuple[str, ...]] = {  # English name: de, fr, es, pt (accents optional)
    "status": ("stand", "état", "estado"),
    "help": ("hilfe", "aide", "ayuda", "ajuda"),
    "games": ("partien", "parties", "partidas"),
    "say": ("sage", "sag", "dis", "digo"),
    "undo": ("rückgängig", "annuler", "deshacer", "desfazer"),
    "resign": ("aufgeben", "abandonner", "abandonar", "desistir"),
    "orders": ("aufträge", "ordres", "órdenes", "ordens"),
    "vacation": ("urlaub", "vacances", "vacaciones", "férias"),
    "notify": ("benachrichtigen", "notifier", "notificar"),
    "mail": ("post", "courriel", "correo", "correio"),
    "zone": ("zeitzone", "fuseau", "zona"),
    "rest": ("ruhetage", "repos", "descanso"),
    "quiet": ("ruhe", "silence", "silencio", "silêncio"),
    "cap": ("limit", "limite", "límite"),
    "merge": ("bündeln", "regrouper", "agrupar"),
    "lang": ("sprache", "langue", "idioma"),
    "export": ("exportieren", "exporter", "exportar"),
    "forget": ("vergessen", "oublier", "olvidar", "esquecer"),
    "join": ("beitreten", "rejoindre", "unirse", "entrar"),
    "leave": ("verlassen", "quitter", "salir", "sair"),
    "leagues": ("ligen", "ligues", "ligas"),
    "moves": ("züge", "coups", "jugadas", "jogadas"),
    "remind": ("erinnern", "rappeler", "recordar", "lembrar"),
    "message": ("nachricht", "mensaje", "mensagem"),
    "pause": ("pausieren", "pausar"),
    "resume": ("fortsetzen", "reprendre", "reanudar", "retomar"),
}


def _spellings(word: str) -> set[str]:
    return {fold(word), fold(word.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue"))}


ALIASES = {spelling: name for name, words in _ALIASES.items() for w in words
           for spelling in _spellings(w)}


def name(word: str) -> str:
    """The English name a line's first word is (itself, lower-cased, if no alias)."""
    low = word.lower().rstrip(":")
    return ALIASES.get(fold(low), low)


def english(line: str) -> str:
    """The line with its first word's English name for an alias ("hilfe" is "help")."""
    word, space, rest = line.partition(" ")
    canonical = ALIASES.get(fold(word.lower().rstrip(":")))
    return canonical + space + rest if canonical else line
