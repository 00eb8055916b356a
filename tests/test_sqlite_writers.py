"""SQLite writers of one process take turns on a lock of their own (pbem.store.db), not in
SQLite's busy handler, which polls with sleeps of up to 100 ms: several mails at once left
the database idle between them."""

import threading

from sqlalchemy import event, text

from pbem.store.db import make_engine


def test_a_writer_waits_for_its_turn_in_this_process_not_in_the_busy_handler(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path}/w.db")

    @event.listens_for(engine, "connect")
    def no_busy_handler(dbapi_conn, _record):  # SQLite's own lock, met, fails at once
        dbapi_conn.execute("PRAGMA busy_timeout=0")

    with engine.begin() as c:
        c.execute(text("CREATE TABLE t (x INTEGER)"))
    holding, done, failed = threading.Event(), [], []

    def second():
        holding.wait()
        try:
            with engine.begin() as c:
                c.execute(text("INSERT INTO t VALUES (2)"))
            done.append(2)
        except Exception as e:  # "database is locked"
            failed.append(e)

    other = threading.Thread(target=second)
    other.start()
    with engine.begin() as c:
        c.execute(text("INSERT INTO t VALUES (1)"))
        holding.set()
        other.join(0.3)  # it waits for our commit, and has not failed
        assert other.is_alive() and not failed
    other.join(10)
    assert failed == [] and done == [2]
    with engine.connect() as c:
        assert sorted(c.execute(text("SELECT x FROM t")).scalars()) == [1, 2]
    engine.dispose()
