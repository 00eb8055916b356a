"""The inbound mail handler: an aiosmtpd handler speaking SMTP or LMTP.

Each secret address proves who sends (issue 29): `play+TOKEN@DOMAIN` is a seat (it takes the
account commands too), `pbem+KEY@DOMAIN` a player's account (its account commands),
`organiser+KEY@DOMAIN` a league's organiser (its organiser commands); an unknown token or
key is refused at RCPT with 550. Plain `pbem@DOMAIN` acts on nothing (pbem.mail.plain):
a known sender is answered at their own address with their account address and a link
that does what the mail asked; a stranger may only ask to join. `bounce+CODE@DOMAIN` takes
the bounces of the mail CODE names (a forged or unknown CODE is refused at RCPT with 550),
and mail read as a player's clears its bounces. A mail is trusted only if its address's
secret is valid and its From is the secret's player; answers go only to registered
addresses. The same Message-ID applies once.
If the database cannot be reached the answer is 451, so the sending server retries; a mail
that cannot be read is answered 554, never with a Python error; a mail whose processing
fails by a bug is kept in the shunt (pbem.mail.shunt) and answered 451. Over LMTP each
accepted recipient gets its own answer after DATA (RFC 2033).
"""

import asyncio
import hashlib
import logging
import traceback

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP
from sqlalchemy import bindparam, exists, func, insert
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import aliased
from sqlmodel import select

from .. import compose, logs
from ..engine import parse_action, view
from ..i18n import current, gettext, language, listing
from ..notify import (
    answer_stands,
    link_maker,
    mail_row,
    played_for,
    reply_address,
    settled_news,
    turn_values,
    your_turn,
)
from ..organise.seasons import tell_organisers
from ..play import Seen
from ..signing import secret_keys
from ..store import bounces, prefs
from ..store.accounts import account_address, keyed, organiser_address
from ..store.games import GAME_ON_FIRST_SEAT
from ..store.masking import MaskKeys
from ..store.models import Game, Inbound, League, Move, Outbox, Player, Seat
from ..table import seat_names
from . import shunt
from .authres import verdict
from .bounce import classify
from .commands import aliases
from .commands.acting import did
from .commands.base import Context
from .commands.registry import (
    ACCOUNT_HERE,
    ACCOUNT_NAMES,
    AT_ORGANISER,
    AT_SEAT,
    NAMES,
    ONCE,
    SEAT_COMMANDS,
    STRANGERS,
)
from .commands.runner import failure, run, summary, summary_text
from .normal import for_reading
from .once import once
from .plain import plain_answer
from .reader import ForgedSender, Incoming, Unreadable, read

log = logging.getLogger(__name__)
log.addFilter(MaskKeys())  # its lines name recipients: play+...@, never the seat's token
# aiosmtpd's own log names each RCPT too (at INFO): the keys go there as well
logging.getLogger("mail.log").addFilter(MaskKeys())

MAX_SIZE = 1_000_000  # bytes; a bigger mail is refused with 552
_TOKEN = select(Seat.id).where(Seat.token == bindparam("t"))
_BY_TOKEN = aliased(Seat)


def _table_of(game_id):
    """A seat mail's table in one statement: the game, its seats (in order) with their
    players, its last seq, and whether the mail keyed `k` was taken before; the game on the
    first seat's row only (None on the others): its JSON is decoded once."""
    return (select(Game, Seat, Player,
                   select(func.max(Move.seq)).where(Move.game_id == Game.id).scalar_subquery(),
                   exists().where(Inbound.message_id == bindparam("k")))
            .select_from(Seat).join(Game, GAME_ON_FIRST_SEAT, isouter=True)
            .join(Player, Player.id == Seat.player_id, isouter=True)
            .where(Seat.game_id == game_id).order_by(Seat.seat))


# by the game's id ("g"), or by one of its seats' tokens ("t")
_TABLE_OF = {"g": _table_of(bindparam("g")),
             "t": _table_of(select(_BY_TOKEN.game_id).where(_BY_TOKEN.token == bindparam("t"))
                            .scalar_subquery())}
_SEEN = select(Inbound.id).where(Inbound.message_id == bindparam("k"))
_KEYED = {"account": select(Player.id).where(Player.account_key == bindparam("k")),
          "organiser": select(League.id).where(League.organiser_key == bindparam("k"))}


