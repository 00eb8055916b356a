"""`pbem backup` and `pbem restore` (pbem.store.backup): a link mailed before the backup works
on the site restored from it, a backup taken while moves are written holds only whole
games, and a bad archive or a site that is not empty is refused with one line, nothing
changed. Each source backend, each kind of dump; across backends when PostgreSQL is here."""

import io
import json
import re
import stat
import tarfile
import threading
import uuid

import pytest
from click.testing import CliRunner
from conftest import BACKENDS, PG_URL, pg_schema_url
from sqlalchemy import inspect, text
from sqlmodel import select

from pbem.cli import main
from pbem.config import load
from pbem.engine import preset
from pbem.gamelog import replay_log
from pbem.store.backup import BackupError, backup, restore
from pbem.store.db import engine_for, upgrade
from pbem.store.dkim_sign import keygen
from pbem.store.models import Game, Move, Player
from pbem.store.states import Store
from tests.web_helpers import (
    csrf,
    database,
    drive,
    game_state,
    humans_game,
    mail_links,
    make_app,
    posted,
    tokens,
)

ON_PG = pytest.mark.skipif(not PG_URL, reason="PBEM_TEST_DATABASE_URL is not set")


@pytest.fixture
def new_site(request, tmp_path):
    """make(backend) -> (url, var dir) of a new, empty site: a new SQLite file, or a new
    PostgreSQL schema without a table (dropped at the end)."""
    schemas = []

    def make(backend: str) -> tuple[str, object]:
        name = "r_" + uuid.uuid4().hex[:12]
        var = tmp_path / name
        if backend == "sqlite":
            return f"sqlite:///{var / 'pbem.db'}", var
        admin = request.getfixturevalue("pg_admin")
        with admin.connect() as c:
            c.execute(text(f"CREATE SCHEMA {name}"))
        schemas.append(name)
        return pg_schema_url(name), var

    yield make
    for name in schemas:
        engine_for(pg_schema_url(name)).dispose()
        with request.getfixturevalue("pg_admin").connect() as c:
            c.execute(text(f"DROP SCHEMA {name} CASCADE"))


def pbem(url: str, var, *args):
    """`pbem ARGS` on the site at (url, var): the click result."""
    return CliRunner().invoke(main, [str(a) for a in args],
                              env={"DATABASE_URL": url, "PBEM_VAR_DIR": str(var),
                                   "PBEM_SECRET_KEY": "", "PBEM_DKIM_KEY": ""})


def ok(result) -> str:
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.output


def backend(url: str) -> str:
    return "sqlite" if url.startswith("sqlite") else "postgresql"


def exported(url: str, var, gid: int) -> str:
    return ok(pbem(url, var, "game", "export", gid))


def turn_link(store, gid: int, seat: int) -> tuple[str, str]:
    """The newest turn mail's first move link of `seat`: (label, path)."""
    from pbem.store.models import Outbox

    with store.session() as s:
        row = s.exec(select(Outbox).where(Outbox.game_id == gid,
                                          Outbox.dedupe_key.startswith(f"turn:{gid}:{seat}:"))
                     .order_by(Outbox.id.desc())).first()
    return mail_links(row.body_html)[0]


def a_site(store, tmp_path, monkeypatch) -> tuple[object, int, int, tuple[str, str]]:
    """A site with keys, a DKIM key and games played part way through play.submit: its var
    dir, the game, the seat due and its mailed move link."""
    var = tmp_path / "old"
    make_app(store, var, monkeypatch)  # its signing key, as `pbem serve` makes it
    keygen(var / "dkim.key", "pbem", "pbem.test", bits=1024)
    humans_game(store, preset("standard"))
    gid = humans_game(store, preset("standard"))
    drive(store, gid, lambda st: st.seq >= 3)
    seat = game_state(store, gid).to_act()[0]
    return var, gid, seat, turn_link(store, gid, seat)


def head_revision() -> str:
    """The newest migration's revision, read from the migrations themselves (a new
    migration moves it): what a backup's manifest must name."""
    from alembic.script import ScriptDirectory

    from pbem.store.db import alembic_config

    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


