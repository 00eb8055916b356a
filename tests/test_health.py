"""GET /healthz, /readyz and /metrics (pbem.web.health, pbem.metrics; docs/operating.md):
in the app, under `pbem serve` and under gunicorn."""

import os
import re
import signal
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from contextlib import closing
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import event, text, update

from pbem.config import load
from pbem.store.models import Deadline, Outbox
from pbem.store.models import now as utcnow
from pbem.store.states import Store
from pbem.web.app import create_app
from tests.mail_helpers import free_port, running
from tests.test_operator_log import Played

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = {"REMOTE_ADDR": "203.0.113.7"}


def figures(body: str) -> dict[str, float]:
    """`name{labels}` -> value, from Prometheus' text format."""
    return {m[1]: float(m[2]) for m in re.finditer(r"(?m)^(\w+(?:\{[^}]*\})?) (\S+)$", body)}


def test_healthz_reads_nothing_and_readyz_says_the_database_is_away(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    closed = f"postgresql+psycopg://pbem@127.0.0.1:{free_port()}/pbem"  # nothing listens
    client = create_app(load(), Store(closed), testing=True).test_client()
    r = client.get("/healthz")
    assert (r.status_code, r.text) == (200, "ok\n")
    r = client.get("/readyz")
    assert r.status_code == 503 and "does not answer (OperationalError)" in r.text, r.text


def test_healthz_takes_no_connection(app, store):
    taken = []

    def took(*_args):
        taken.append(1)

    event.listen(store.engine, "checkout", took)
    try:
        assert app.test_client().get("/healthz").status_code == 200
        assert taken == []
        assert app.test_client().get("/readyz").status_code == 200
        assert taken  # the listener hears a read
    finally:
        event.remove(store.engine, "checkout", took)


def test_readyz_wants_the_migrations_head(app, store):
    client = app.test_client()
    r = client.get("/readyz")
    assert (r.status_code, r.text) == (200, "ready\n")
    with store.engine.begin() as c:
        head = c.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
        c.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    try:
        r = client.get("/readyz")
        assert r.status_code == 503 and "not migrated" in r.text, r.text
    finally:
        with store.engine.begin() as c:
            c.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": head})
    assert client.get("/readyz").status_code == 200


def test_readyz_on_a_sqlite_file_missing_or_never_migrated(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    missing = tmp_path / "gone.db"
    r = create_app(load(), Store(f"sqlite:///{missing}"), testing=True).test_client() \
        .get("/readyz")
    assert r.status_code == 503 and "file is missing" in r.text
    assert not missing.exists()  # asking made no empty database
    empty = tmp_path / "empty.db"
    with closing(sqlite3.connect(empty)) as c:
        c.execute("CREATE TABLE other (x)")
    r = create_app(load(), Store(f"sqlite:///{empty}"), testing=True).test_client() \
        .get("/readyz")
    assert r.status_code == 503 and "not migrated" in r.text


def test_metrics_answer_loopback_or_the_token_only(app):
    client = app.test_client()
    assert client.get("/metrics").status_code == 200  # the test client is 127.0.0.1
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    assert client.get("/metrics", environ_base=OUTSIDE).status_code == 404
    # a proxy on this host passes a stranger's request on from 127.0.0.1
    assert client.get("/metrics", headers={"X-Forwarded-For": "203.0.113.7"}).status_code == 404
    assert client.get("/metrics", headers={"Forwarded": "for=203.0.113.7"}).status_code == 404
    # no token set: a bearer is never let in, not even from loopback
    assert client.get("/metrics", headers={"Authorization": "Bearer x"}).status_code == 403


def test_metrics_with_the_bearer_token(store, tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("PBEM_METRICS_TOKEN", "s3cret-token-of-the-site")
    client = create_app(load(), store, testing=True).test_client()

    def get(auth):
        return client.get("/metrics", environ_base=OUTSIDE, headers={"Authorization": auth})

    assert get("Bearer s3cret-token-of-the-site").status_code == 200
    assert get("bearer s3cret-token-of-the-site").status_code == 200
    assert get("Bearer s3cret-token-of-the-sit").status_code == 403
    assert get("Bearer ").status_code == 403
    assert get("Basic s3cret-token-of-the-site").status_code == 403
    assert client.get("/metrics", environ_base=OUTSIDE).status_code == 404


def test_the_figures_follow_the_mail_the_web_the_outbox_and_the_clock(store, monkeypatch,
                                                                      tmp_path):
    with running(store, monkeypatch, tmp_path) as env:
        app = create_app(load(), store, testing=True)
        client = app.test_client()
        assert 'pbem_moves_total{source="mail"}' not in client.get("/metrics").text
        played = Played(store, env)
        played.by_mail()
        played.by_mail("hello there\n")  # no command in it
        played.on_the_web(app)
        # a mail left unsent an hour, failing; the player's timeout a minute overdue
        with store.session() as s:
            s.add(Outbox(to_addr="x@example.org", subject="s", body_text="b",
                         dedupe_key="stuck", created=utcnow() - timedelta(hours=1),
                         last_error="TimeoutError: the relay took too long"))
            s.exec(update(Deadline).where(Deadline.game_id == played.gid,
                                          Deadline.kind == "timeout",
                                          Deadline.state == "pending")
                   .values(due=utcnow() - timedelta(seconds=60)))
            s.commit()
        got = figures(client.get("/metrics").text)
    assert got['pbem_moves_total{source="mail"}'] >= 1
    assert got['pbem_moves_total{source="web"}'] >= 1
    assert got['pbem_moves_total{source="robot"}'] >= 3
    assert got['pbem_mails_in_total{outcome="done"}'] == 1
    assert got['pbem_mails_in_total{outcome="no_command"}'] == 1
    assert got["pbem_outbox_unsent"] >= 1
    assert 3590 < got["pbem_outbox_oldest_unsent_seconds"] < 3700
    assert got['pbem_errors{kind="outbox"}'] == 1
    assert got['pbem_errors{kind="shunt"}'] == 0
    assert got["pbem_deadlines_due"] >= 1
    assert 55 < got["pbem_deadline_lag_seconds"] < 300
    assert got['pbem_bounces_total{kind="hard"}'] == 0


def test_bounces_and_the_shunt_are_counted(app, store, tmp_path):
    from pbem.store.models import Inbound

    with store.session() as s:
        for i, result in enumerate(["bounce: hard 5.1.1", "bounce: hard 5.1.1, mail stopped",
                                    "bounce: soft 4.2.2", "not a bounce: 2.0.0", "line done",
                                    "auto-reply", "something new"]):
            s.add(Inbound(message_id=f"m{i}", result=result))
        s.commit()
    from pbem.mail.shunt import Shunt

    Shunt.of(app.config["PBEM_SETTINGS"]).keep("a@example.org", "play+x@pbem.test",
                                               b"Subject: x\r\n\r\nx\r\n", "a bug")
    got = figures(app.test_client().get("/metrics").text)
    assert got['pbem_bounces_total{kind="hard"}'] == 2
    assert got['pbem_bounces_total{kind="soft"}'] == 1
    assert got['pbem_mails_in_total{outcome="bounce"}'] == 3
    assert got['pbem_mails_in_total{outcome="not_bounce"}'] == 1
    assert got['pbem_mails_in_total{outcome="ignored"}'] == 1
    assert got['pbem_mails_in_total{outcome="other"}'] == 1
    assert sum(v for k, v in got.items() if k.startswith("pbem_mails_in_total")) == 6
    assert got['pbem_errors{kind="shunt"}'] == 1


def _get(url: str, headers: dict | None = None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}),
                                    timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _three(site: str) -> None:
    """What a supervisor and Prometheus see of a running site."""
    assert _get(f"{site}/healthz") == (200, "ok\n")
    assert _get(f"{site}/readyz") == (200, "ready\n")
    status, body = _get(f"{site}/metrics")
    assert status == 200 and "pbem_moves_total" in body and "pbem_outbox_unsent" in body
    assert _get(f"{site}/metrics", {"X-Forwarded-For": "203.0.113.7"})[0] == 404
    status, body = _get(f"{site}/metrics", {"Authorization": "Bearer the-token"})
    assert status == 200 and "pbem_deadline_lag_seconds" in body
    assert _get(f"{site}/metrics", {"Authorization": "Bearer not-it"})[0] == 403


@pytest.mark.parametrize("server", ["pbem serve", "gunicorn"])
def test_health_and_metrics_under_the_real_servers(db_url, tmp_path, server):
    from tests.test_serve import wait_for

    port = free_port()
    site = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path), DATABASE_URL=db_url,
               PBEM_BASE_URL=site, PBEM_WEB_PORT=str(port), PBEM_METRICS_TOKEN="the-token")
    command = ([sys.executable, "-m", "pbem.cli", "serve", "--no-smtp"] if server == "pbem serve"
               else [sys.executable, "-m", "gunicorn", "-w", "2", "-b", f"127.0.0.1:{port}",
                     "wsgi:app"])
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(lambda: _answers(site), 60)
        _three(site)
    finally:
        proc.send_signal(signal.SIGINT if server == "pbem serve" else signal.SIGTERM)
        out = proc.communicate(timeout=30)[0]
    assert "GET /metrics" in out or server == "gunicorn", out[-2000:]


