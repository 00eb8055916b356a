"""The protocol edge (issue 13): LMTP's answer per recipient, one mail to several seats,
headers and structures the parser cannot read, keys longer than their columns, and
out-of-office mail without Auto-Submitted. Real SMTP and LMTP over sockets, a real database
(SQLite, and PostgreSQL when PBEM_TEST_DATABASE_URL is set: its column limits are real)."""

import smtplib
import socket

import pytest
from mail_helpers import (
    ANN,
    account,
    answered,
    crafted,
    done_line,
    headline,
    running,
    snapshot,
    text,
    wire,
)
from sqlmodel import select

from pbem.store.models import Inbound, Move, Outbox


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


@pytest.fixture
def lmtp(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path, lmtp=True) as e:
        yield e


def bids(store, gid) -> list:
    with store.session() as s:
        return [p["bid"] for p in s.exec(select(Move.payload).where(
            Move.game_id == gid, Move.actor == 0, Move.type == "bid")).all()]


def keys_fit(store):
    """Every key a mail made fits its column (PostgreSQL would refuse it; SQLite keeps it)."""
    with store.session() as s:
        refs = [r for r in s.exec(select(Move.ref)).all() if r]
        ids = s.exec(select(Inbound.message_id)).all()
        dedupe = s.exec(select(Outbox.dedupe_key)).all()
        subjects = s.exec(select(Outbox.subject)).all()
    assert all(len(r) <= 300 for r in refs + ids), max(refs + ids, key=len)
    assert all(len(k) <= 200 for k in dedupe) and all(len(x) <= 300 for x in subjects)


def converse(port: int, lines: list[bytes], replies_after_data: int = 1) -> list[str]:
    """Speak LMTP (or SMTP) line by line over a raw socket; every reply line, as text.
    smtplib.LMTP reads only one reply after DATA (bpo-32803), so this reads them all."""
    out = []
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        f = sock.makefile("rb")

        def reply():
            while True:
                line = f.readline().decode().rstrip("\r\n")
                out.append(line)
                if line[3:4] != "-":
                    return line

        reply()  # greeting
        for line in lines:
            sock.sendall(line)
            for _ in range(replies_after_data if line.endswith(b"\r\n.\r\n") else 1):
                reply()
    return out


def lmtp_session(port, mail_from, rcpts, raw) -> list[str]:
    lines = [b"LHLO client.example.org\r\n", f"MAIL FROM:<{mail_from}>\r\n".encode()]
    lines += [f"RCPT TO:<{r}>\r\n".encode() for r in rcpts]
    data = raw.rstrip(b"\r\n").replace(b"\r\n.", b"\r\n..")  # dot-stuffed
    lines += [b"DATA\r\n", data + b"\r\n.\r\n", b"QUIT\r\n"]
    return converse(port, lines, replies_after_data=len(rcpts))


# ---- one mail, several seats ---------------------------------------------------------------

def test_lmtp_answers_once_per_recipient_and_each_seat_moves_once(lmtp):
    one, _ = crafted(lmtp.store)
    two, _ = crafted(lmtp.store)
    to = [lmtp.address(one), lmtp.address(two)]
    msg = lmtp.mail(", ".join(to), "bid 3", mid="<both@example.org>")
    got = lmtp_session(lmtp.port, ANN, to, wire(msg))
    data = got.index("354 End data with <CR><LF>.<CR><LF>")
    after = got[data + 1:data + 3]
    assert [x[:3] for x in after] == ["250", "250"], got
    assert got[data + 3].startswith("221"), got  # nothing more before QUIT's answer
    assert bids(lmtp.store, one) == [3] and bids(lmtp.store, two) == [3]
    subjects = sorted(done_line(m) for m in lmtp.replies() if answered(m))
    assert subjects == [f"Game {one}: you bid 3", f"Game {two}: you bid 3"]
    # Postfix delivering it again (it timed out waiting for the second answer): no change
    before = (snapshot(lmtp.store, one), snapshot(lmtp.store, two))
    again = lmtp_session(lmtp.port, ANN, to, wire(msg))
    assert [x[:3] for x in again[again.index(got[data]) + 1:][:2]] == ["250", "250"]
    assert (snapshot(lmtp.store, one), snapshot(lmtp.store, two)) == before
    assert lmtp.replies() == []


