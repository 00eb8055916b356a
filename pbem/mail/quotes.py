"""What the player wrote in a reply, as command lines: not what they quoted, nor their
greeting, sign-off, footer or name, in any language and script.

Read by structure rather than by word lists. Read above, below and between quoted blocks
(top-posting, bottom-posting, interleaving): a quoted line (">") is skipped and reading goes
on after it. An attribution is told by its shape: one to three rows (clients wrap it), none
a command, just above a quoted block, holding a date, a time or an address, or ending in a
colon; so is a webmail's banner ("-------- Původní e-mail --------") with its "Name: value"
rows above a quote. Both are skipped. A quoted mail's header block ("От: ...", "差出人: ...")
or banner anywhere else ends the reading. A greeting is a short first line ending in a
comma or an exclamation mark that holds no command ("Привет!", "नमस्ते,"). Once a command was
read, the first line that is no command (mail.command_like) ends the mail quietly: sign-offs,
phone footers and names in any language; a command written wrong is still given to the
commands to be answered "not done", as is any line that fails before a command was read.

What we know by words stays as a surer first test in the nine languages below: attribution
verbs ("On ... wrote:", "Am ... schrieb ...:"), which end the reading when unquoted old mail
follows; Outlook's header labels; sign-offs and client footers ("Sent from my iPhone",
"Cheers - Ann"), which end it wherever they stand; greetings ("Hi Ann"). The lines given
out are normalised for reading (mail.normal: NFKC, ASCII digits, Turkish I), a `say`
line's words kept as written.

Languages known by words: English, German, French, Spanish, Italian, Dutch, Portuguese,
Polish, Swedish. By shape: any (tests/lang_corpus.py holds 18 more).
"""

import re

from ..engine import parse_action
from ..engine.words import fold
from .command_like import looks_like_command
from .commands.aliases import ALIASES
from .normal import for_reading, normal

MAX_LINES = 20  # lines read from one mail; a reply is short

# the verb of an attribution line, which ends with ":" ("a écrit :" has a space before it)
_WROTE = (r"wrote|writes|schrieb|a écrit|a ecrit|escribió|escribio|ha scritto|schreef|"
          r"escreveu|napisał\(a\)|napisała|napisał|napisana przez|pisze|skrev|"
          r"het volgende geschreven")
ATTRIBUTION = re.compile(rf"(?:^|\s)(?:{_WROTE})(?:\s.{{0,200}})?\s?:$", re.I)
MUTT = re.compile(r"^\* .{1,200}\]:$")  # mutt: "* Ann <a@b> [2020-11-02 10:00]:"
# how a wrapped attribution starts: a preposition, a weekday, or a date
_ATTR_START = re.compile(
    r"^(on|am|le|el|il|op|em|w dniu|den|wiadomość|\d|"
    r"mon|tue|wed|thu|fri|sat|sun|mo|di|mi|do|fr|sa|so|"
    r"lun|mar|mer|jeu|ven|sam|dim|mié|jue|vie|sáb|gio|ma|wo|za|zo|seg|ter|qua|qui|sex|pon|wt|"
    r"śr|czw|pt|sob|nie|mån|tis|ons|tor|fre|lör|sön)\b", re.I)