class Place:
    """Which of our addresses a mail came to: "seat", "account", "organiser" (with its
    league) or "plain" (pbem@ itself)."""

    def __init__(self, kind: str, league: League | None = None):
        self.kind, self.league = kind, league


SEAT, PLAIN = Place("seat"), Place("plain")
# whom a mail is from, as `Processor._who` reads it: (seat, player, table, place)
Who = tuple[Seat | None, Player | None, "Table | None", Place]


class Processor:
    """What happens to one delivered mail, without any SMTP: testable on its own."""

    def __init__(self, store, cfg):
        self.store, self.cfg = store, cfg

    @property
    def keys(self) -> list[str]:
        """The signing keys now (a rotated key file is read again: pbem.signing)."""
        return secret_keys(self.cfg)

    def seat_for(self, address: str, s=None) -> Seat | None:
        """The seat `address` names, read in `s` (or a read of its own)."""
        local, _, domain = address.lower().rpartition("@")
        if domain != self.cfg.mail_domain.lower() or not local.startswith("play+"):
            return None
        if s is None:
            with self.store.reader() as s:
                return self.seat_for(address, s)
        return s.exec(select(Seat).where(Seat.token == local[5:])).first()

    def _first(self, statement, **params):
        """The first value `statement` selects (None if none), read in a reader session."""
        with self.store.reader() as s:
            return s.exec(statement, params=params).first()

    def bounced(self, address: str) -> Outbox | None:
        """The mail whose bounces `address` takes, if it is one of ours, signed."""
        return bounces.row_for(self.store, self.keys, address, self.cfg.mail_domain)

    def known(self, address: str) -> bool:
        if address.lower().startswith(bounces.PREFIX):
            return self.bounced(address) is not None
        if address.lower() == f"pbem@{self.cfg.mail_domain}".lower():
            return True
        if (kind_key := keyed(address, self.cfg.mail_domain)) is not None:
            kind, key = kind_key
            return self._first(_KEYED[kind], k=key) is not None
        local, _, domain = address.lower().rpartition("@")
        if domain != self.cfg.mail_domain.lower() or not local.startswith("play+"):
            return False
        return self._first(_TOKEN, t=local[5:]) is not None

    def process(self, envelope_from: str, rcpt: str, raw: bytes) -> str:
        """Handle the mail for `rcpt`; returns what was done (for the log and tests). The
        operator's log gets a line for it (pbem.logs.MailIn)."""
        with logs.MailIn(envelope_from) as line:
            line.outcome = self._process(envelope_from, rcpt, raw, line)
            return line.outcome

    def _process(self, envelope_from: str, rcpt: str, raw: bytes, line: "logs.MailIn") -> str:
        inc = read(raw, envelope_from, self.cfg.mail_domain)
        line.sender = inc.sender
        key = f"{rcpt.lower()} {inc.message_id or hashlib.sha256(raw).hexdigest()}"
        if len(key) > 190:  # fits every column it keys (Outbox.dedupe_key is 200)
            key = "sha256:" + hashlib.sha256(key.encode()).hexdigest()
        bounce = rcpt.lower().startswith(bounces.PREFIX)  # never answered, nor read as commands
        who: Who | None = None  # read unless the mail is a bounce or ignored
        if bounce or inc.ignore:
            if self._seen(key):
                return "duplicate"
        elif (who := self._who(inc, rcpt, key)) is None:
            return "duplicate"
        line.game = who[2].game.id if who and who[2] else None
        answers = Answers()  # our answers' Outbox rows, written with the Inbound row
        try:
            if bounce:
                outcome = self._bounce(rcpt, raw)
            elif who is None:
                outcome = inc.ignore or "ignored"
            else:  # answered in the language of the player the mail names (a stranger: ours)
                with language(prefs.language(who[1])):
                    outcome = self._answer(inc, key, *who, answers)
        finally:
            table = who[2] if who else None
            if table is not None and table.live is not None:  # read, no seat's mail took it
                self.store.keep(table.game.id, table.live)
        if answers.recorded:  # with the move, in its transaction
            return outcome
        return self._record(key, outcome, answers.rows)

    def _seen(self, key: str) -> bool:
        """Was this mail taken before? (The Inbound row's unique key is what keeps a mail
        delivered twice at once from being taken twice: `_record`, SeatAnswer.)"""
        return self._first(_SEEN, k=key) is not None

    def _who(self, inc: Incoming, rcpt: str, key: str) -> Who | None:
        """(seat, player, table, place): the seat `rcpt` names, its player and its `Table`
        (read with it); or no seat, the player a keyed address names (an organiser
        address: its league's organiser), or at plain pbem@ the player the sender is.
        None if the mail (`key`) was taken before (`_seen`, asked in the table's SELECT
        where there is one)."""
        local, _, domain = rcpt.lower().rpartition("@")
        token = local[5:] if local.startswith("play+") else None
        table = None
        if token and domain == self.cfg.mail_domain.lower():
            table = Table.read(self.store, "t", token, key)
        seen = table.seen if table is not None else self._seen(key)
        if seen:
            if table is not None:
                self.store.keep(table.game.id, table.take())
            return None
        if table is not None:  # the token's seat is among the rows read with it
            seat = next(x for x in table.seats if x.token == token)
            return seat, table.players.get(seat.player_id), table, SEAT
        kind_key = keyed(rcpt, self.cfg.mail_domain)
        with self.store.reader() as s:
            if kind_key is None:
                return None, s.exec(select(Player).where(Player.email == inc.sender)
                                    ).first(), None, PLAIN
            kind, secret = kind_key
            if kind == "account":
                return None, s.exec(select(Player).where(Player.account_key == secret)
                                    ).first(), None, Place(kind)
            league = s.exec(select(League).where(League.organiser_key == secret)).first()
            boss = s.get(Player, league.organiser_id) if league else None
            return None, boss, None, Place(kind, league)

    def _record(self, key: str, outcome: str, answers: list[dict]) -> str:
        """The answers and the mail's Inbound row in one transaction (one commit): both are
        there or neither is, and a mail delivered twice at once is answered once."""
        try:
            with self.store.session() as s:
                _write_answers(s, key, outcome, answers)
                s.commit()
        except IntegrityError:
            return "duplicate"  # the same mail, delivered twice at once
        return outcome

    def _bounce(self, rcpt: str, raw: bytes) -> str:
        row = self.bounced(rcpt)
        if row is None:
            return "unknown bounce address"
        found = classify(raw)
        if found.hard is None:
            return f"not a bounce: {found.status}"
        done, stopped = bounces.record(self.store, row, found.hard, found.status)
        log.info("mail %s to %s bounced (%s): %s", row.id, row.to_addr, found.status, done)
        if stopped:
            tell_organisers(self.store, stopped, found.status)
        return done

    def _answer(self, inc: Incoming, key: str, seat, player, table, place, answers) -> str:
        """What the mail asks, done; `answers` gets the answers to queue."""
        out = answers.rows
        if player is None:
            if place is PLAIN:
                return self._stranger(inc, key)
            return "unknown sender"  # no answer: we write only to registered players
        if player.email.lower() != inc.sender:
            if seat is not None:
                out.append(self._warn_forged(inc, seat, player, key))
            elif place is not PLAIN:  # the owner hears of it, at their own address
                out.append(self._warn_forged_keyed(inc, player, key))
            return "forged sender"
        if place is PLAIN:  # acts on nothing: only the sender's own address hears of it,
            return self._plain(inc, player, key, out)  # once an hour, whatever its checks
        why = verdict(inc.auth, inc.sender.rpartition("@")[2], self.cfg.authserv_id)
        if why:  # the From domain does not vouch for it, by our own MTA's word
            out.append(self._refuse_unverified(inc, seat, player, key, why))
            return "failed its domain's check"
        if "bounces" in (player.prefs or {}):  # mail came from the address: it works
            bounces.clear(self.store, player.id)
            if table is not None:  # the player's row changed: read the table again
                self.store.keep(seat.game_id, table.take())
                table = Table.read(self.store, "g", seat.game_id)
                player = table.players.get(seat.player_id)
        if place.kind == "organiser":
            return self._organiser(inc, player, place.league, key, out)
        if seat is None:
            return self._account(inc, player, key, out)
        return self._seat(inc, seat, player, key, answers, table)

    def _seat(self, inc, seat, player, key, answers, table) -> str:
        game, seats, players, live = table.game, table.seats, table.players, table.take()
        names = seat_names(seats, players)
        # the first move hands this read to the door (play.submit's `seen`), which keeps the
        # state in the cache and reads no more before its write
        lines = inc.lines or _subject_command(inc.subject)
        answer = SeatAnswer(lambda ctx: [_fitted(self._reply(inc, seat, player, key, ctx,
                                                             lines, None, names, game))], key)
        # ctx.state is `live` itself, not a copy, until a command gives a newer one: no other
        # thread sees it before the door (or the `finally`) keeps it in the cache
        ctx = Context(self.store, player, seat, inc.message_id or key,
                      compose.seen_seq(inc.in_reply_to, seat.game_id, seat.seat),
                      live, seen=Seen.at_table(live, seats, players), answer=answer)
        try:
            error = run(ctx, lines, once(AT_SEAT, key, ONCE)) if lines else None
            if ctx.answered and not error:
                answers.recorded = True
                return "done"
            answers.rows.append(self._reply(inc, seat, player, key, ctx, lines, error, names))
            return "refused" if error else ("done" if lines else "no command")
        except IntegrityError as e:
            if "inbound" not in str(e.orig).lower():
                raise
            answers.recorded = True  # the same mail, delivered twice at once: its twin
            return "duplicate"  # answered (and moved: this move's write is undone)
        finally:
            if ctx.seen is not None:  # no move took it (kept only once read for the answer)
                self.store.keep(seat.game_id, live)

    def _stranger(self, inc, key, player=None) -> str:
        """Someone we do not know may ask to join a league: the confirmation link goes to
        their address (as a mailing list's does). Nothing else, and no other answer: we
        write only to registered players. A known player's `join` at plain pbem@ goes the
        same way (`player`: its entry's name)."""
        ctx = Context(self.store, player, None, inc.message_id or key, sender=inc.sender)
        lines = inc.lines or _subject_command(inc.subject)
        if not lines or aliases.name(lines[0].split(" ", 1)[0]) not in {c.name for c in STRANGERS}:
            return "unknown sender"
        return "refused" if run(ctx, lines[:1], STRANGERS) else "done"

    def _account(self, inc, player, key, out) -> str:
        return self._commands(inc, player, key, out, ACCOUNT_HERE, None)

    def _organiser(self, inc, player, league, key, out) -> str:
        return self._commands(inc, player, key, out, AT_ORGANISER, league)

    def _commands(self, inc, player, key, out, commands, league) -> str:
        """A keyed address's commands, done; the answer goes to the player's address, and a
        reply to it comes back to the same keyed address."""
        ctx = Context(self.store, player, None, inc.message_id or key, sender=inc.sender,
                      league=league.id if league else None)
        lines = inc.lines or _subject_command(inc.subject)
        error = run(ctx, lines, once(commands, key, ONCE)) if lines else None
        here = (organiser_address(league, self.cfg.mail_domain) if league else
                account_address(player, self.cfg.mail_domain))
        with language(prefs.language(ctx.player or player)):  # as `lang` may have just set
            text = summary(ctx, lines, error, commands)
            subject = "Re: " + (inc.subject or gettext("your mail"))
            out.append(self._send(key, player.email, subject, text, inc.message_id, None, here))
        return "refused" if error else "done"

    def _plain(self, inc, player, key, out) -> str:
        """Plain pbem@ from a known player's address: a `join` goes as a stranger's (only a
        confirmation link to that address); anything else acts on nothing, and the
        address's owner gets, once an hour at most, their account address and a link that
        does what the mail asked (pbem.mail.plain)."""
        lines = inc.lines or _subject_command(inc.subject)
        if lines and aliases.name(lines[0].split(" ", 1)[0]) in {c.name for c in STRANGERS}:
            done = self._stranger(inc, key, player)
            if done == "done":  # else the answer below says where to write
                return done
        # only lines that name an account command go in the answer and its link: the rest
        # may be a forger's words, which we do not carry to the address's owner
        ours = [" ".join(x.split())[:100] for x in lines
                if aliases.name(x.split(" ", 1)[0]) in ACCOUNT_NAMES]
        row = plain_answer(self.store, self.cfg, player, ours, inc.subject)
        if row is None:
            return "plain address: answered within the hour"
        out.append(row)
        return "plain address: answered"

    def _reply(self, inc, seat, player, key, ctx, lines, error, names, game=None) -> dict:
        with language(prefs.language(ctx.player or player)):  # as `lang` may have just set
            return self._reply_here(inc, seat, player, key, ctx, lines, error, names, game)

    def _reply_here(self, inc, seat, player, key, ctx, lines, error, names, game=None) -> dict:
        """Every answer to a seat's mail shows the table and the moves legal now, text and
        HTML, threaded under the mail (and so the turn mail) it answers. `game`: the answer
        is written with the mail's move, from the table it left; where that is the seat's
        turn it is the turn mail too (pbem.notify.answer_stands, which sends none then):
        the deadline, and a turn mail's Message-ID, so a reply to it is read as one."""
        st = ctx.state
        # a move's write that left this very table (a line before the last: its write sent
        # the seat no turn mail, acting.Deferring) makes the answer the turn mail too
        asked = ctx.asked if ctx.asked is not None and ctx.asked.st.seq == st.seq else None
        game = game or (asked.game if asked is not None else None)
        turn = asked is not None and game is not None and answer_stands(game, st, seat.seat)
        said = {"done": ctx.done, "error": failure(error, lines),
                "text": summary_text(ctx, lines, SEAT_COMMANDS)}
        subject = gettext("Game %(game)s: %(outcome)s") % {
            "game": seat.game_id, "outcome": outcome(ctx, lines, error)}
        if turn:  # what the turn mail would tell, as the move's write arms it
            values = turn_values(self.cfg, ctx.asked, seat)  # the write's Table
            subject = gettext("Game %(game)s: %(outcome)s; %(turn)s") % {
                "game": seat.game_id, "outcome": outcome(ctx, lines, error),
                "turn": your_turn(st, seat.seat)}
        else:
            if ctx.player is not None:  # a `name` line of this mail: its answer shows it
                names = [ctx.player.name if i == seat.seat else n for i, n in enumerate(names)]
            v = compose.context(view(st, seat.seat), seat.game_id, names,
                                st.table)
            link = link_maker(self.cfg, seat.game_id, seat.seat, st.seq)
            values = {"v": v, "names": names, "due": None,
                      "moves": compose.moves(v, reply_address(self.cfg, seat), link),
                      "table_url": f"{self.cfg.base_url}/t/{seat.token}",
                      "for_you": played_for(asked, seat.seat) if asked else [],
                      "settled": settled_news(asked) if asked else ""}
        values.update(said)
        row = mail_row(self.cfg, seat, player, f"reply:{key}"[:200], subject,
                       compose.render("reply.txt", **values),
                       compose.render("reply.html", **values))
        row["headers"].update(self._thread(inc, seat.game_id), **{"Auto-Submitted": "auto-replied"})
        if turn:
            row["headers"]["Message-ID"] = compose.turn_message_id(
                seat.game_id, seat.seat, st.seq, self.cfg.mail_domain)
        return row

    def _thread(self, inc, game_id) -> dict:
        """In-Reply-To: the player's mail; References: the game's root, our mails the
        player's mail names (the turn mail it answers), then the player's mail."""
        domain = f"@{self.cfg.mail_domain}>".lower()
        theirs = inc.message_id if (inc.message_id or "").startswith("<") else None
        ours = [x for x in inc.in_reply_to if x.lower().endswith(domain)][-5:]
        refs = [compose.thread_root(game_id, self.cfg.mail_domain), *ours]
        refs = list(dict.fromkeys(refs + [theirs] if theirs else refs))
        return {"In-Reply-To": refs[-1], "References": " ".join(refs)}

    def _refuse_unverified(self, inc, seat, player, key, why):
        game = seat.game_id if seat else None
        text = gettext("A mail from your address was not obeyed: %(why)s. Nothing was done. If "
                       "you sent it, your mail provider may be rewriting it; write to us from "
                       "its own web or app client.") % {"why": why} + "\n"
        reply_to = (reply_address(self.cfg, seat) if seat else
                    account_address(player, self.cfg.mail_domain))
        subject = (gettext("Game %(game)s: a mail was not obeyed") % {"game": game} if game
                   else gettext("A mail was not obeyed"))
        return self._send(key, player.email, subject, text, inc.message_id, game, reply_to)

    def _warn_forged_keyed(self, inc, player, key):
        text = gettext("A mail to one of your secret addresses came from %(sender)s, not from "
                       "your address, so it was ignored. Write from %(address)s to be obeyed."
                       ) % {"sender": inc.sender, "address": player.email} + "\n"
        return self._send(key, player.email, gettext("A mail was ignored"), text, None, None,
                          account_address(player, self.cfg.mail_domain))

    def _warn_forged(self, inc, seat, player, key):
        values = {"game": seat.game_id, "sender": inc.sender, "address": player.email}
        text = gettext("A mail for your seat in game %(game)s came from %(sender)s, not from "
                       "your address, so it was ignored. Reply from %(address)s to play."
                       ) % values + "\n"
        return self._send(key, player.email, gettext("Game %(game)s: a mail was ignored") % values,
                          text,
                          None, seat.game_id, reply_address(self.cfg, seat))

    def _send(self, key, to, subject, text, in_reply_to, game_id, reply_to) -> dict:
        """An answer's Outbox row."""
        if in_reply_to and not in_reply_to.startswith("<"):
            in_reply_to = None  # a Message-ID too long to keep is kept as a hash, not an id
        root = compose.thread_root(game_id, self.cfg.mail_domain) if game_id else None
        refs = " ".join(x for x in (root, in_reply_to) if x)
        headers = {"Reply-To": reply_to, "Auto-Submitted": "auto-replied",
                   "Content-Language": current()}
        if in_reply_to or root:
            headers.update({"In-Reply-To": in_reply_to or root, "References": refs})
        mail = (compose.game_mail(game_id, self.cfg.mail_domain, subject, text) if game_id
                else {"subject": subject, "body_text": text})
        return dict(mail, to_addr=to, headers=headers, dedupe_key=f"reply:{key}"[:200])


