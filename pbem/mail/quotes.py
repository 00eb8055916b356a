"""What the player wrote in a reply, as lines: not what they quoted, nor their sign-off.

Read above, below and between quoted blocks (top-posting, bottom-posting, interleaving).
A quoted line (">") is skipped and reading goes on after it. An attribution line ("On ...
wrote:", "Am ... schrieb ...:" and the like in the languages below) is skipped when a quoted
block follows; when unquoted text follows it (some clients quote without ">") the rest is
the old mail, so reading ends. Reading also ends at an Outlook header block ("From:",
"Von:", "De :"...), a "-----Original Message-----" style banner, the signature delimiter,
a client footer ("Sent from my iPhone", "Get Outlook for Android") or a sign-off ("Thanks,",
"Cheers - Ann"). A greeting before the first command is skipped.

Languages: English, German, French, Spanish, Italian, Dutch, Portuguese, Polish, Swedish.
"""

import re

from ..engine import parse_action

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

_INVISIBLE = dict.fromkeys(map(ord, "\ufe0e\ufe0f\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_SPACES = re.compile(r"[\s\u00a0\u2007\u202f]+")


def clean(line: str) -> str:
    """One line as typed: emoji variation selectors and zero-width characters removed,
    non-breaking and other spaces made plain, collapsed and stripped."""
    return _SPACES.sub(" ", line.translate(_INVISIBLE)).strip()


def command_lines(text: str) -> list[str]:
    rows = [clean(r) for r in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    out: list[str] = []
    i = 0
    while i < len(rows) and len(out) < MAX_LINES:
        line = rows[i]
        if not line or line.startswith(">"):
            i += 1
            continue
        n = _attribution(rows, i)
        if n:
            nxt = next((r for r in rows[i + n:] if r), "")
            if nxt.startswith(">"):
                i += n
                continue  # a quoted block follows: read on below it
            break  # the old mail follows, unquoted
        # "Ciao," and "Hej," greet and take leave: before any command, a greeting
        if not out and GREETING.match(line) and not _game_words(line):
            i += 1
            continue
        if any(p.match(line) for p in ENDS) or SIGNOFF.match(line):
            break
        out.append(line)
        i += 1
    if len(out) > 1 and _is_name(out[-1]):
        out.pop()  # "play QH" then "Ann": the name is a signature
    return out


def _attribution(rows: list[str], i: int) -> int:
    """How many rows (1 to 3) the attribution line at row i spans, or 0."""
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


def _is_move(line: str) -> bool:
    try:
        parse_action(line)
    except ValueError:
        return False
    return True


def _game_words(line: str) -> bool:
    return bool(_GAME_WORDS.intersection(re.split(r"[\W\d]+", line.lower())))


def _is_name(line: str) -> bool:
    return bool(_NAME.match(line)) and not _game_words(line) and not _is_move(line)