ENDS = [re.compile(p, re.I) for p in (
    r"^\*?(from|von|de|da|van|från|od|fra)\s?:\*?\s*\S",  # Outlook's quoted header block
    r"^-{2,20}\s*[^-\s].{1,60}?-{2,20}$",  # -----Original Message-----, ---- Mensaje original ----
    r"^_{10,}$",  # Outlook's rule above the quoted mail
    r"^--\s*$",  # the signature delimiter
    r"^(begin forwarded message|anfang der weitergeleiteten nachricht|début du message "
    r"réexpédié|inicio del mensaje reenviado|inizio messaggio inoltrato|begin doorgestuurd "
    r"bericht|início da mensagem reencaminhada|vidarebefordrat brev)\s*:",
    # client footers
    r"^(sent from|sent with|sent via|sent using|get outlook for|download outlook for|"
    r"von meinem|gesendet von|gesendet mit|holen sie sich outlook|envoyé de|envoyé depuis|"
    r"envoyé à partir de|obtenir outlook|télécharger outlook|enviado desde|enviado de|"
    r"enviado do|enviado com|enviado a través de|obtener outlook|descargar outlook|"
    r"inviato da|inviato dal|scarica outlook|ottieni outlook|verzonden (vanaf|met|van|via)|"
    r"outlook voor|verstuurd (vanaf|met|via)|download outlook|wysłane z|wysłano z|"
    r"pobierz outlook|skickat från|"
    r"hämta outlook|skaffa outlook|baixe o outlook|obter o outlook) ",
    r"^.{0,40}\boutlook\b.{0,40}\b(android|ios)\b",  # "Pobierz aplikację Outlook dla ..."
    # our own mail, quoted without any mark: its first line ("Game 3: your turn (move 5)"),
    # a turn mail's table or list of moves, or the start of an answer
    r"^game \d+(: | is over$| waits for )",
    r"^game \d+ \([\w-]+\), hand \d+, move \d+$",
    r"^it is your turn\. reply to this mail",
    r"^(done:|not done: your line)$",
)]

_SIGNOFF = (
    r"thanks|thank you|thx|ta|cheers|regards|best|best regards|kind regards|warm regards|"
    r"best wishes|all the best|yours|love|greetings|good luck|gl|later|bye|cu|see you|"
    r"viele grüße|viele grüsse|liebe grüße|beste grüße|grüße|grüsse|gruß|gruss|lg|vg|mfg|"
    r"danke|vielen dank|tschüss|bis bald|merci|merci beaucoup|cordialement|amitiés|bises|"
    r"bonne journée|à bientôt|a bientot|salutations|gracias|muchas gracias|saludos|"
    r"un saludo|un abrazo|abrazos|hasta luego|grazie|grazie mille|saluti|cordiali saluti|"
    r"un saluto|ciao|a presto|bedankt|dank je|dank u|groeten|groetjes|met vriendelijke groet|"
    r"vriendelijke groeten|obrigado|obrigada|abraços|abraço|cumprimentos|atenciosamente|"
    r"beijos|até logo|dzięki|dziękuję|pozdrawiam|pozdrowienia|pozdr|serdecznie|tack|"
    r"tack så mycket|hälsningar|vänliga hälsningar|mvh|med vänlig hälsning|kram|hej då|ha det")
# a sign-off alone, or followed by a name ("Thanks Bob"), or by a dash, comma or colon and
# anything at all ("Cheers – Ann's move")
SIGNOFF = re.compile(
    rf"^({_SIGNOFF})(\s+(a lot|so much|again|all|everyone|you|partner|mate|guys|"
    r"team|folks|both))*[\s,.!:;)]*"
    r"(\s*[-–—,:;].*|\s+(?-i:[A-ZÀ-Ý])[\w.'’-]*(\s+(?-i:[A-ZÀ-Ý])[\w.'’-]*)?[\s,.!]*)?$", re.I)
GREETING = re.compile(
    r"^(hi|hello|hey|dear|hallo|liebe|lieber|moin|servus|bonjour|salut|coucou|hola|"
    r"buenas|buenos días|ciao|salve|buongiorno|hoi|goedemorgen|goedemiddag|olá|ola|oi|"
    r"bom dia|boa tarde|cześć|witam|dzień dobry|hej|hejsan|tjena|god morgon)"
    r"\b[\w .'’-]{0,30}[,!.]?$", re.I)