def test_lmtp_each_recipient_gets_its_own_outcome(lmtp):
    gid, _ = crafted(lmtp.store)
    to = [lmtp.address(gid), account(lmtp, ANN)]
    got = lmtp_session(lmtp.port, ANN, to, wire(lmtp.mail(to[0], "bid 5")))
    data = got.index("354 End data with <CR><LF>.<CR><LF>")
    assert [x[:3] for x in got[data + 1:data + 3]] == ["250", "250"]
    assert bids(lmtp.store, gid) == [5]
    # the account address read "bid 5" too, and said it is not an account command
    answers = [m for m in lmtp.replies() if m["Reply-To"] == to[1]]
    assert len(answers) == 1 and "Not done: bid 5" in text(answers[0])


def test_one_smtp_mail_to_two_seats_moves_in_both_games(env):
    one, _ = crafted(env.store)
    two, _ = crafted(env.store)
    to = [env.address(one), env.address(two)]
    msg = env.mail(", ".join(to), "bid 4", mid="<two-games@example.org>")
    with smtplib.SMTP("127.0.0.1", env.port, timeout=30) as smtp:
        assert smtp.sendmail(ANN, to, wire(msg)) == {}
    assert bids(env.store, one) == [4] and bids(env.store, two) == [4]
    bodies = [text(m) for m in env.replies() if answered(m)]
    assert len(bodies) == 2 and all("bid 4: done" in b for b in bodies), bodies
    with smtplib.SMTP("127.0.0.1", env.port, timeout=30) as smtp:  # delivered twice
        assert smtp.sendmail(ANN, to, wire(msg)) == {}
    assert bids(env.store, one) == [4] and bids(env.store, two) == [4]
    assert env.replies() == []



FAIL_INBOUND = {  # a trigger that makes the database refuse the mail's Inbound row
    "sqlite": ["CREATE TRIGGER lost BEFORE INSERT ON inbound BEGIN INSERT INTO gone VALUES (1); "
               "END"],
    "postgresql": ["CREATE FUNCTION lost() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION "
                   "'connection lost' USING ERRCODE = '08006'; END $$ LANGUAGE plpgsql",
                   "CREATE TRIGGER lost BEFORE INSERT ON inbound FOR EACH ROW EXECUTE "
                   "FUNCTION lost()"],
}


def refuse_inbound(store, on: bool) -> None:
    kind = store.engine.dialect.name
    with store.engine.begin() as c:
        for sql in FAIL_INBOUND[kind] if on else [
                "DROP TRIGGER lost" + (" ON inbound" if kind == "postgresql" else "")]:
            c.exec_driver_sql(sql)


def mails_for(store, gid) -> list:
    with store.session() as s:
        return s.exec(select(Outbox.dedupe_key).where(Outbox.game_id == gid)).all()


def test_an_answer_that_cannot_be_written_is_retried_and_the_move_made_once(env):
    """The move, its answer, the turn mails it makes and the mail's Inbound row are one
    transaction: when the database refuses the Inbound row, the mail gets 451 and nothing
    is there, not even the move. The sender's retry makes the move once and is answered as
    a first try would be."""
    gid, _ = crafted(env.store)
    before = mails_for(env.store, gid)
    refuse_inbound(env.store, True)
    msg = env.mail(env.address(gid), "bid 4", mid="<retried@example.org>")
    assert env.send(msg)[0] == 451
    assert bids(env.store, gid) == []  # a 4xx changes nothing
    assert mails_for(env.store, gid) == before  # neither the answer nor a turn mail
    with env.store.session() as s:
        assert s.exec(select(Inbound)).all() == []
    refuse_inbound(env.store, False)
    assert env.send(msg)[0] == 250
    assert bids(env.store, gid) == [4]
    answers = [m for m in env.replies() if answered(m)]
    assert len(answers) == 1 and "bid 4: done" in text(answers[0]), [text(m) for m in answers]
    assert done_line(answers[0]) == f"Game {gid}: you bid 4"
    assert env.send(msg)[0] == 250  # a third time: seen, nothing more
    assert bids(env.store, gid) == [4] and env.replies() == []