@pytest.mark.parametrize("logical", [False, True], ids=["native", "logical"])
def test_a_mailed_link_works_after_a_restore_into_a_new_site(store, db_url, tmp_path,
                                                             monkeypatch, new_site, logical):
    var, gid, seat, (label, link) = a_site(store, tmp_path, monkeypatch)
    before = exported(db_url, var, gid)
    archive = tmp_path / "site.tar.gz"
    ok(pbem(db_url, var, "backup", archive, *(["--logical"] if logical else [])))
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600
    with tarfile.open(archive) as tar:
        manifest = json.load(tar.extractfile("manifest.json"))
    assert manifest["kind"] == ("rows" if logical else {"sqlite": "sqlite",
                                                        "postgresql": "pg_dump"}[backend(db_url)])
    assert manifest["revision"] == head_revision() and manifest["dkim"]

    url, new_var = new_site(backend(db_url))
    ok(pbem(url, new_var, "restore", archive))
    assert exported(url, new_var, gid) == before  # the game replays the same

    restored = Store(url)
    client = make_app(restored, new_var, monkeypatch).test_client()
    page = posted(client, link, {"csrf": csrf(client)}, to=f"/t/{tokens(restored, gid)[seat]}")
    assert f"done: {label.lower()}" in page.text.lower(), page.text[-800:]
    after = replay_log(exported(url, new_var, gid))
    assert after.seq > replay_log(before).seq
    assert (new_var / "dkim.key").read_bytes() == (var / "dkim.key").read_bytes()
    assert stat.S_IMODE((new_var / "secret_key").stat().st_mode) == 0o600
    # new rows take new ids (PostgreSQL's sequences went on from the restored rows)
    assert humans_game(restored, preset("standard")) > gid


@ON_PG
@pytest.mark.parametrize("logical", [False, True], ids=["native", "logical"])
@pytest.mark.parametrize("source", ["sqlite", "postgresql"])
def test_a_restore_across_backends(source, logical, tmp_path, monkeypatch, new_site):
    """A SQLite file or a logical dump goes into the other backend; a pg_dump does not."""
    url, _ = new_site(source)
    upgrade(url)
    store = Store(url)
    var, gid, seat, (label, link) = a_site(store, tmp_path, monkeypatch)
    archive = tmp_path / "site.tar.gz"
    ok(pbem(url, var, "backup", archive, *(["--logical"] if logical else [])))
    other, new_var = new_site({"sqlite": "postgresql", "postgresql": "sqlite"}[source])
    result = pbem(other, new_var, "restore", archive)
    if source == "postgresql" and not logical:
        assert result.exit_code == 1 and "restores into PostgreSQL only" in result.stderr
        return
    ok(result)
    assert exported(other, new_var, gid) == exported(url, var, gid)
    restored = Store(other)
    client = make_app(restored, new_var, monkeypatch).test_client()
    page = posted(client, link, {"csrf": csrf(client)}, to=f"/t/{tokens(restored, gid)[seat]}")
    assert f"done: {label.lower()}" in page.text.lower()


@pytest.mark.parametrize("logical", [False, True], ids=["native", "logical"])
def test_a_backup_taken_while_moves_are_written_holds_whole_games(store, db_url, tmp_path,
                                                                  monkeypatch, new_site,
                                                                  logical):
    var = tmp_path / "old"
    make_app(store, var, monkeypatch)
    monkeypatch.setenv("DATABASE_URL", db_url)
    games = [humans_game(store, preset("standard")) for _ in range(3)]
    stop, moved, failed = threading.Event(), [], []

    def writer():
        """Moves in every game, and a new game after each round of them: a dump
        that read the tables at different moments would hold moves of a game it lacks."""
        try:
            while not stop.is_set():
                for gid in list(games):
                    n = game_state(store, gid).seq
                    moved.append(drive(store, gid, lambda s, n=n: s.seq > n).seq)
                games.append(humans_game(store, preset("standard"), first_dealer=len(games) % 4))
        except Exception as e:  # the test fails below, not hangs
            failed.append(e)

    thread = threading.Thread(target=writer)
    thread.start()
    archives = []
    try:
        for i in range(3):
            archives.append(tmp_path / f"b{i}.tar.gz")
            start = len(moved)
            backup(load(), archives[-1], logical=logical)
            while len(moved) < start + 2 and thread.is_alive():  # moves between backups
                threading.Event().wait(0.01)
    finally:
        stop.set()
        thread.join()
    assert not failed and len(moved) >= 6
    for archive in archives:
        url, new_var = new_site(backend(db_url))
        monkeypatch.setenv("DATABASE_URL", url)
        monkeypatch.setenv("PBEM_VAR_DIR", str(new_var))
        restore(load(), archive)
        with Store(url).session() as s:
            kept = s.exec(select(Game.id)).all()
        assert kept and set(kept) <= set(games)
        for gid in kept:
            st = replay_log(exported(url, new_var, gid))  # refuses a log with a hole
            with Store(url).session() as s:
                seqs = s.exec(select(Move.seq).where(Move.game_id == gid)
                              .order_by(Move.seq)).all()
            assert list(seqs) == list(range(1, st.seq + 1))