# a bare name at the end ("Ann", "Jean-Luc B."), ignored when it is the last line read
_NAME = re.compile(r"^[A-ZÀ-Ý][\w'’-]*\.?(\s+[A-ZÀ-Ý][\w'’-]*\.?){0,2}$")
_GAME_WORDS = set(
    "bid play pass give nil blind double claim misdeal look keep discard stay come take "
    "status help games vacation notify join leave leagues moves turns "
    "ace king queen jack ten nine eight seven six five four three two deuce trey joker big "
    "little small spade spades heart hearts diamond diamonds club clubs".split())

# invisible marks: emoji variation selectors, zero-width characters, the soft hyphen, and
# the bidirectional marks Arabic and Hebrew clients put around names, addresses and numbers
_INVISIBLE = dict.fromkeys(map(ord, "\ufe0e\ufe0f\u200b\u200c\u200d\u2060\ufeff\u00ad"
                                    "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e"
                                    "\u2066\u2067\u2068\u2069"))
_SPACES = re.compile(r"[\s\u00a0\u2007\u202f]+")
# what an attribution holds in any language: a time, a date, or an address (after NFKC and
# ASCII digits: mail.normal)
_WHEN_OR_WHO = re.compile(r"\d{1,2}[:.]\d{2}|\b\d{4}\b|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|"
                          r"\d\s?(年|月|日|년|월|일)|@")
# a row of a quoted mail's header block in any language ("От: ...", "差出人: ...",
# "보낸 사람: ...", "*Von:* ...")
_HEADER_ROW = re.compile(r"^\*?[^\W\d_][\w .'’()-]{0,28}?\*?\s?:\*?\s*\S")
# a greeting's end: comma or exclamation mark, Latin, Arabic or CJK
_GREETING_END = ",!،，！、"
MAX_GREETING = 40  # characters: a greeting is a short line
MAX_WRAP = 3  # rows a client wraps an attribution over
MAX_HEADER_ROWS = 8  # rows of a quoted mail's header block
_BANNER = re.compile(r"^[-_=]{2,30}\s*[^-_=\s].{0,60}?[-_=]{2,30}$|^_{10,}$")


def clean(line: str) -> str:
    """One line as typed: emoji variation selectors, zero-width characters and bidirectional
    marks removed, non-breaking and other spaces made plain, collapsed and stripped."""
    return _SPACES.sub(" ", line.translate(_INVISIBLE)).strip()