class Table:
    """A seat mail's game as read with its seat: the game, its seats and players, and its
    state (`live`, the cache's: whoever `take`s it keeps it back or hands it to the door)."""

    def __init__(self, game, seats, players, live, seen=None):
        self.game, self.seats, self.players, self.live = game, seats, players, live
        self.seen = seen  # the mail `read` was given was taken before (None: not asked)

    @classmethod
    def read(cls, store, by: str, value, key: str | None = None) -> "Table | None":
        """The table of the game `by` names ("g": its id, "t": a seat's token), None if
        none: one SELECT in a reader session, and the state from the cache (caught up in
        the same session if need be). `key`: the SELECT says too whether that mail was
        taken before (`seen`)."""
        with store.reader() as s:
            rows = s.exec(_TABLE_OF[by], params={by: value, "k": key}).all()
            if not rows:
                return None
            game, last = rows[0][0], rows[0][3] or 0
            live = store.state(s, game, last)
        seen = bool(rows[0][4]) if key is not None else None
        players = {r[2].id: r[2] for r in rows if r[2] is not None}
        return cls(game, [r[1] for r in rows], players, live, seen)

    def take(self):
        live, self.live = self.live, None
        return live


class Answers:
    """A mail's answers (Outbox rows) to write with its Inbound row; `recorded` once a move
    wrote them in its own transaction."""

    def __init__(self):
        self.rows: list[dict] = []
        self.recorded = False