@pytest.mark.parametrize("source", BACKENDS)
def test_an_older_backup_is_migrated_up_and_a_newer_refused(tmp_path, new_site, source):
    url, var = new_site(source)
    upgrade(url, "0014")
    with engine_for(url).begin() as c:
        c.execute(text("INSERT INTO player (email, name, prefs, created) "
                       "VALUES ('ann@x.test', 'Ann', '{}', '2026-01-01 00:00:00')"))
    var.mkdir(exist_ok=True)
    (var / "secret_key").write_text("old-site-key")
    archive, logical = tmp_path / "old.tar.gz", tmp_path / "old-rows.tar.gz"
    ok(pbem(url, var, "backup", archive))
    ok(pbem(url, var, "backup", "--logical", logical))

    for made, upgraded_first in [(archive, False), (logical, True)]:
        new, new_var = new_site(source)
        if upgraded_first:  # `pbem db upgrade` made its (empty) tables at the newest
            upgrade(new)
        ok(pbem(new, new_var, "restore", made))
        with Store(new).session() as s:
            ann = s.exec(select(Player)).one()
        assert ann.email == "ann@x.test" and ann.account_key  # 0015 made her account key
        assert (new_var / "secret_key").read_text() == "old-site-key"

    newer = tmp_path / "newer.tar.gz"
    _rewrite_manifest(archive, newer, revision="0099")
    other, other_var = new_site(source)
    _refused(pbem(other, other_var, "restore", newer), "newer pbem (revision 0099)")
    assert not other_var.exists()


def _rewrite_manifest(src, dst, **changes):
    with tarfile.open(src) as tar, tarfile.open(dst, "w:gz") as out:
        for member in tar:
            data = tar.extractfile(member).read()
            if member.name == "manifest.json":
                data = json.dumps(json.loads(data) | changes).encode()
                member.size = len(data)
            out.addfile(member, io.BytesIO(data))


