"""End to end over real SMTP (and LMTP): players who know only their mail.

The inbound server runs in-process on a free port; the outbox is drained into a Maildir
under the test's directory. Each player reads the Maildir, takes its newest unanswered turn
mail, and answers its Reply-To with one of the move lines that mail lists (In-Reply-To: the
turn mail's Message-ID). The engine is used only to check what happened, from the exported
log: never to choose a move.
"""

import dataclasses
import email
import email.policy
import json
import mailbox
import random
import re
import smtplib
import socket
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr

import pytest

from pbem.config import Settings
from pbem.engine import preset, replay, score_pad
from pbem.mail.inbound import controller
from pbem.play import start
from pbem.store.games import create_game, export
from pbem.store.outbox import drain, maildir_delivery

DOMAIN = "pbem.localhost"
HUMANS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]
SYMBOL = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
PRETTY_CARD = re.compile(r"(10|[2-9JQKA])([♠♥♦♣])")
CODE_CARD = re.compile(r"\bplay(?: |%20)([2-9TJQKA][SHDC])\b", re.I)
HEAD = re.compile(r"^Game (\d+) \(\S+\), hand (\d+), move (\d+)$", re.M)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def code(rank: str, symbol: str) -> str:
    return ("T" if rank == "10" else rank) + SYMBOL[symbol]


class Mail:
    """One delivered message, as its reader sees it."""

    def __init__(self, raw: bytes):
        self.msg = email.message_from_bytes(raw, policy=email.policy.default)
        self.to = parseaddr(str(self.msg["To"]))[1].lower()
        self.subject = str(self.msg["Subject"])
        self.message_id = str(self.msg["Message-ID"])
        self.reply_to = parseaddr(str(self.msg["Reply-To"] or ""))[1]
        part = self.msg.get_body(("plain",))
        self.text = part.get_content() if part else ""
        html = self.msg.get_body(("html",))
        self.html = html.get_content() if html else ""
        head = HEAD.search(self.text)
        self.hand_no, self.seq = (int(head[2]), int(head[3])) if head else (None, None)

    @property
    def is_turn(self) -> bool:
        return "your turn" in self.subject

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
        return [line.split("reply:", 1)[1].strip() if "reply:" in line else line
                for line in self.section("It is your turn. Reply to this mail with one of:")]

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
        while drain(self.store, deliver=self.deliver):
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

    def reply(self, who: str, turn: Mail, line: str) -> None:
        """Answer `turn` from `who` with `line`, as a mail program would: quote below."""
        msg = EmailMessage()
        msg["From"] = who
        msg["To"] = turn.reply_to
        msg["Subject"] = "Re: " + turn.subject
        msg["Message-ID"] = make_msgid(domain="example.org")
        msg["In-Reply-To"] = turn.message_id
        msg["References"] = turn.message_id
        quoted = "".join(f"> {x}\n" for x in turn.text.splitlines())
        msg.set_content(f"{line}\n\nOn some day, play@{DOMAIN} wrote:\n{quoted}")
        cls = smtplib.LMTP if self.lmtp else smtplib.SMTP
        with cls("127.0.0.1", self.port, timeout=30) as smtp:
            # one recipient a transaction, and the DATA reply read and checked ourselves
            (smtp.ehlo if not self.lmtp else smtp.ehlo_or_helo_if_needed)()
            assert smtp.mail(who)[0] == 250
            assert smtp.rcpt(turn.reply_to)[0] == 250
            status, text = smtp.data(msg.as_bytes(policy=email.policy.SMTP))
            assert status == 250, text
        self.answered.add(turn.message_id)
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
            looked += 1
            if m.seq is None:  # no table in this mail: it may only name the player's cards
                mine = {c for d in deals for c in d["hands"][seat]}
                assert m.cards_shown() <= mine, (m.subject, m.text)
                continue
            deal = deals[m.hand_no - 1]
            nxt = [e["seq"] for e in deals[m.hand_no:m.hand_no + 1]] or [10**9]
            played = [e for e in events if e["type"] == "play"
                      and deal["seq"] < e["seq"] <= min(m.seq, nxt[0] - 1)]
            held = set(deal["hands"][seat]) - {e["card"] for e in played if e["seat"] == seat}
            if m.is_turn:  # blind nil on offer: the cards stay hidden until looked at
                hidden = "You have not looked at your cards yet" in m.text
                assert m.hand() == (set() if hidden else held), (m.subject, m.text)
            allowed = set(deal["hands"][seat]) | {e["card"] for e in played}
            assert m.cards_shown() <= allowed, (m.subject, m.cards_shown() - allowed, m.text)
    return looked


