"""The shunt (issue 30): a mail whose processing fails by a bug is answered 451 and kept in
var/shunt/ with its error, once however often the sender retries it; once the bug is fixed
`pbem mail shunt retry` (or the sender's own retry) applies it once and empties the shunt.
Real SMTP over a socket, a real database (SQLite, and PostgreSQL when
PBEM_TEST_DATABASE_URL is set), the real command line (click's runner). The fault is one
internal function made to raise, as a bug would."""

import json
import logging

import pytest
from click.testing import CliRunner
from mail_helpers import (
    ANN,
    account,
    answered,
    crafted,
    done_line,
    prefs,
    running,
    snapshot,
    text,
)
from sqlmodel import select

from pbem.cli import main
from pbem.mail import inbound, shunt
from pbem.store.models import Inbound, Move

OUTCOME, RECORD, SUMMARY = inbound.outcome, inbound.SeatAnswer.record, inbound.summary


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def broken(monkeypatch, why: str = "a bug in the answer"):
    """A bug while a seat's answer is written (inside the move's transaction); its message
    names the seat's secret address, as an error's text may."""

    def fault(ctx, lines, error):
        raise RuntimeError(f"{why} for play+{ctx.seat.token}@pbem.localhost")

    monkeypatch.setattr(inbound, "outcome", fault)


def fixed(monkeypatch):
    monkeypatch.setattr(inbound, "outcome", OUTCOME)


def cli(env, *args):
    return CliRunner().invoke(main, ["mail", "shunt", *args],
                              env={"DATABASE_URL": env.store.url})


def kept(env) -> list:
    return shunt.Shunt.of(env.cfg).entries()


def bids(env, gid) -> list:
    with env.store.session() as s:
        return [p["bid"] for p in s.exec(select(Move.payload).where(
            Move.game_id == gid, Move.actor == 0, Move.type == "bid")).all()]


def token_of(address: str) -> str:
    return address.partition("+")[2].partition("@")[0]


def test_a_failing_mail_is_kept_once_with_its_error_and_retried_once(env, monkeypatch, caplog):
    caplog.set_level(logging.INFO)
    gid, _ = crafted(env.store)
    to = env.address(gid)
    msg = env.mail(to, "bid 3", mid="<shunt-1@example.org>")
    before = snapshot(env.store, gid)
    broken(monkeypatch)
    code, text = env.send(msg)
    assert (code, text[:5]) == (451, "4.3.0"), text
    assert snapshot(env.store, gid) == before  # nothing of it applied: the move rolled back
    [e] = kept(env)
    assert (e.mail_from, e.rcpt, e.tries) == (ANN, to, 1)
    assert "RuntimeError: a bug in the answer" in e.last_line and "Traceback" in e.error
    assert (env.cfg.var_dir / "shunt" / "new" / e.id).read_bytes().startswith(b"From: ")
    # the sending server retries while the bug is still there: one copy, counted
    assert env.send(msg)[0] == 451
    [again] = kept(env)
    assert (again.id, again.tries) == (e.id, 2)
    listed = cli(env, "list")
    assert listed.exit_code == 0 and e.id in listed.output and "RuntimeError" in listed.output
    assert "play+...@" in listed.output
    ours = "".join(r.getMessage() + (r.exc_text or "") for r in caplog.records
                   if r.name.startswith("pbem"))  # aiosmtpd's own INFO lines name it
    assert "Traceback" in ours and token_of(to) not in listed.output + ours
    assert token_of(to) not in e.error  # the sidecar's recipient is whole: a retry needs it

    fixed(monkeypatch)
    done = cli(env, "retry")
    assert done.exit_code == 0, done.output
    assert f"{e.id}: done" in done.output and "1 done, 0 kept" in done.output
    assert bids(env, gid) == [3] and kept(env) == []
    assert [done_line(m) for m in env.replies() if answered(m)] == [f"Game {gid}: you bid 3"]
    # a second retry, and the sender's own retry: nothing is applied twice
    assert "0 done, 0 kept" in cli(env, "retry").output
    assert env.send(msg)[0] == 250
    assert bids(env, gid) == [3] and env.replies() == []


def test_the_senders_retry_after_the_fix_takes_it_and_empties_the_shunt(env, monkeypatch):
    gid, _ = crafted(env.store)
    msg = env.mail(env.address(gid), "bid 4")
    broken(monkeypatch)
    assert env.send(msg)[0] == 451 and len(kept(env)) == 1
    fixed(monkeypatch)
    assert env.send(msg)[0] == 250
    assert bids(env, gid) == [4] and kept(env) == []


def test_a_retry_that_fails_again_keeps_the_mail_with_the_new_error(env, monkeypatch):
    gid, _ = crafted(env.store)
    broken(monkeypatch, "the first bug")
    assert env.send(env.mail(env.address(gid), "bid 2"))[0] == 451
    broken(monkeypatch, "another bug")
    res = cli(env, "retry")
    assert res.exit_code == 1 and "failed again: RuntimeError: another bug" in res.output
    [e] = kept(env)
    assert "another bug" in e.last_line and e.tries == 2
    assert bids(env, gid) == []
    with env.store.session() as s:
        assert s.exec(select(Inbound)).all() == []  # not even marked as seen