class SeatAnswer:
    """A seat mail's answer, for the move that commits it (commands.base.Context.answer)."""

    def __init__(self, rows, key: str):
        self.rows, self.key = rows, key  # rows(ctx): the answer's Outbox rows (pure)

    def record(self, s) -> None:
        s.connection().execute(insert(Inbound), {"message_id": self.key, "result": "done"})


def _fitted(row: dict) -> dict:
    row["subject"] = " ".join(row["subject"].split())[:250]
    return row


def _write_answers(s, key: str, outcome: str, rows: list[dict]) -> None:
    """The answers and the mail's Inbound row, in `s` (the caller commits)."""
    if rows:  # the ORM's bulk INSERT: rows that name different columns
        s.exec(insert(Outbox), params=[_fitted(row) for row in rows])
    s.connection().execute(insert(Inbound), {"message_id": key, "result": outcome[:40]})


def _subject_command(subject: str) -> list[str]:
    """A command in the subject counts when the body has none (normalised as a body's line
    is: `ｂｉｄ　４` is `bid 4`)."""
    subject = for_reading(" ".join(subject.split()))
    word = subject.split(" ", 1)[0] if subject else ""
    if aliases.name(word) in NAMES:  # "hilfe" is "help"
        return [subject]
    try:
        parse_action(subject)
    except ValueError:
        return []
    return [subject]