def command_lines(text: str) -> list[str]:
    """The lines the player wrote as commands, normalised for reading (mail.normal)."""
    rows = [clean(r) for r in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    out: list[str] = []
    read_one = talk = False  # a command was read; the row above was table talk
    i = 0
    while i < len(rows) and len(out) < MAX_LINES:
        line = rows[i]
        if not line or line.startswith(">"):
            i, talk = i + 1, False
            continue
        n = _attribution(rows, i)
        if n:
            if _next(rows, i + n).startswith(">"):
                i += n
                continue  # a quoted block follows: read on below it
            break  # the old mail follows, unquoted
        if not out and _greeting(line):
            i += 1
            continue
        if _ends(rows, i):
            break
        command = looks_like_command(line)
        if read_one and not command and not talk:
            break  # after the commands, the player's own lines: a sign-off, a footer, a name
        out.append(line if talk and not command else for_reading(line))
        read_one = read_one or command
        talk = command and _is_talk(out[-1]) or talk and not command
        i += 1
    if len(out) > 1 and _is_name(out[-1]):
        out.pop()  # "play QH" then "Ann": the name is a signature
    return out


def _next(rows: list[str], i: int) -> str:
    """The first row from i on that is not empty ("" if none)."""
    return next((r for r in rows[i:] if r), "")


def _attribution(rows: list[str], i: int) -> int:
    """How many rows (1 to 3) the attribution line at row i spans, or 0: one of the
    attributions we know by their words, or one told by its shape above a quote."""
    return _worded(rows, i) or _shaped(rows, i) or _banner_above_quote(rows, i)


def _worded(rows: list[str], i: int) -> int:
    if ATTRIBUTION.search(rows[i]) or MUTT.match(rows[i]):
        return 1
    # Gmail wraps a long attribution; the first row is long and starts like one, and is
    # not a move ("so I'll play the queen of hearts" above "On ... wrote:" is read)
    if len(rows[i]) < 20 or not _ATTR_START.match(rows[i]) or _is_move(rows[i]):
        return 0
    for n in (2, 3):
        if all(rows[i:i + n]) and ATTRIBUTION.search(" ".join(rows[i:i + n])):
            return n
    return 0


def _shaped(rows: list[str], i: int) -> int:
    """An attribution in any language and script: one to three rows, none a command, just
    above a quoted block, holding a date, a time or an address, or ending in a colon
    ("2026年11月28日(土) 10:00 Pbem Spades <play+...>:", "28.11.2026, 10:00, Pbem:")."""
    for n in range(1, MAX_WRAP + 1):
        block = rows[i:i + n]
        if len(block) < n or not block[-1] or block[-1].startswith(">") or \
                looks_like_command(block[-1]):
            return 0
        if _next(rows, i + n).startswith(">"):
            said = normal(" ".join(block))
            return n if _WHEN_OR_WHO.search(said) or said.endswith(":") else 0
    return 0


def _banner_above_quote(rows: list[str], i: int) -> int:
    """A webmail's banner ("---------- Původní e-mail ----------") or header block, and its
    "Name: value" rows, just above a quoted block: how many rows, or 0."""
    if not (_BANNER.match(rows[i]) or _header_block(rows, i)):
        return 0
    n = 1
    while n <= MAX_HEADER_ROWS and rows[i + n:i + n + 1] and _HEADER_ROW.match(
            normal(rows[i + n])) and not looks_like_command(rows[i + n]):
        n += 1
    return n if _next(rows, i + n).startswith(">") else 0


def _greeting(line: str) -> bool:
    """A greeting before the first command: one we know by its words ("Hi Ann"), or a short
    line that ends in a comma or an exclamation mark and holds no command ("Привет!",
    "नमस्ते,", "Chào bạn,")."""
    if _game_words(line) or looks_like_command(line):
        return False
    if GREETING.match(line):
        return True  # before SIGNOFF: "Ciao," and "Hej," greet and take leave
    if SIGNOFF.match(line):
        return False  # "Thanks," alone: a sign-off, which ends the mail
    return len(line) <= MAX_GREETING and normal(line)[-1] in _GREETING_END


def _ends(rows: list[str], i: int) -> bool:
    """Does the old mail, a footer or a sign-off begin at row i?"""
    line = rows[i]
    if any(p.match(line) for p in ENDS) or SIGNOFF.match(line):
        return True
    return _header_block(rows, i)


def _header_block(rows: list[str], i: int) -> bool:
    """A quoted mail's header block in any language: two rows or more of "Name: value",
    neither a command, one holding an address, a date or a time."""
    block = rows[i:i + 2]
    if len(block) < 2 or not all(_HEADER_ROW.match(normal(r)) for r in block):
        return False
    if any(looks_like_command(r) for r in block):
        return False
    return any(_WHEN_OR_WHO.search(normal(r)) for r in block)


def _is_talk(line: str) -> bool:
    """Is the line table talk, whose words a mail client may wrap onto the next rows?"""
    return line.split(" ", 1)[0].casefold().rstrip(":") == "say"


def _is_move(line: str) -> bool:
    try:
        parse_action(line)
    except ValueError:
        return False
    return True


def _game_words(line: str) -> bool:
    return bool(_GAME_WORDS.intersection(re.split(r"[\W\d]+", line.lower())))


def _is_name(line: str) -> bool:
    """"Ann" is a signature; "Hilfe" or "Herz Dame" is not."""
    return bool(_NAME.match(line)) and not _game_words(line) and not _is_move(line) \
        and fold(line.lower().rstrip(".")) not in ALIASES
