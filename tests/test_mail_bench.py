"""bench/mail.py counts truthfully: every mail it sends is a move in the log (the client
plays the cards the server plays by itself without a mail), across a new deal."""

from pathlib import Path

import pytest
from sqlmodel import select

from bench import mail as bench
from pbem.config import Settings
from pbem.store.models import Move


def test_every_mail_of_the_bench_is_one_move_by_mail(store, db_url, tmp_path):
    cfg = Settings(var_dir=Path(tmp_path), database_url=db_url, mail_domain=bench.DOMAIN)
    run = bench.bench(store, cfg, mails=60)  # a hand is at most 56 mails: a new deal comes
    assert len(run.ours) == len(run.ceiling) == len(run.cpu) == 60
    with store.reader() as s:
        moves = s.exec(select(Move)).all()
    assert sum(m.type == "deal" for m in moves) == 2
    assert sum(m.source == "mail" for m in moves) == bench.WARM_UP + 60
    assert any(m.payload.get("auto") == "forced" for m in moves)


def test_the_bench_fails_when_a_mail_did_not_move(store, db_url, tmp_path, monkeypatch):
    """The check can fail: a client that forgets the forced cards mails a seat out of turn."""
    cfg = Settings(var_dir=Path(tmp_path), database_url=db_url, mail_domain=bench.DOMAIN)
    monkeypatch.setattr(bench.Players, "play_forced", lambda self: None)
    with pytest.raises(SystemExit, match="did not all apply"):
        bench.bench(store, cfg, mails=60)
