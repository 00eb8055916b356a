"""Players who know only their mail, for the end-to-end tests: the inbound server on a free
port, the outbox drained into a Maildir, and each player reading its turn mails and answering
their Reply-To with one of the move lines the mail lists (In-Reply-To: the turn mail's
Message-ID). The engine is never used to choose a move."""

import email
import email.policy
import json
import mailbox
import random
import re
import smtplib
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr

from pbem.config import Settings
from pbem.mail.inbound import controller
from pbem.store.games import export
from pbem.store.models import now as utcnow
from pbem.store.outbox import drain, maildir_delivery
from pbem.store.pacing import LEAGUE_MERGE
from tests.mail_helpers import free_port, headline

DOMAIN = "pbem.localhost"
SYMBOL = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
PRETTY_CARD = re.compile(r"(10|[2-9JQKA])([♠♥♦♣])")
CODE_CARD = re.compile(r"\bplay(?: |%20)([2-9TJQKA][SHDC])\b", re.I)
HEAD = re.compile(r"^Game (\d+) \(\S+\), hand (\d+), move (\d+)$", re.M)
GAME = re.compile(r"^Spades game (\d+)$")


def code(rank: str, symbol: str) -> str:
    return ("T" if rank == "10" else rank) + SYMBOL[symbol]


class Mail:
    """One delivered message, as its reader sees it."""

    def __init__(self, raw: bytes):
        self.msg = email.message_from_bytes(raw, policy=email.policy.default)
        self.to = parseaddr(str(self.msg["To"]))[1].lower()
        self.subject = str(self.msg["Subject"])
        self.headline = headline(self.msg)  # a game's mail says what it is on its first line
        self.message_id = str(self.msg["Message-ID"])
        self.reply_to = parseaddr(str(self.msg["Reply-To"] or ""))[1]
        part = self.msg.get_body(("plain",))
        self.text = part.get_content() if part else ""
        html = self.msg.get_body(("html",))
        self.html = html.get_content() if html else ""
        head = HEAD.search(self.text)
        self.hand_no, self.seq = (int(head[2]), int(head[3])) if head else (None, None)
        game = GAME.match(self.subject)
        self.game = int(game[1]) if game else None  # None: not a game's mail

    @property
    def is_turn(self) -> bool:
        """A turn mail, or an answer that stands for one (its Message-ID is a turn mail's)."""
        return "your turn" in self.headline or self.message_id.startswith("<turn.")

    def section(self, title: str) -> list[str]:
        """The indented lines after a line starting with `title`, up to a blank line."""
        lines = self.text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith(title):
                out = []
                for x in lines[i + 1:]:
                    if not x.startswith("  "):
                        break
                    out.append(x.strip())
                return out
        return []

    def hand(self) -> set[str]:
        return {code(r, s) for line in self.section("Your hand:")
                for r, s in PRETTY_CARD.findall(line)}

    def moves(self) -> list[str]:
        """What the mail says one may reply: the text after "reply:", or the whole line."""
        lines = self.section("It is your turn. Reply to this mail with one of:") \
            or self.section("Legal now:")  # an answer that is the turn mail too
        return [line.split("reply:", 1)[1].strip() if "reply:" in line else line
                for line in lines]

    def cards_shown(self) -> set[str]:
        """Every card named anywhere in the mail (text and HTML), as symbols or as a code."""
        both = self.text + self.html
        shown = {code(r, s) for r, s in PRETTY_CARD.findall(both)}
        return shown | {c.upper() for c in CODE_CARD.findall(both)}

    def scores(self) -> list[int]:
        return [int(re.search(r": (-?\d+) \(", line)[1]) for line in self.section("Score:")]