def test_a_retried_mail_of_several_moves_makes_each_once_and_is_answered_as_done(env):
    """Only the last line's move carries the answer: the lines before it commit on their
    own, so a retry finds them applied. They were this mail's own try, never answered: the
    answer tells them as done, not "already done"."""
    gid, _ = crafted(env.store)
    refuse_inbound(env.store, True)
    msg = env.mail(env.address(gid), "say good luck\nbid 4", mid="<two-lines@example.org>")
    assert env.send(msg)[0] == 451
    assert bids(env.store, gid) == []
    refuse_inbound(env.store, False)
    assert env.send(msg)[0] == 250
    with env.store.session() as s:
        said = s.exec(select(Move).where(Move.game_id == gid, Move.type == "say")).all()
    assert len(said) == 1 and bids(env.store, gid) == [4]
    answers = [m for m in env.replies() if answered(m)]
    assert len(answers) == 1, [headline(m) for m in answers]
    body = text(answers[0])
    assert "say good luck: done" in body and "bid 4: done" in body and "already" not in body
    assert done_line(answers[0]) == f"Game {gid}: you spoke at the table and bid 4"


# ---- what the parser cannot read -----------------------------------------------------------

def test_a_message_id_longer_than_any_column(env):
    gid, _ = crafted(env.store)
    mid = "<" + "x" * 900 + "@example.org>"  # a header line stays under 998 octets
    msg = env.mail(env.address(gid), "bid 2", mid=mid)
    assert env.send(msg)[0] == 250
    assert bids(env.store, gid) == [2]
    keys_fit(env.store)
    before = snapshot(env.store, gid)
    assert env.send(msg)[0] == 250  # again: the hashed key still knows it
    assert snapshot(env.store, gid)["log"] == before["log"]
    # and two long Message-IDs that differ only at the end are two mails
    other = env.mail(env.address(gid), "status", mid=mid[:-14] + "y@example.org>")
    assert env.send(other)[0] == 250
    mails = env.replies()
    assert any(headline(m) == f"Game {gid}: your table" for m in mails), [
        headline(m) for m in mails]
    assert all(str(m["In-Reply-To"]).startswith("<") for m in mails)  # never the hash


def test_a_long_subject_is_answered(env):
    crafted(env.store)  # ann has a game, so she is a player
    env.replies()
    msg = env.mail(account(env, ANN), "games", subject="Re: " + "very long " * 100)
    assert env.send(msg)[0] == 250
    (reply,) = env.replies()
    assert "games:" in text(reply)
    keys_fit(env.store)


@pytest.mark.parametrize("frm", [
    "=?utf-8?q?Ann=0D=0ABcc=3A_x?= <ann@example.org>",
    "=?utf-8?b?QW5uDQo=?= <ann@example.org>",
])
def test_cr_lf_in_the_display_name_is_read_leniently(env, frm):
    gid, _ = crafted(env.store)
    raw = (f"From: {frm}\r\nTo: {env.address(gid)}\r\nSubject: Re: your turn\r\n"
           f"Message-ID: <crlf@example.org>\r\n\r\nbid 6\r\n").encode()
    code, reply = env.send(raw, mail_from=ANN, rcpt=env.address(gid))
    assert code == 250, reply
    assert bids(env.store, gid) == [6]
    answers = [m for m in env.replies() if answered(m)]
    assert len(answers) == 1 and answers[0]["To"] == ANN


def nested(depth: int, body: str = "bid 3") -> bytes:
    head = f"From: {ANN}\r\nSubject: Re: your turn\r\nMIME-Version: 1.0\r\n"
    parts = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n'
                    for i in range(depth))
    ends = "".join(f"\r\n--b{i}--" for i in reversed(range(depth)))
    return (head + parts + f"Content-Type: text/plain\r\n\r\n{body}" + ends + "\r\n").encode()


def test_mime_nested_thousands_deep_gets_a_clear_554(env):
    gid, _ = crafted(env.store)
    before = snapshot(env.store, gid)
    code, reply = env.send(nested(3000), mail_from=ANN, rcpt=env.address(gid))
    assert code == 554 and reply.startswith("5.6.0 ") and "nested too deeply" in reply, reply
    assert "Error" not in reply and "Recursion" not in reply
    assert snapshot(env.store, gid) == before and env.replies() == []


