"""A seat's own commands (status, say, note, undo, resign, orders, a move) act on the seat a
mail came to, so they run only at a seat's address: at the account address, the organiser
address, plain pbem@ and its link there is no seat, and such a line is refused there and
changes nothing (issue 30: `Command.seat_only` was set and never read; the lists of
commands each address runs are what keep these commands at a seat). Through the running
SMTP handler and the web app, on SQLite and PostgreSQL."""

import re
from email.utils import make_msgid

from mail_helpers import ANN, account, game, running, text
from web_helpers import BASE, csrf, database

from pbem.config import load
from pbem.mail.commands.games import Games
from pbem.mail.commands.help import Help
from pbem.mail.commands.registry import ACCOUNT_HERE, AT_ORGANISER, SEAT_COMMANDS, STRANGERS
from pbem.web.app import create_app

# one line for each of the seat's own commands, orders in each form, and moves
SEAT_LINES = ["status", "say hello all", "note my own words", "undo", "resign", "resign off",
              "orders", "clear orders", "play QH then KH", "follow low in clubs", "cover",
              "bid 4", "nil", "play QH", "claim"]
LINK = re.compile(re.escape(BASE) + r"(/a/\S+)")


def _still(store) -> dict:
    """Every row but the outbox and the records of mails taken and sent."""
    return {k: v for k, v in database(store).items()
            if k not in ("outbox", "inbound", "webmail")}


def test_no_address_without_a_seat_runs_a_seats_command():
    shared = (Help, Games)  # the seat's own help and games need no seat
    own = [c for c in SEAT_COMMANDS if not isinstance(c, shared)]
    assert len(own) == 8  # status, say, note, hint, undo, resign, orders and the move
    for commands in (ACCOUNT_HERE, AT_ORGANISER, STRANGERS):
        assert all(c.name for c in commands)  # no fallback: a line no command names is refused
        assert not [c for c in commands if any(type(c) is type(o) for o in own)]


def test_a_seats_command_at_the_account_address_is_refused_and_changes_nothing(
        store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as env:
        game(store)
        env.replies()
        before = _still(store)
        for line in SEAT_LINES:
            mail = env.mail(account(env, ANN), line, mid=make_msgid())
            assert env.send(mail)[0] == 250, line
            [answer] = env.replies()
            assert answer["To"] == ANN
            assert "is not a command here: write help" in " ".join(text(answer).split()), line
            assert _still(store) == before, line


def test_a_seats_command_never_reaches_the_link_plain_pbem_earns(store, monkeypatch,
                                                                  tmp_path):
    monkeypatch.setenv("PBEM_BASE_URL", BASE)
    with running(store, monkeypatch, tmp_path) as env:
        game(store)
        env.replies()
        before = _still(store)
        body = "\n".join(["undo", "bid 4", "resign", "say hi", "zone Europe/Paris"])
        assert env.send(env.mail(f"pbem@{env.domain}", body))[0] == 250
        [mail] = env.replies()
        path = LINK.search(text(mail))[1]
        client = create_app(load(), store, testing=True).test_client()
        page = client.get(path).text
        assert "zone Europe/Paris" in page
        assert not [w for w in ("undo", "bid 4", "resign", "say hi") if w in page]
        assert client.post(path, data={"csrf": csrf(client)}).status_code == 303
        after = _still(store)
        assert after.pop("player") != before.pop("player")  # the zone, only
        after.pop("confirmation")
        before.pop("confirmation")
        assert after == before  # no move, order, talk or resignation