class Table:
    """The server on a free port, the Maildir, and the players' side of the mail."""

    def __init__(self, store, tmp_path, lmtp=False):
        self.store = store
        self.cfg = Settings(var_dir=tmp_path, database_url="unused", mail_domain=DOMAIN)
        self.maildir = tmp_path / "mail"
        self.deliver = maildir_delivery(self.maildir, DOMAIN)
        self.port, self.lmtp = free_port(), lmtp
        self.server = controller(store, self.cfg, "127.0.0.1", self.port, lmtp=lmtp)
        self.mails: dict[str, Mail] = {}  # Maildir key -> message, in delivery order
        self.answered: set[str] = set()  # Message-IDs of turn mails replied to
        self.sent = 0

    def __enter__(self):
        self.server.start()
        return self

    def __exit__(self, *exc):
        self.server.stop()

    def fetch(self) -> None:
        """Deliver what is due when the players look: a quarter hour on, when a league's
        turn mails, which wait that long by default, have gone (pbem.store.pacing)."""
        later = utcnow() + timedelta(minutes=LEAGUE_MERGE)
        while drain(self.store, deliver=self.deliver, now=later):
            pass
        box = mailbox.Maildir(str(self.maildir), create=False)
        for key in sorted(set(box.keys()) - set(self.mails)):
            self.mails[key] = Mail(box.get_bytes(key))

    def inbox(self, who: str) -> list[Mail]:
        return [m for m in self.mails.values() if m.to == who]

    def pending(self, who: str) -> Mail | None:
        """The newest turn mail to `who` that no reply answered yet."""
        turns = [m for m in self.inbox(who) if m.is_turn]
        if not turns:
            return None
        newest = max(turns, key=lambda m: m.seq)
        return None if newest.message_id in self.answered else newest

    def turns_due(self, who: str) -> list[Mail]:
        """The newest turn mail of each of `who`'s games, where no reply answered it yet."""
        newest: dict[int, Mail] = {}
        for m in self.inbox(who):
            if m.is_turn and (m.game not in newest or m.seq > newest[m.game].seq):
                newest[m.game] = m
        return [m for m in newest.values() if m.message_id not in self.answered]

    def reply(self, who: str, turn: Mail, line: str) -> None:
        """Answer `turn` from `who` with `line`, as a mail program would: quote below."""
        quoted = "".join(f"> {x}\n" for x in turn.text.splitlines())
        self.send(who, turn.reply_to, f"{line}\n\nOn some day, play@{DOMAIN} wrote:\n{quoted}",
                  "Re: " + turn.subject, turn.message_id)
        self.answered.add(turn.message_id)

    def send(self, who: str, to: str, body: str, subject: str = "pbem",
             in_reply_to: str | None = None) -> None:
        """A mail from `who` to `to`, accepted (250) at every step of the transaction."""
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = who, to, subject
        msg["Message-ID"] = make_msgid(domain="example.org")
        if in_reply_to:
            msg["In-Reply-To"] = msg["References"] = in_reply_to
        msg.set_content(body)
        cls = smtplib.LMTP if self.lmtp else smtplib.SMTP
        with cls("127.0.0.1", self.port, timeout=30) as smtp:
            # one recipient a transaction, and the DATA reply read and checked ourselves
            (smtp.ehlo if not self.lmtp else smtp.ehlo_or_helo_if_needed)()
            assert smtp.mail(who)[0] == 250
            assert smtp.rcpt(to)[0] == 250
            status, text = smtp.data(msg.as_bytes(policy=email.policy.SMTP))
            assert status == 250, text
        self.sent += 1


def choose(turn: Mail, rng: random.Random) -> str:
    """A move line from the mail's own list: a card to play, or a modest bid."""
    moves = turn.moves()
    assert moves, f"a turn mail without moves:\n{turn.text}"
    plays = [m for m in moves if m.startswith("play ")]
    if plays:
        return rng.choice(plays)
    bids = [m for m in moves if re.fullmatch(r"bid [1-4]", m)]
    if bids:
        return rng.choice(bids)
    return rng.choice([m for m in moves if m not in ("claim", "misdeal")])


def load_log(store, game_id):
    lines = export(store, game_id).splitlines()
    header = json.loads(lines[0])
    return header, [json.loads(x) for x in lines[1:]]


def check_secrecy(table: Table, game_id: int, humans: dict[int, str]) -> int:
    """No mail shows a player a card of someone else's that was not yet played; each turn
    mail's hand is exactly that player's cards still held. Returns how many mails looked."""
    _, events = load_log(table.store, game_id)
    deals = [e for e in events if e["type"] == "deal"]
    looked = 0
    for seat, who in humans.items():
        for m in table.inbox(who):
            if m.game != game_id:
                continue  # another game's, or no game's (a league's mail)
            looked += 1
            if m.seq is None:  # no table in this mail: it may only name the player's cards
                mine = {c for d in deals for c in d["hands"][seat]}
                assert m.cards_shown() <= mine, (m.headline, m.text)
                continue
            deal = deals[m.hand_no - 1]
            nxt = [e["seq"] for e in deals[m.hand_no:m.hand_no + 1]] or [10**9]
            played = [e for e in events if e["type"] == "play"
                      and deal["seq"] < e["seq"] <= min(m.seq, nxt[0] - 1)]
            held = set(deal["hands"][seat]) - {e["card"] for e in played if e["seat"] == seat}
            if m.is_turn:  # blind nil on offer: the cards stay hidden until looked at
                hidden = "You have not looked at your cards yet" in m.text
                assert m.hand() == (set() if hidden else held), (m.headline, m.text)
            # an answer echoes the move it did: the last card of a hand is shown beside the
            # next hand's table, so the player's own cards of earlier deals may appear too
            allowed = {c for d in deals[:m.hand_no] for c in d["hands"][seat]}
            allowed |= {e["card"] for e in played}
            # and every card played in the hand before (the rest of a settled hand, named
            # in the mail of the move that ended it, pbem.notify.settled_news): played cards
            # are public
            if m.hand_no >= 2:
                allowed |= {e["card"] for e in events if e["type"] == "play"
                            and deals[m.hand_no - 2]["seq"] < e["seq"] < deal["seq"]}
            assert m.cards_shown() <= allowed, (m.headline, m.cards_shown() - allowed, m.text)
    return looked