def outcome(ctx, lines, error) -> str:
    """The reply's subject says what happened: "you played 10♥", "you bid 4; not done: QS",
    "nothing done"."""
    # a repeat was our own earlier try of this mail, never answered: told as done
    new = [did(a) for a, _repeat in ctx.moves] + ctx.ahead
    said = gettext("you %(did)s") % {"did": listing(new)} if new else ""
    if error:
        line = error[0] if len(error[0]) <= 40 else error[0][:39] + "…"
        refused = gettext("not done: %(line)s") % {"line": line}
        return gettext("%(done)s; %(refused)s") % {"done": said, "refused": refused} \
            if said else refused
    if said:
        return said
    if not lines:
        return gettext("nothing done: no command found")
    if ctx.want_help:
        return gettext("help")
    if any(d.startswith("status") for d in ctx.done):
        return gettext("your table")
    return gettext("your games")


OK = "250 2.0.0 OK: message accepted"
LATER = "451 4.3.0 Temporary failure: try again later"
# the database away, or the machine short of something (descriptors, disk, memory): a relay
# keeps the mail and tries again, where a 5xx would bounce it
TRANSIENT = (OperationalError, OSError, MemoryError)


class Handler:
    """aiosmtpd handler; the database work runs in a thread so the loop stays free."""

    def __init__(self, processor: Processor):
        self.processor = processor

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        try:
            ok = await asyncio.to_thread(self.processor.known, address)
        except TRANSIENT as e:
            log.warning("could not look up a recipient now: %s", type(e).__name__)
            return LATER
        except Exception:  # never aiosmtpd's "500 Error: (type) text", which shows our paths
            log.exception("could not look up the recipient %r", address[:300])
            return LATER
        if not ok:
            return "550 5.1.1 No such recipient here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        codes = [await self._deliver(envelope.mail_from or "", rcpt, raw)
                 for rcpt in envelope.rcpt_tos]
        if isinstance(server, LMTP):  # one answer per accepted recipient, in RCPT order
            return "\r\n".join(codes)
        # SMTP has one answer for all: retry if any may succeed later (a repeat applies
        # nothing twice), refuse only if none was delivered
        retry = [c for c in codes if c.startswith("4")]
        if retry:
            return retry[0]
        return codes[0] if all(c.startswith("5") for c in codes) else OK

    async def _deliver(self, mail_from, rcpt, raw) -> str:
        try:
            await asyncio.to_thread(shunt.taken, self.processor, mail_from, rcpt, raw)
        except TRANSIENT as e:  # its text may hold the statement's values: the type only
            log.warning("could not take a mail for %s now (%s): the sender will retry",
                        rcpt, type(e).__name__)
            return LATER
        except ForgedSender as e:  # no reply: it would go where the forger chose
            log.warning("refused a mail whose From names no one sender: %s", e)
            return f"550 5.7.1 This mail's From must name exactly one address: {e}"
        except Unreadable as e:
            log.warning("refused a mail for %s: %s", rcpt, e)
            return f"554 5.6.0 This mail cannot be read: {e}"
        except Exception:  # a bug: the mail is kept to be replayed, and the sender retries
            log.exception("failed to process a mail for %s", rcpt)
            return await asyncio.to_thread(shunt.shunted, self.processor.cfg, mail_from,
                                           rcpt, raw, traceback.format_exc())
        return OK


class _Controller(Controller):
    def __init__(self, handler, lmtp=False, **kw):
        self.lmtp = lmtp
        super().__init__(handler, data_size_limit=MAX_SIZE, **kw)

    def factory(self):
        return protocol(self.handler, self.lmtp, self.hostname)


def protocol(handler: Handler, lmtp: bool, hostname: str) -> SMTP:
    """The protocol of one connection: SMTP, or LMTP behind Postfix (aiosmtpd's own, with
    its own address parser)."""
    cls = LMTP if lmtp else SMTP
    return cls(handler, data_size_limit=MAX_SIZE, hostname=hostname)


def controller(store, cfg, host: str, port: int, lmtp: bool = False) -> Controller:
    """A started-on-demand server for our handler (call .start() and .stop())."""
    return _Controller(Handler(Processor(store, cfg)), lmtp=lmtp, hostname=host, port=port)