def _refused(result, message: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr, result.stderr


def test_bad_archives_are_refused_with_one_line_and_nothing_changed(store, db_url, tmp_path,
                                                                    monkeypatch, new_site):
    var, *_ = a_site(store, tmp_path, monkeypatch)
    good = tmp_path / "good.tar.gz"
    ok(pbem(db_url, var, "backup", good))
    data = good.read_bytes()
    mangled, truncated, plain, foreign = (tmp_path / n for n in
                                          ("mangled.tar.gz", "cut.tar.gz", "notes.txt",
                                           "other.tar"))
    mangled.write_bytes(data[:200] + bytes(b ^ 0xFF for b in data[200:260]) + data[260:])
    truncated.write_bytes(data[: len(data) // 2])
    plain.write_text("not an archive\n")
    with tarfile.open(foreign, "w") as tar:
        tar.add(plain, arcname="notes.txt")
    url, new_var = new_site(backend(db_url))
    for path, message in [(tmp_path / "missing.tar.gz", "no such file"),
                          (mangled, "damaged"), (truncated, "damaged"),
                          (plain, "not a pbem backup"), (foreign, "unexpected member")]:
        _refused(pbem(url, new_var, "restore", path), message)
        assert not new_var.exists()  # no key, no SQLite file
        if backend(url) == "postgresql":  # not even a table made
            with engine_for(url).connect() as c:
                assert inspect(c).get_table_names() == []


def test_a_site_that_is_not_empty_is_refused(store, db_url, tmp_path, monkeypatch, new_site):
    var, gid, *_ = a_site(store, tmp_path, monkeypatch)
    archive = tmp_path / "site.tar.gz"
    ok(pbem(db_url, var, "backup", archive))

    rows, keys = database(store), sorted(p.name for p in var.iterdir())
    _refused(pbem(db_url, var, "restore", archive), "exists: restore into an empty site")
    (var / "secret_key").unlink()  # keys gone, the games still there
    _refused(pbem(db_url, var, "restore", archive), "has players: restore into an empty site")
    assert database(store) == rows
    assert sorted(p.name for p in var.iterdir()) == sorted(set(keys) - {"secret_key"})

    url, new_var = new_site(backend(db_url))
    monkeypatch.setenv("PBEM_SECRET_KEY", "another-key")
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("PBEM_VAR_DIR", str(new_var))
    with pytest.raises(BackupError, match="without the backup's signing keys"):
        restore(load(), archive)
    assert not new_var.exists()


def test_a_backup_without_a_database_or_key_is_refused(tmp_path, new_site):
    url, var = new_site("sqlite")
    _refused(pbem(url, var, "backup", tmp_path / "b.tar.gz"), "no signing key")
    var.mkdir()
    (var / "secret_key").write_text("k")
    _refused(pbem(url, var, "backup", tmp_path / "b.tar.gz"), "no database")
    _refused(pbem(url, var, "backup", tmp_path / "nowhere" / "b.tar.gz"), "cannot write")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".b")) == []
    assert not (tmp_path / "b.tar.gz").exists()


@pytest.mark.slow  # a process of its own and two new databases: 10-15 s
def test_the_backup_bench_runs_and_prints_its_figures(monkeypatch, tmp_path, capsys):
    from bench import backup as bench

    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))  # the bench sets it: put back after
    bench.run(None, games=1, moves=3, seconds=0.3)
    out = capsys.readouterr().out
    for kind in ("native", "rows"):
        assert re.search(rf"{kind} +backup +[\d.]+ s +\d+ KB +restore +[\d.]+ s", out), out
    assert re.search(r"backups running: +\d+ moves, median +[\d.]+ ms", out), out


def test_keys_from_the_environment_go_back_there(store, db_url, tmp_path, monkeypatch,
                                                 new_site):
    """A site whose keys are PBEM_SECRET_KEY (rotated: two of them): its backup holds both,
    and a restore wants them in the new site's environment, not in a file."""
    var = tmp_path / "old"
    make_app(store, var, monkeypatch, secret="old-key,new-key")
    gid = humans_game(store, preset("standard"))
    seat = game_state(store, gid).to_act()[0]
    label, link = turn_link(store, gid, seat)
    monkeypatch.setenv("DATABASE_URL", db_url)
    archive = tmp_path / "site.tar.gz"
    backup(load(), archive)
    with tarfile.open(archive) as tar:
        assert tar.extractfile("secret_keys").read() == b"old-key\nnew-key\n"

    url, new_var = new_site(backend(db_url))
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("PBEM_VAR_DIR", str(new_var))
    monkeypatch.delenv("PBEM_SECRET_KEY")
    with pytest.raises(BackupError, match="came from PBEM_SECRET_KEY: set it here"):
        restore(load(), archive)
    assert not new_var.exists()
    monkeypatch.setenv("PBEM_SECRET_KEY", "old-key,new-key")
    restore(load(), archive)
    assert not (new_var / "secret_key").exists()
    restored = Store(url)
    client = make_app(restored, new_var, monkeypatch, secret="old-key,new-key").test_client()
    page = posted(client, link, {"csrf": csrf(client)}, to=f"/t/{tokens(restored, gid)[seat]}")
    assert f"done: {label.lower()}" in page.text.lower()


def test_without_pg_dump_postgresql_is_dumped_as_rows(store, db_url, tmp_path, monkeypatch):
    var = tmp_path / "old"
    make_app(store, var, monkeypatch)
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools-here"))
    made = backup(load(), tmp_path / "site.tar.gz")
    assert made["kind"] == {"sqlite": "sqlite", "postgresql": "rows"}[backend(db_url)]