def play_by_mail(table: Table, humans: dict[int, str], rng, until, limit: int) -> None:
    """Each player answers its newest turn mail, until `until()` is true."""
    table.fetch()
    for _ in range(limit):
        if until():
            return
        todo = [(who, table.pending(who)) for who in humans.values()]
        todo = [(who, m) for who, m in todo if m is not None]
        assert todo, "nobody has a turn mail to answer, yet the play is not done"
        for who, turn in todo:
            assert turn.reply_to.startswith("play+") and turn.reply_to.endswith("@" + DOMAIN)
            table.reply(who, turn, choose(turn, rng))
        table.fetch()
        refused = [m for m in table.mails.values() if "not done" in m.subject]
        assert not refused, refused[0].text
    raise AssertionError(f"not done after {limit} rounds")


def test_four_players_play_a_hand_by_mail(store, tmp_path):
    gid = create_game(store, preset("standard"), HUMANS, first_dealer=0)
    start(store, gid)
    humans = dict(enumerate(HUMANS))
    with Table(store, tmp_path) as table:
        def hand_two():
            return any(m.is_turn and m.hand_no == 2 for m in table.mails.values())

        play_by_mail(table, humans, random.Random(1), hand_two, limit=80)
        assert table.sent == 4 + 52  # four bids and 52 cards, one mail each
        # every accepted move was answered with a "done" to its sender
        done = [m for m in table.mails.values() if m.subject == f"Game {gid}: done"]
        assert len(done) == table.sent
        assert check_secrecy(table, gid, humans) > 2 * table.sent
        # the check can fail: a turn mail naming a card another player still holds
        _, events = load_log(store, gid)
        deal = next(e for e in events if e["type"] == "deal")
        turn = next(m for m in table.mails.values() if m.is_turn and m.to == HUMANS[0])
        leak = deal["hands"][1][0]
        turn.html += f"<p>{leak[0].replace('T', '10')}{'♠♥♦♣'['SHDC'.index(leak[1])]}</p>"
        with pytest.raises(AssertionError):
            check_secrecy(table, gid, humans)
        turn.html = turn.msg.get_body(("html",)).get_content()

        header, events = load_log(store, gid)
        plays = [e for e in events if e["type"] == "play"]
        assert len(plays) == 52
        pad = score_pad(replay(preset("standard"), events, header["first_dealer"]))
        assert len(pad["hands"]) == 1  # the hand was scored
        scores = [side["score"] for side in pad["sides"]]
        assert any(scores)
        # and the players were told: the first turn mail of hand 2 shows the new score
        first = min((m for m in table.mails.values() if m.is_turn and m.hand_no == 2),
                    key=lambda m: m.seq)
        assert first.scores() == scores


def test_one_human_and_three_robots_play_a_game_to_the_end(store, tmp_path):
    rules = dataclasses.replace(preset("standard"), target=100)
    gid = create_game(store, rules, ["ann@example.org", "robot", "robot", "robot"],
                      first_dealer=3)
    start(store, gid)
    humans = {0: "ann@example.org"}
    with Table(store, tmp_path) as table:
        def over():
            return any(m.subject == f"Game {gid} is over" for m in table.mails.values())

        play_by_mail(table, humans, random.Random(2), over, limit=400)
        last = [m for m in table.inbox("ann@example.org") if m.subject.endswith("is over")]
        assert len(last) == 1
        assert check_secrecy(table, gid, humans) > table.sent
        header, events = load_log(store, gid)
        pad = score_pad(replay(rules, events, header["first_dealer"]))
        assert pad["over"] and max(s["score"] for s in pad["sides"]) >= 100
        assert last[0].scores() == [s["score"] for s in pad["sides"]]
        assert f"Game {gid} is over" in last[0].text
        # the human moved only by mail: its moves in the log are exactly the mails sent
        mine = [e for e in events if e.get("seat") == 0 and e["type"] in ("bid", "play")]
        assert len(mine) == table.sent


@pytest.mark.parametrize("moves", [8])
def test_lmtp_carries_moves(store, tmp_path, moves):
    gid = create_game(store, preset("standard"), HUMANS, first_dealer=1)
    start(store, gid)
    humans = dict(enumerate(HUMANS))
    with Table(store, tmp_path, lmtp=True) as table:
        play_by_mail(table, humans, random.Random(3), lambda: table.sent >= moves, limit=20)
        _, events = load_log(store, gid)
        assert len([e for e in events if e["type"] in ("bid", "play")]) == moves
        assert check_secrecy(table, gid, humans) >= 2 * moves
