"""SQLite writers of one process queue at their BEGIN IMMEDIATE (pbem.store.db): the second
waits for the first's commit, within the busy timeout, and then writes; neither fails."""

import threading

from sqlalchemy import text

from pbem.store.db import make_engine


def test_a_second_writer_of_the_process_waits_for_the_first_and_writes(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path}/w.db")

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