def test_mime_nested_a_little_is_read(env):
    gid, _ = crafted(env.store)
    assert env.send(nested(20, "bid 7"), mail_from=ANN, rcpt=env.address(gid))[0] == 250
    assert bids(env.store, gid) == [7]


def test_an_lmtp_mail_nobody_can_read_is_refused_for_each_recipient(lmtp):
    one, _ = crafted(lmtp.store)
    two, _ = crafted(lmtp.store)
    to = [lmtp.address(one), lmtp.address(two)]
    got = lmtp_session(lmtp.port, ANN, to, nested(3000))
    data = got.index("354 End data with <CR><LF>.<CR><LF>")
    assert [x[:9] for x in got[data + 1:data + 3]] == ["554 5.6.0"] * 2, got
    assert bids(lmtp.store, one) == bids(lmtp.store, two) == []


# ---- auto-replies that do not say Auto-Submitted -------------------------------------------

@pytest.mark.parametrize("subject, header", [
    ("Out of Office: Game 1: your turn", {}),
    ("Automatic reply: Game 1: your turn", {}),
    ("Abwesenheitsnotiz: Game 1: your turn", {}),
    ("Automatische Antwort: Game 1", {}),
    ("Réponse automatique : Game 1", {}),
    ("Respuesta automática: Game 1", {}),
    ("Risposta automatica: Game 1", {}),
    ("Automatisch antwoord: Game 1", {}),
    ("Resposta automática: Game 1", {}),
    ("Automatyczna odpowiedź: Game 1", {}),
    ("Autosvar: Game 1", {}),
    ("Re: Game 1: your turn", {"X_Autoreply": "yes"}),
    ("Re: Game 1: your turn", {"Precedence": "auto_reply"}),
    ("Automatic reply: Game 1: your turn", {"X_Auto_Response_Suppress": "All"}),
    ("Re: Game 1: your turn", {"X_Autorespond": "yes"}),
])
def test_out_of_office_without_auto_submitted_is_never_answered(env, subject, header):
    gid, _ = crafted(env.store)
    before = snapshot(env.store, gid)
    msg = env.mail(env.address(gid), "I am away until Monday.\nbid 3\n", subject=subject,
                   **header)
    assert env.send(msg)[0] == 250
    assert snapshot(env.store, gid) == before and env.replies() == []


def test_headers_of_any_length_folded_over_many_lines(env):
    gid, _ = crafted(env.store)
    to = env.address(gid)
    name = "\r\n ".join(["Ann" * 20] * 200)
    subject = "\r\n ".join(["word" * 20] * 300)
    refs = "\r\n ".join(f"<r{i}@example.org>" for i in range(3000))
    raw = (f'From: "{name}" <{ANN}>\r\nTo: {to}\r\nSubject: {subject}\r\n'
           f"References: {refs}\r\nMessage-ID: <folded@example.org>\r\n\r\nbid 3\r\n").encode()
    assert len(raw) > 50_000
    assert env.send(raw, mail_from=ANN, rcpt=to)[0] == 250
    assert bids(env.store, gid) == [3]
    keys_fit(env.store)


def test_a_header_line_over_the_smtp_limit_is_refused_by_smtp_itself(env):
    gid, _ = crafted(env.store)
    to = env.address(gid)
    raw = (f"From: {ANN}\r\nTo: {to}\r\nMessage-ID: <{'x' * 3000}@example.org>\r\n\r\n"
           "bid 3\r\n").encode()
    code, reply = env.send(raw, mail_from=ANN, rcpt=to)
    assert code == 500 and reply.startswith("Line too long"), reply  # RFC 5321 4.5.3.1.6
    assert bids(env.store, gid) == []


def test_an_ordinary_exchange_mail_with_x_auto_response_suppress_is_read(env):
    # Exchange sets it on plain mail to ask others not to auto-reply: it is no auto-reply
    gid, _ = crafted(env.store)
    msg = env.mail(env.address(gid), "bid 3", X_Auto_Response_Suppress="All")
    assert env.send(msg)[0] == 250
    assert bids(env.store, gid) == [3]