def test_past_its_bound_the_shunt_refuses_with_554_and_keeps_nothing_more(env, monkeypatch,
                                                                          caplog):
    monkeypatch.setattr(shunt, "MAX_MAILS", 1)
    gid, _ = crafted(env.store)
    broken(monkeypatch)
    assert env.send(env.mail(env.address(gid), "bid 2"))[0] == 451
    code, text = env.send(env.mail(env.address(gid), "bid 5"))
    assert (code, text[:5]) == (554, "5.3.0"), text
    assert len(kept(env)) == 1 and "the shunt is full" in caplog.text


def test_a_wrong_id_is_refused_and_changes_nothing_and_drop_deletes(env, monkeypatch):
    gid, _ = crafted(env.store)
    broken(monkeypatch)
    assert env.send(env.mail(env.address(gid), "bid 2"))[0] == 451
    [e] = kept(env)
    for bad in ("../../pbem.db", "0" * 20, e.id.upper()):
        for command in ("retry", "drop"):
            res = cli(env, command, e.id, bad)
            assert res.exit_code == 2 and "no such mail in the shunt" in res.output
    assert [x.id for x in kept(env)] == [e.id]
    assert cli(env, "drop", e.id).exit_code == 0 and kept(env) == []
    assert "0 mail(s) in the shunt" in cli(env, "list").output


def test_the_sidecar_holds_what_a_retry_needs(env, monkeypatch):
    gid, _ = crafted(env.store)
    broken(monkeypatch)
    to = env.address(gid)
    assert env.send(env.mail(to, "bid 2"), mail_from="bounce-me@example.org")[0] == 451
    [e] = kept(env)
    side = json.loads((env.cfg.var_dir / "shunt" / "err" / f"{e.id}.json").read_text())
    assert (side["mail_from"], side["rcpt"]) == ("bounce-me@example.org", to)
    assert side["first"] == side["last"] and side["first"].endswith("+00:00")


def ann_moves(env, gid) -> list:
    with env.store.session() as s:
        return [(m.type, m.payload) for m in s.exec(select(Move).where(
            Move.game_id == gid, Move.actor == 0).order_by(Move.seq)).all()]


def test_a_bug_in_the_last_lines_write_keeps_the_lines_before_and_a_retry_doubles_none(
        env, monkeypatch):
    """Each line of a mail moves in its own transaction; the last commits with the answer
    and the mail's Inbound row. A bug there undoes that line only: the bid before it stands,
    and the retry takes the bid as its own earlier try (its ref) and plays the card once."""
    gid, _ = crafted(env.store, {0: ["2H"]})
    msg = env.mail(env.address(gid), "bid 3\n2H")

    def fault(self, s):
        raise RuntimeError("a bug in the answer's write")

    monkeypatch.setattr(inbound.SeatAnswer, "record", fault)
    assert env.send(msg)[0] == 451
    assert [t for t, _ in ann_moves(env, gid)] == ["bid"]  # the lead rolled back
    monkeypatch.setattr(inbound.SeatAnswer, "record", RECORD)
    assert cli(env, "retry").exit_code == 0 and kept(env) == []
    moves = ann_moves(env, gid)
    assert [t for t, _ in moves] == ["bid", "play"] and moves[1][1]["card"] == "2H"
    assert cli(env, "retry").output.endswith("0 done, 0 kept\n")
    assert env.send(msg)[0] == 250 and ann_moves(env, gid) == moves


def test_a_shunt_that_cannot_be_written_refuses_with_554_as_before(env, monkeypatch, caplog):
    env.cfg.var_dir.mkdir(parents=True, exist_ok=True)
    (env.cfg.var_dir / "shunt").write_text("not a folder")  # as a full or read-only disk
    gid, _ = crafted(env.store)
    broken(monkeypatch)
    code, text = env.send(env.mail(env.address(gid), "bid 2"))
    assert (code, text[:5]) == (554, "5.3.0"), text
    assert "could not keep a failed mail" in caplog.text and bids(env, gid) == []


def test_an_account_mails_lines_done_before_a_bug_are_not_done_again(env, monkeypatch):
    """An account command commits on its own, before the mail's Inbound row: the sender's
    retries of a mail that failed after it, and the shunt's retry, must not do it again (a
    vacation took two more days of the bank at every try)."""
    crafted(env.store)
    msg = env.mail(account(env), "vacation 2\nzone Europe/Paris")

    def fault(*args):
        raise RuntimeError("a bug in the account's answer")

    monkeypatch.setattr(inbound, "summary", fault)
    assert env.send(msg)[0] == 451
    once = prefs(env.store, ANN)
    assert once["vacation_until"] and once["zone"] == "Europe/Paris"
    assert env.send(msg)[0] == 451 and prefs(env.store, ANN) == once
    monkeypatch.setattr(inbound, "summary", SUMMARY)
    res = cli(env, "retry")
    assert res.exit_code == 0 and "1 done" in res.output and prefs(env.store, ANN) == once
    [answer] = env.replies()
    assert "vacation 2: done on an earlier try of this mail" in text(answer)
    assert env.send(msg)[0] == 250 and prefs(env.store, ANN) == once and env.replies() == []
