"""pbem.store.bulk (what pbem.play and pbem.prepared still call) runs its statements by the
session's own execution: the same rows, values and errors as the ORM's, in the session's
transaction, seen by the engine's statement listeners."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import bindparam, event, exists, func, select, update
from sqlalchemy.exc import IntegrityError

from pbem.store.bulk import insert_all, rows, run
from pbem.store.models import Inbound, Outbox

WHEN = datetime(2026, 3, 1, 12, 30, 15, 123456, tzinfo=UTC)


def _mail(n: int, **more) -> dict:
    return {"to_addr": f"p{n}@example.org", "subject": f"s{n}", "body_text": "b",
            "dedupe_key": f"k{n}", **more}


def _outbox(store) -> list[tuple]:
    with store.reader() as s:
        return [(o.to_addr, o.subject, o.body_text, o.body_html, o.headers, o.dedupe_key,
                 o.attempts, o.next_attempt, o.sent_at, o.game_id)
                for o in s.exec(select(Outbox).order_by(Outbox.dedupe_key)).scalars()]


def test_insert_all_writes_what_the_orm_writes(store):
    given = [_mail(1, headers={"X-A": "é", "n": [1, None]}, next_attempt=WHEN),
             _mail(2, body_html="<p>h</p>", sent_at=WHEN + timedelta(hours=1), attempts=3,
                   next_attempt=WHEN)]
    with store.session() as s:
        s.add_all(Outbox(**{**m, "dedupe_key": "orm" + m["dedupe_key"]}) for m in given)
        s.commit()
    with store.session() as s:
        insert_all(s, Outbox, given)
        s.commit()
    got = _outbox(store)
    assert [r[:5] + r[6:] for r in got[:2]] == [r[:5] + r[6:] for r in got[2:]]
    assert got[0][4] == {"X-A": "é", "n": [1, None]} and got[0][7] == WHEN


def test_rows_are_what_sqlalchemy_gives(store):
    with store.session() as s:
        insert_all(s, Outbox, [_mail(1, headers={"a": 1}, next_attempt=WHEN), _mail(2)])
        insert_all(s, Inbound, [{"message_id": "<m@x>"}])
        s.commit()
    query = (select(Outbox.dedupe_key, Outbox.headers, Outbox.next_attempt, Outbox.sent_at,
                    exists().where(Inbound.message_id == bindparam("m")),
                    select(func.count(Inbound.id)).scalar_subquery())
             .where(Outbox.to_addr != bindparam("not")).order_by(Outbox.dedupe_key))
    for m in ("<m@x>", "<other@x>"):
        with store.session() as s:
            ours = rows(s, query, {"m": m, "not": "nobody"})
            theirs = [tuple(r) for r in s.connection().execute(query, {"m": m, "not": "nobody"})]
        assert ours == theirs
        assert ours[0][1:3] == ({"a": 1}, WHEN) and ours[0][4] is (m == "<m@x>")


def test_a_taken_key_is_sqlalchemys_integrity_error(store):
    with store.session() as s:
        insert_all(s, Inbound, [{"message_id": "<m@x>", "result": "done"}])
        s.commit()
    # raised as SQLAlchemy raises it, and the transaction leaves nothing
    with store.session() as s, pytest.raises(IntegrityError, match="message_id"):
        insert_all(s, Inbound, [{"message_id": "<m@x>"}])
        run(s, update(Inbound).where(Inbound.message_id == bindparam("m"))
            .values(result="x"), {"m": "<m@x>"})
        s.commit()
    with store.session() as s, pytest.raises(IntegrityError):
        insert_all(s, Inbound, [{"message_id": "<n@x>"}, {"message_id": "<m@x>"}])
        s.commit()
    with store.reader() as s:
        assert s.exec(select(Inbound.message_id, Inbound.result)).all() == [("<m@x>", "done")]


def test_statements_run_in_the_sessions_transaction(store):
    with store.session() as s:
        insert_all(s, Outbox, [_mail(1)])
        s.commit()
        insert_all(s, Outbox, [_mail(2)])  # a new transaction of the same session
        s.rollback()
        insert_all(s, Outbox, [_mail(3)])
        run(s, update(Outbox).where(Outbox.dedupe_key.in_(bindparam("keys", expanding=True)))
            .values(attempts=bindparam("n")), {"keys": ["k1", "k3"], "n": 7})  # SQLAlchemy's
        s.commit()
    assert [(r[5], r[6]) for r in _outbox(store)] == [("k1", 7), ("k3", 7)]


def test_listeners_see_each_statement(store):
    seen = []

    def count(_conn, _cursor, statement, _params, _context, many):
        if not statement.startswith("BEGIN"):  # SQLite's, sent at the "begin" event
            seen.append((statement.split(None, 1)[0], many))

    event.listen(store.engine, "before_cursor_execute", count)
    try:
        with store.session() as s:
            insert_all(s, Outbox, [_mail(1), _mail(2)])
            rows(s, select(Outbox.id).where(Outbox.attempts == bindparam("a")), {"a": 0})
            s.commit()
    finally:
        event.remove(store.engine, "before_cursor_execute", count)
    assert seen == [("INSERT", True), ("SELECT", False)]
