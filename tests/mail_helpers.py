"""Helpers for the mail tests: the real SMTP handler on a free port over a test store, games
with one human (ann, seat 0) and robots, mails built with EmailMessage and sent with
smtplib, and the replies read back from the Maildir the outbox drains into."""

import re
import smtplib
import socket
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from helpers import deal_event, fixed_hands
from sqlalchemy import func
from sqlmodel import select

from pbem.config import load
from pbem.engine import new_game, preset
from pbem.gamelog import make_header, write_log
from pbem.mail.inbound import controller
from pbem.play import import_log, start
from pbem.store.games import create_game, export
from pbem.store.models import Game, League, Move, Outbox, Player, Seat
from pbem.store.outbox import drain, maildir_delivery

ANN = "ann@example.org"
ROBOTS = [ANN, "robot", "robot", "robot"]


def free_port() -> int:
    """aiosmtpd's Controller(port=0) does not learn the port it got and then refuses
    connections (aiosmtpd issues #276, #388): pick a free port first."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class MailEnv:
    store: object
    cfg: object
    port: int
    seen: set = field(default_factory=set)

    @property
    def domain(self) -> str:
        return self.cfg.mail_domain

    @property
    def maildir(self) -> Path:
        return Path(self.cfg.maildir)

    def address(self, gid: int, seat: int = 0) -> str:
        with self.store.session() as s:
            token = s.exec(select(Seat.token).where(Seat.game_id == gid,
                                                    Seat.seat == seat)).one()
        return f"play+{token}@{self.domain}"

    def mail(self, to: str, body: str | None = "", frm: str = ANN, subject: str = "Re: move",
             mid: str | None = None, **headers) -> EmailMessage:
        """A plain mail; body None leaves it without content. Headers: Auto_Submitted=..."""
        m = EmailMessage()
        m["From"], m["To"], m["Subject"] = frm, to, subject
        if mid is not None:
            m["Message-ID"] = mid
        for name, value in headers.items():
            m[name.replace("_", "-")] = value
        if body is not None:
            m.set_content(body)
        return m

    def send(self, msg, mail_from: str | None = None, rcpt: str | None = None) -> tuple:
        """Send through smtplib; (code, text) of the stage that decided: MAIL, RCPT or DATA."""
        raw = wire(msg)
        if mail_from is None:
            mail_from = str(msg["From"])
        rcpt = rcpt or str(msg["To"])
        with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as smtp:
            try:
                smtp.sendmail(mail_from, [rcpt], raw)
            except smtplib.SMTPSenderRefused as e:
                return e.smtp_code, e.smtp_error.decode()
            except smtplib.SMTPRecipientsRefused as e:
                code, text = e.recipients[rcpt]
                return code, text.decode()
            except smtplib.SMTPDataError as e:
                return e.smtp_code, e.smtp_error.decode()
        return 250, "OK"

    def replies(self) -> list:
        """Drain the outbox into the Maildir; the messages that arrived since the last call."""
        drain(self.store, deliver=maildir_delivery(self.maildir, self.domain))
        out = []
        for path in sorted((self.maildir / "new").iterdir()):
            if path.name not in self.seen:
                self.seen.add(path.name)
                out.append(BytesParser(policy=policy.default).parsebytes(path.read_bytes()))
        return out


def wire(msg) -> bytes:
    """The mail as sent on the wire, CRLF line ends (smtplib does not fix those of bytes,
    and aiosmtpd would read a bare-LF mail as one over-long line)."""
    if isinstance(msg, bytes):
        return msg
    return msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))


@contextmanager
def running(store, monkeypatch, tmp_path, lmtp: bool = False):
    """A started Controller for `store`, with settings from a fresh PBEM_VAR_DIR."""
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path / "var"))
    for name in ("PBEM_MAILDIR", "PBEM_MAIL_DOMAIN"):
        monkeypatch.delenv(name, raising=False)
    cfg = load()
    port = free_port()
    c = controller(store, cfg, "127.0.0.1", port, lmtp=lmtp)
    c.start()
    try:
        yield MailEnv(store, cfg, port)
    finally:
        c.stop()


def game(store, seats=ROBOTS, rules=None, first_dealer: int = 0) -> int:
    """A new, started game (a random deal)."""
    gid = create_game(store, rules or preset("standard"), list(seats), first_dealer=first_dealer)
    start(store, gid)
    return gid


def crafted(store, spec: dict | None = None, seats=ROBOTS, rules=None,
            first_dealer: int = 3) -> tuple[int, list[list[str]]]:
    """A game whose first deal has known hands (`spec` as in helpers.fixed_hands), imported
    as a log; with first_dealer 3 seat 0 (ann) acts first. Returns (game id, hands)."""
    rules = rules or preset("standard")
    hands = fixed_hands(rules, spec)
    ev = deal_event(new_game(rules, first_dealer), hands)
    header = make_header(rules, list(seats), first_dealer)
    return import_log(store, write_log(header, [ev])), hands


def state(store, gid: int):
    with store.session() as s:
        st = store.state(s, s.get(Game, gid))
        store.keep(gid, st)
        return st.snapshot()


def snapshot(store, gid: int) -> dict:
    """What a refused mail must not change: the game's log and its move count; and the
    outbox (a refusal adds exactly its reply, never a turn mail)."""
    with store.session() as s:
        moves = s.exec(select(func.count()).select_from(Move).where(Move.game_id == gid)).one()
        outbox = s.exec(select(func.count()).select_from(Outbox)).one()
        turns = s.exec(select(func.count()).select_from(Outbox).where(
            Outbox.dedupe_key.like("turn:%"))).one()
    return {"log": export(store, gid), "moves": moves, "outbox": outbox, "turns": turns}


def prefs(store, email: str) -> dict:
    with store.session() as s:
        return s.exec(select(Player).where(Player.email == email)).one().prefs


def account(env, email: str = ANN) -> str:
    """The player's secret account address, pbem+KEY@DOMAIN (made with the player)."""
    with env.store.session() as s:
        key = s.exec(select(Player.account_key).where(Player.email == email)).one()
    return f"pbem+{key}@{env.domain}"


def organiser_address(env, league_id: int) -> str:
    """The league's secret organiser address, organiser+KEY@DOMAIN."""
    with env.store.session() as s:
        return f"organiser+{s.get(League, league_id).organiser_key}@{env.domain}"


def answered(msg) -> bool:
    """Is it our answer to a player's mail? (Where it is the player's turn again, the answer
    is the turn mail too, and its headline starts as one's: pbem.notify.answer_stands.)"""
    return str(msg["Auto-Submitted"]) == "auto-replied"


def done_line(msg) -> str:
    """The headline less the turn mail's start an answer that is one has ("Game 3: your
    turn (move 9), you played 10♥" says "Game 3: you played 10♥")."""
    return re.sub(r"; your turn\b[^;]*$", "", headline(msg))


def headline(msg) -> str:
    """What a mail says in brief. A game's mails all have the game's subject (so that every
    client threads them) and say what happened in their first line."""
    subject = str(msg["Subject"])
    if not subject.startswith("Spades game "):
        return subject
    plain = next(p for p in msg.walk() if p.get_content_type() == "text/plain")
    return plain.get_payload(decode=True).decode().split("\n", 1)[0]


def text(msg) -> str:
    """The text/plain body of a mail we sent."""
    return msg.get_body(preferencelist=("plain",)).get_content()