def _answers(site: str) -> bool:
    try:
        return _get(f"{site}/healthz")[0] == 200
    except OSError:
        return False


def test_the_tally_counts_each_row_once_and_a_late_commit_too(store, monkeypatch):
    """The move log counted once, then only its new rows: the same totals as a full count,
    a row that took its id before a later one committed included (within MARGIN)."""
    from sqlalchemy import func, insert
    from sqlmodel import select

    from pbem import metrics
    from pbem.store.models import Game, Move

    monkeypatch.setattr(metrics, "MARGIN", 3)
    with store.engine.begin() as c:
        gid = c.execute(insert(Game).values(rules={})).inserted_primary_key[0]

    def add(*ids_sources):
        with store.engine.begin() as c:
            c.execute(insert(Move), [{"id": i, "game_id": gid, "seq": i, "type": "x",
                                      "payload": {}, "source": src} for i, src in ids_sources])

    def counted():
        with store.reader() as s:
            full = dict(s.exec(select(Move.source, func.count()).group_by(Move.source)).all())
            return dict(metrics.tally(store, Move.id, Move.source).read(s)), full

    add(*[(i, "mail") for i in range(1, 11)])
    got, full = counted()
    assert got == full == {"mail": 10}
    add(*[(i, "web") for i in range(11, 18)], (19, "cli"))  # 18 is not committed yet
    got, full = counted()
    assert got == full == {"mail": 10, "web": 7, "cli": 1}
    add((18, "clock"))  # took its id before 19, committed after: above the watermark (16)
    got, full = counted()
    assert got == full == {"mail": 10, "web": 7, "cli": 1, "clock": 1}
    add(*[(i, "cli") for i in range(20, 30)])
    assert counted()[0] == counted()[1]  # and again, past the first watermark
