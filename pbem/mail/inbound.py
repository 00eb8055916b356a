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
from collections import namedtuple

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP
from sqlalchemy import bindparam, exists, func, inspect
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import aliased, class_mapper
from sqlmodel import select

from .. import compose
from ..engine import parse_action, view
from ..league.seasons import tell_organisers
from ..notify import (
    answer_stands,
    link_maker,
    mail_row,
    reply_address,
    seat_names,
    turn_subject,
    turn_values,
)
from ..play import Seen
from ..signing import secret_keys
from ..store import bounces
from ..store.accounts import account_address, keyed, organiser_address
from ..store.bulk import insert_all, result_processor
from ..store.games import GAME_ON_FIRST_SEAT
from ..store.masking import MaskKeys
from ..store.models import Game, Inbound, League, Move, Outbox, Player, Seat
from . import shunt
from .authres import verdict
from .bounce import classify
from .commands import (
    ACCOUNT_COMMANDS,
    SEAT_COMMANDS,
    Command,
    CommandError,
    Context,
    Help,
    did,
    help_text,
    run,
)
from .league_commands import LEAGUE_COMMANDS
from .once import once
from .organiser_commands import ORGANISER_COMMANDS
from .plain import plain_answer
from .reader import ForgedSender, Incoming, Unreadable, read

log = logging.getLogger(__name__)
log.addFilter(MaskKeys())  # its lines name recipients: play+...@, never the seat's token

MAX_SIZE = 1_000_000  # bytes; a bigger mail is refused with 552
_TOKEN = select(Seat.id).where(Seat.token == bindparam("t"))
_BY_TOKEN = aliased(Seat)


def _table(*entities):
    """A seat mail's table in one statement: the game, its seats (in order) with their
    players, and its last seq; the game and its last seq on the first seat's row only (NULL
    on the others): its JSON is decoded once."""
    return (select(*entities, select(func.max(Move.seq)).where(Move.game_id == Game.id)
                   .scalar_subquery())
            .select_from(Seat).join(Game, GAME_ON_FIRST_SEAT, isouter=True)
            .join(Player, Player.id == Seat.player_id, isouter=True).order_by(Seat.seat))


def _of_game(statement):
    return statement.where(Seat.game_id == bindparam("g"))


def _of_token(statement):
    return statement.where(Seat.game_id == select(_BY_TOKEN.game_id).where(
        _BY_TOKEN.token == bindparam("t")).scalar_subquery())


# by the game's id, or by one of its seats' tokens: the ORM's read (in a reader session),
# and the same columns for Store.quick_rows (no session: `Table.read`)
_MODELS = (Game, Seat, Player)
_ORM = _table(*_MODELS)
_TABLE_OF_GAME, _TABLE_OF_TOKEN = _of_game(_ORM), _of_token(_ORM)
_COLUMNS = [list(m.__table__.columns) for m in _MODELS]
# and whether the mail keyed `k` was taken before (`_SEEN`): one round trip, not two
_QUICK = _table(*[c for cols in _COLUMNS for c in cols]).add_columns(
    exists().where(Inbound.message_id == bindparam("k")))
_QUICK_OF = {"g": _of_game(_QUICK), "t": _of_token(_QUICK)}
_SEEN = select(Inbound.id).where(Inbound.message_id == bindparam("k"))
ACCOUNT = ACCOUNT_COMMANDS + LEAGUE_COMMANDS + ORGANISER_COMMANDS  # every name, for subjects
STRANGERS = [c for c in ACCOUNT if c.strangers]
_KEYED = {"account": select(Player.id).where(Player.account_key == bindparam("k")),
          "organiser": select(League.id).where(League.organiser_key == bindparam("k"))}


class Elsewhere(Command):
    """An organiser's command where it is not taken: the answer says where it is."""

    def __init__(self, name: str):
        self.name = name

    def process(self, ctx, args):
        raise CommandError(f"{self.name} is an organiser's command: it is taken only at "
                           "the league's organiser address (organiser+KEY@...), which the "
                           "organiser's page and the organiser's mails show")


ELSEWHERE = [Elsewhere(c.name) for c in ORGANISER_COMMANDS]
# the account address's commands; a seat takes them too, after its own (a seat's `help` and
# `games` first)
ACCOUNT_HERE = ACCOUNT_COMMANDS + LEAGUE_COMMANDS + ELSEWHERE
_SEAT_NAMES = {c.name for c in SEAT_COMMANDS}
AT_SEAT = [c for c in SEAT_COMMANDS if c.name] + [
    c for c in ACCOUNT_HERE if c.name not in _SEAT_NAMES] + [
    c for c in SEAT_COMMANDS if not c.name]
AT_ORGANISER = [Help(), *ORGANISER_COMMANDS]
_ACCOUNT_NAMES = {c.name for c in ACCOUNT_COMMANDS + LEAGUE_COMMANDS}
# what commits line by line with no key of its own: done once a line (pbem.mail.once)
_ONCE = _ACCOUNT_NAMES | {c.name for c in ORGANISER_COMMANDS}


class Place:
    """Which of our addresses a mail came to: "seat", "account", "organiser" (with its
    league) or "plain" (pbem@ itself)."""

    def __init__(self, kind: str, league: League | None = None):
        self.kind, self.league = kind, league


SEAT, PLAIN = Place("seat"), Place("plain")


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

    def _keyed_id(self, kind: str, key: str) -> int | None:
        """The player (account) or league (organiser) that owns `key`."""
        try:  # as `known`'s seat: one SELECT, without a session or the ORM
            rows = self.store.quick_rows(_KEYED[kind], k=key)
        except Exception:  # the driver's own errors: the session's read says what failed
            with self.store.reader() as s:
                rows = s.connection().execute(_KEYED[kind], {"k": key}).all()
        return rows[0][0] if rows else None

    def bounced(self, address: str) -> Outbox | None:
        """The mail whose bounces `address` takes, if it is one of ours, signed."""
        return bounces.row_for(self.store, self.keys, address, self.cfg.mail_domain)

    def known(self, address: str) -> bool:
        if address.lower().startswith(bounces.PREFIX):
            return self.bounced(address) is not None
        if address.lower() == f"pbem@{self.cfg.mail_domain}".lower():
            return True
        if (kind_key := keyed(address, self.cfg.mail_domain)) is not None:
            return self._keyed_id(*kind_key) is not None
        local, _, domain = address.lower().rpartition("@")
        if domain != self.cfg.mail_domain.lower() or not local.startswith("play+"):
            return False
        try:  # every mail's RCPT asks: one SELECT, without a session or the ORM
            return bool(self.store.quick_rows(_TOKEN, t=local[5:]))
        except Exception:  # the driver's own errors: the session's read says what failed
            return self.seat_for(address) is not None

    def process(self, envelope_from: str, rcpt: str, raw: bytes) -> str:
        """Handle the mail for `rcpt`; returns what was done (for the log and tests)."""
        inc = read(raw, envelope_from, self.cfg.mail_domain)
        key = f"{rcpt.lower()} {inc.message_id or hashlib.sha256(raw).hexdigest()}"
        if len(key) > 190:  # fits every column it keys (Outbox.dedupe_key is 200)
            key = "sha256:" + hashlib.sha256(key.encode()).hexdigest()
        bounce = rcpt.lower().startswith(bounces.PREFIX)  # never answered, nor read as commands
        who = None
        if bounce or inc.ignore:
            if self._seen(key):
                return "duplicate"
        elif (who := self._who(inc, rcpt, key)) is None:
            return "duplicate"
        answers = Answers()  # our answers' Outbox rows, written with the Inbound row
        try:
            if bounce:
                outcome = self._bounce(rcpt, raw)
            else:
                outcome = inc.ignore or self._answer(inc, key, *who, answers)
        finally:
            if who and who[2] and who[2].live is not None:  # read, but no seat's mail took it
                self.store.keep(who[0].game_id, who[2].live)
        if answers.recorded:  # with the move, in its transaction
            return outcome
        return self._record(key, outcome, answers.rows)

    def _seen(self, key: str) -> bool:
        """Was this mail taken before? One SELECT without a session, as `known`'s (the
        Inbound row's unique key is what keeps a mail delivered twice at once from being
        taken twice: pbem.mail.inbound._record, SeatAnswer)."""
        try:
            return bool(self.store.quick_rows(_SEEN, k=key))
        except Exception:  # the driver's own errors: the session's read says what failed
            with self.store.reader() as s:
                return s.connection().execute(_SEEN, {"k": key}).first() is not None

    def _who(self, inc: Incoming, rcpt: str, key: str) -> tuple | None:
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
        seen = table.seen if table is not None else None
        if seen is None:  # no table, or one read without its quick SELECT
            seen = self._seen(key)
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
            error = run(ctx, lines, once(AT_SEAT, key, _ONCE)) if lines else None
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
        if not lines or lines[0].split(" ", 1)[0].lower() not in {c.name for c in STRANGERS}:
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
        error = run(ctx, lines, once(commands, key, _ONCE)) if lines else None
        text = summary(ctx, lines, error, commands)
        here = (organiser_address(league, self.cfg.mail_domain) if league else
                account_address(player, self.cfg.mail_domain))
        out.append(self._send(key, player.email, "Re: " + (inc.subject or "your mail"), text,
                              inc.message_id, None, here))
        return "refused" if error else "done"

    def _plain(self, inc, player, key, out) -> str:
        """Plain pbem@ from a known player's address: a `join` goes as a stranger's (only a
        confirmation link to that address); anything else acts on nothing, and the
        address's owner gets, once an hour at most, their account address and a link that
        does what the mail asked (pbem.mail.plain)."""
        lines = inc.lines or _subject_command(inc.subject)
        if lines and lines[0].split(" ", 1)[0].lower() in {c.name for c in STRANGERS}:
            done = self._stranger(inc, key, player)
            if done == "done":  # else the answer below says where to write
                return done
        # only lines that name an account command go in the answer and its link: the rest
        # may be a forger's words, which we do not carry to the address's owner
        ours = [" ".join(x.split())[:100] for x in lines
                if x.split(" ", 1)[0].lower().rstrip(":") in _ACCOUNT_NAMES]
        row = plain_answer(self.store, self.cfg, player, ours, inc.subject)
        if row is None:
            return "plain address: answered within the hour"
        out.append(row)
        return "plain address: answered"

    def _reply(self, inc, seat, player, key, ctx, lines, error, names, game=None) -> dict:
        """Every answer to a seat's mail shows the table and the moves legal now, text and
        HTML, threaded under the mail (and so the turn mail) it answers. `game`: the answer
        is written with the mail's move, from the table it left; where that is the seat's
        turn it is the turn mail too (pbem.notify.answer_stands, which sends none then):
        the deadline, and a turn mail's Message-ID, so a reply to it is read as one."""
        st = ctx.state
        turn = game is not None and answer_stands(game, st, seat.seat)
        said = {"done": ctx.done, "error": _error(error, lines),
                "text": _summary_text(ctx, lines, SEAT_COMMANDS)}
        subject = f"Game {seat.game_id}: " + outcome(ctx, lines, error)
        if turn:  # what the turn mail would tell, as the move's write arms it
            values = turn_values(self.cfg, ctx.asked, seat)  # the write's Table
            subject = f"{turn_subject(seat.game_id, st.seq)}, {outcome(ctx, lines, error)}"
        else:
            v = compose.context(view(st, seat.seat), seat.game_id, names)
            link = link_maker(self.cfg, seat.game_id, seat.seat, st.seq)
            values = {"v": v, "names": names, "due": None,
                      "moves": compose.moves(v, reply_address(self.cfg, seat), link),
                      "table_url": f"{self.cfg.base_url}/t/{seat.token}"}
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
        text = (f"A mail from your address was not obeyed: {why}. Nothing was done. If you "
                "sent it, your mail provider may be rewriting it; write to us from its own "
                "web or app client.\n")
        reply_to = (reply_address(self.cfg, seat) if seat else
                    account_address(player, self.cfg.mail_domain))
        subject = (f"Game {game}: " if game else "") + "a mail was not obeyed"
        return self._send(key, player.email, subject, text, inc.message_id, game, reply_to)

    def _warn_forged_keyed(self, inc, player, key):
        text = (f"A mail to one of your secret addresses came from {inc.sender}, not from "
                f"your address, so it was ignored. Write from {player.email} to be obeyed.\n")
        return self._send(key, player.email, "A mail was ignored", text, None, None,
                          account_address(player, self.cfg.mail_domain))

    def _warn_forged(self, inc, seat, player, key):
        text = (f"A mail for your seat in game {seat.game_id} came from {inc.sender}, not from "
                f"your address, so it was ignored. Reply from {player.email} to play.\n")
        return self._send(key, player.email, f"Game {seat.game_id}: a mail was ignored", text,
                          None, seat.game_id, reply_address(self.cfg, seat))

    def _send(self, key, to, subject, text, in_reply_to, game_id, reply_to) -> dict:
        """An answer's Outbox row."""
        if in_reply_to and not in_reply_to.startswith("<"):
            in_reply_to = None  # a Message-ID too long to keep is kept as a hash, not an id
        root = compose.thread_root(game_id, self.cfg.mail_domain) if game_id else None
        refs = " ".join(x for x in (root, in_reply_to) if x)
        headers = {"Reply-To": reply_to, "Auto-Submitted": "auto-replied"}
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
        none: one SELECT without a session (Store.quick_rows: one snapshot, no BEGIN or
        ROLLBACK), and the state from the cache. Only a state the cache lacks, or holds at
        another seq, takes a reader session, which reads the table again with it. `key`:
        the SELECT says too whether that mail was taken before (`seen`)."""
        try:
            rows = store.quick_rows(_QUICK_OF[by], **{by: value, "k": key})
        except OperationalError:  # the database away (tried twice): a session would wait again
            raise
        except Exception:  # the driver's own errors: the session's read says what failed
            rows = None
        if rows == []:
            return None
        seen = bool(rows[0][-1]) if rows and key is not None else None
        if rows:
            table = cls._built(store.engine.dialect, rows)
            table.live, table.seen = store.cached(table.game.id, rows[0][-2] or 0), seen
            if table.live is not None:
                return table
        with store.reader() as s:
            table = cls.read_in(s, store, by, value)
        if table is not None:
            table.seen = seen
        return table

    @classmethod
    def read_in(cls, s, store, by: str, value) -> "Table | None":
        """`read` in the reader session `s`, by the ORM, with the state (read if need be)."""
        statement = _TABLE_OF_GAME if by == "g" else _TABLE_OF_TOKEN
        rows = s.exec(statement, params={by: value}).all()
        if not rows:
            return None
        game = rows[0][0]
        return cls(game, [r[1] for r in rows], {p.id: p for _, _, p, _ in rows if p},
                   store.state(s, game, rows[0][3] or 0))

    @classmethod
    def _built(cls, dialect, rows) -> "Table":
        """The quick SELECT's rows as the game the ORM's read gives, and its seats and
        players as `SeatRow`s and `PlayerRow`s (no state yet)."""
        (gk, sk, pk), (gp, sp, pp) = _KEYS, _processors(dialect)
        ng, ns, np_ = len(gk), len(sk), len(pk)
        game = _game(gk, gp, rows[0][:ng])
        seats, players = [], {}
        for r in rows:
            seats.append(SeatRow._make(_processed(sp, r[ng:ng + ns])))
            player_id = r[ng + ns]
            if player_id is not None and player_id not in players:
                players[player_id] = PlayerRow._make(_processed(pp, r[ng + ns:ng + ns + np_]))
        return cls(game, seats, players, None)

    def take(self):
        live, self.live = self.live, None
        return live


_KEYS = [[c.key for c in cols] for cols in _COLUMNS]
# A seat mail reads its seats and players, never changes them (play._once adds only the
# game to its write; a hand-over loads its own seats): read-only rows by column name cost a
# fifth of an ORM instance, and a session refuses them (not mapped) and so does setattr.
SeatRow = namedtuple("SeatRow", _KEYS[1])
PlayerRow = namedtuple("PlayerRow", _KEYS[2])
_GAME = class_mapper(Game)
_PROCESSORS: dict = {}  # each column's result processor, by dialect


def _processors(dialect) -> list[list]:
    """The quick SELECT's columns' result processors for `dialect`: what the ORM's result
    applies (JSON on SQLite, SQLite's datetimes and bools, UTCDateTime); None: as is."""
    key = (dialect.name, dialect.driver)
    got = _PROCESSORS.get(key)
    if got is None:
        got = _PROCESSORS[key] = [[result_processor(c.type, dialect) for c in cols]
                                  for cols in _COLUMNS]
    return got


def _game(keys, processors, values) -> Game:
    """The game as the ORM's load makes it: built without __init__ (as SQLAlchemy does),
    its values processed as the ORM's result processes them, and detached with its identity
    key: a session `add`s it back as the row it is, never as a new one. (What
    make_transient_to_detached does, less its resets of a state that has nothing to reset:
    a third of the cost.)"""
    obj = _GAME.class_manager.new_instance()
    obj.__dict__.update(zip(keys, _processed(processors, values), strict=True))
    inspect(obj).key = _GAME.identity_key_from_primary_key((obj.id,))
    return obj


def _processed(processors, values) -> list:
    return [v if f is None else f(v) for f, v in zip(processors, values, strict=True)]


class Answers:
    """A mail's answers (Outbox rows) to write with its Inbound row; `recorded` once a move
    wrote them in its own transaction."""

    def __init__(self):
        self.rows: list[dict] = []
        self.recorded = False


class SeatAnswer:
    """A seat mail's answer, for the move that commits it (commands.Context.answer)."""

    def __init__(self, rows, key: str):
        self.rows, self.key = rows, key  # rows(ctx): the answer's Outbox rows (pure)

    def record(self, s) -> None:
        insert_all(s, Inbound, [{"message_id": self.key, "result": "done"}])


def _fitted(row: dict) -> dict:
    row["subject"] = " ".join(row["subject"].split())[:250]
    return row


def _write_answers(s, key: str, outcome: str, rows: list[dict]) -> None:
    """The answers and the mail's Inbound row, in `s` (the caller commits)."""
    insert_all(s, Outbox, [_fitted(row) for row in rows])
    insert_all(s, Inbound, [{"message_id": key, "result": outcome[:40]}])


def _subject_command(subject: str) -> list[str]:
    """A command in the subject counts when the body has none."""
    word = subject.split(" ", 1)[0].lower() if subject else ""
    if word in {c.name for c in SEAT_COMMANDS + ACCOUNT if c.name}:
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
    said = "you " + " and ".join(new) if new else ""
    if error:
        line = error[0] if len(error[0]) <= 40 else error[0][:39] + "…"
        return (said + "; " if said else "") + f"not done: {line}"
    if said:
        return said
    if not lines:
        return "nothing done: no command found"
    if ctx.want_help:
        return "help"
    return "your table" if any(d.startswith("status") for d in ctx.done) else "your games"


def _error(error, lines):
    if not error:
        return None
    line, reason = error
    return {"line": line, "reason": reason, "after": lines.index(line) < len(lines) - 1}


def _summary_text(ctx, lines, commands) -> str:
    if not lines:
        return "I found no command in your mail. You can write:\n" + help_text(commands)
    if ctx.want_help:
        return "You can write (one a line, above or below the quoted text):\n" + help_text(commands)
    return ""


def summary(ctx, lines, error, commands) -> str:
    """What a mail's commands did, line by line: the account's answer (and its link's)."""
    done = "".join(f"Done: {d}\n" for d in ctx.done)
    err = _error(error, lines)
    bad = f"Not done: {err['line']}\n{err['reason']}\n" if err else ""
    return done + bad + _summary_text(ctx, lines, commands)


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
