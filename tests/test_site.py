"""The site's settings and data as an operator meets them (issue 31): one absolute data
directory, nothing made unasked (`pbem init` makes a site), a settings file, `postgres://`
URLs, one-line errors, `--version`, and SIGINT/SIGTERM stopping `pbem serve` even where
SIGINT starts ignored. Real processes, real ports, real databases."""

import os
import re
import signal
import socket
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy.engine import make_url

from pbem.cli import main
from pbem.config import SettingError, ensure_data_dir, load, require_site
from tests.test_serve import PBEM, free_port, wait_for

PG_URL = os.environ.get("PBEM_TEST_DATABASE_URL")


def bare_env(**more) -> dict:
    """The environment of an operator's shell: no pbem setting but those given."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PBEM_") and k != "DATABASE_URL"}
    return env | {k: str(v) for k, v in more.items()}


def pbem(args, cwd: Path, env: dict, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(PBEM + args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def one_line_error(result) -> str:
    """The error of a command that failed in one line, no traceback."""
    assert result.returncode == 1, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


# -- one place for the site's data -------------------------------------------------------------


def test_serve_run_from_another_folder_refuses_and_makes_nothing(tmp_path):
    """Today's trap: run from the wrong folder, `serve` made a new database and a new key
    there, and every mailed link died. Now it says where it looked, and makes nothing."""
    try:
        result = pbem(["serve"], tmp_path, bare_env(PBEM_WEB_PORT=free_port(),
                                                    PBEM_SMTP_PORT=free_port()), timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("pbem serve started a new site instead of refusing")
    line = one_line_error(result)
    assert f"no database at {tmp_path / 'var' / 'pbem.db'}" in line and "pbem init" in line
    assert list(tmp_path.iterdir()) == []


def test_a_database_without_its_key_is_refused_and_no_key_is_made(tmp_path):
    env = bare_env(PBEM_VAR_DIR=tmp_path / "site")
    assert pbem(["db", "upgrade"], tmp_path, env).returncode == 0  # a database, no key
    line = one_line_error(pbem(["game", "list"], tmp_path, env))
    assert f"no secret key at {tmp_path / 'site' / 'secret_key'}" in line
    assert not (tmp_path / "site" / "secret_key").exists()
    # init does not paper over a lost key either: a new key breaks every mailed link
    line = one_line_error(pbem(["init"], tmp_path, env))
    assert "--new-key" in line and not (tmp_path / "site" / "secret_key").exists()
    assert pbem(["init", "--new-key"], tmp_path, env).returncode == 0
    assert (tmp_path / "site" / "secret_key").exists()


def test_init_makes_a_site_once_and_keeps_it(tmp_path):
    env = bare_env()
    made = pbem(["init"], tmp_path, env)
    assert made.returncode == 0, made.stderr
    var = tmp_path / "var"
    assert f"data directory {var}" in made.stdout and "made a new secret key" in made.stdout
    assert (var / "pbem.db").is_file() and (var / "secret_key").stat().st_mode & 0o777 == 0o600
    assert var.stat().st_mode & 0o777 == 0o700
    key = (var / "secret_key").read_text()
    again = pbem(["init"], tmp_path, env)
    assert again.returncode == 0 and "made" not in again.stdout
    assert (var / "secret_key").read_text() == key
    listed = pbem(["game", "list"], tmp_path, env)
    assert listed.returncode == 0 and listed.stderr == ""


def test_the_data_directory_is_absolute_and_said_at_start(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBEM_VAR_DIR", "site")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    cfg = load()
    assert cfg.var_dir == tmp_path / "site" and cfg.var_dir.is_absolute()
    assert cfg.database_url == f"sqlite:///{tmp_path / 'site' / 'pbem.db'}"
    with pytest.raises(SettingError, match="no database at"):
        require_site(cfg)
    assert ensure_data_dir(cfg, new_key=False) == [f"the data directory {tmp_path / 'site'}"]
    assert not cfg.key_file.exists()  # a restore brings its own


def test_serve_says_its_data_directory_and_stops_on_sigint_though_it_started_ignored(
        tmp_path):
    """A background job (`pbem serve &`) starts with SIGINT ignored; Ctrl-C (SIGINT) must
    still stop it, and stop it cleanly: exit 0, the ports free again."""
    env = bare_env(PBEM_VAR_DIR=tmp_path / "var", PBEM_WEB_PORT=free_port(),
                   PBEM_SMTP_PORT=free_port())
    assert pbem(["init"], tmp_path, env).returncode == 0
    server = subprocess.Popen(PBEM + ["serve"], cwd="/", env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    _stops_cleanly(server, signal.SIGINT, env)
    assert f"data directory {tmp_path / 'var'}" in server.stdout.read()


def test_serve_stops_cleanly_on_sigterm(tmp_path):
    env = bare_env(PBEM_VAR_DIR=tmp_path, PBEM_WEB_PORT=free_port(),
                   PBEM_SMTP_PORT=free_port())
    assert pbem(["init"], tmp_path, env).returncode == 0
    server = subprocess.Popen(PBEM + ["serve"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    _stops_cleanly(server, signal.SIGTERM, env)


def test_clock_stops_cleanly_on_sigterm(tmp_path):
    env = bare_env(PBEM_VAR_DIR=tmp_path)
    assert pbem(["init"], tmp_path, env).returncode == 0
    clock = subprocess.Popen(PBEM + ["clock"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: "deadlines checked" in clock.stdout.readline())
        clock.send_signal(signal.SIGTERM)
        assert clock.wait(timeout=20) == 0, clock.stderr.read()
    finally:
        clock.kill()


def _stops_cleanly(server: subprocess.Popen, sig: int, env: dict) -> None:
    ports = [int(env["PBEM_WEB_PORT"]), int(env["PBEM_SMTP_PORT"])]
    try:
        wait_for(lambda: all(_answers(p) for p in ports))
        server.send_signal(sig)
        try:
            code = server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"pbem serve did not stop on signal {sig}")
        assert code == 0, server.stderr.read()
        assert not any(_answers(p) for p in ports)
    finally:
        server.kill()
        server.wait()


def _answers(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


# -- one-line errors ---------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["PBEM_WEB_PORT", "PBEM_SMTP_PORT"])
def test_a_taken_port_is_one_line_naming_it(tmp_path, which):
    env = bare_env(PBEM_VAR_DIR=tmp_path, PBEM_WEB_PORT=free_port(),
                   PBEM_SMTP_PORT=free_port())
    assert pbem(["init"], tmp_path, env).returncode == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env[which] = str(taken.getsockname()[1])
        line = one_line_error(pbem(["serve"], tmp_path, env, timeout=30))
    assert f"127.0.0.1:{env[which]}" in line and "in use" in line and which in line


def test_pbem_smtp_on_a_taken_port_is_one_line(tmp_path):
    env = bare_env(PBEM_VAR_DIR=tmp_path)
    assert pbem(["init"], tmp_path, env).returncode == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env["PBEM_SMTP_PORT"] = str(taken.getsockname()[1])
        line = one_line_error(pbem(["smtp"], tmp_path, env, timeout=30))
    assert f"cannot listen for mail on 127.0.0.1:{env['PBEM_SMTP_PORT']}" in line


def test_an_unreachable_database_is_one_line_without_its_password(tmp_path):
    url = f"postgresql://pbem:hunter2@127.0.0.1:{free_port()}/pbem"
    env = bare_env(DATABASE_URL=url, PBEM_SECRET_KEY="k")
    for args in (["game", "list"], ["db", "upgrade"]):
        line = one_line_error(pbem(args, tmp_path, env))
        assert "cannot use the database at postgresql+psycopg://pbem:***@127.0.0.1" in line
        assert "hunter2" not in line


def test_a_missing_dkim_key_is_one_line(tmp_path):
    env = bare_env(PBEM_VAR_DIR=tmp_path, PBEM_DKIM_KEY=tmp_path / "nope.key")
    assert pbem(["init"], tmp_path, env).returncode == 0
    line = one_line_error(pbem(["game", "list"], tmp_path, env))
    assert f"no DKIM key at {tmp_path / 'nope.key'}" in line


def test_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output == f"pbem {version('pbem')}\n"


# -- postgres:// URLs ---------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_plain_postgres_urls_mean_psycopg(monkeypatch, scheme):
    monkeypatch.setenv("DATABASE_URL", f"{scheme}://u:p@db.example:5433/pbem?sslmode=require")
    assert load().database_url == "postgresql+psycopg://u:p@db.example:5433/pbem?sslmode=require"


@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL: set PBEM_TEST_DATABASE_URL")
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_postgres_url_as_hosts_give_it_works(db_url, tmp_path):
    url = make_url(db_url)
    assert url.drivername == "postgresql+psycopg"
    plain = "postgres" + db_url.removeprefix("postgresql+psycopg")
    result = CliRunner().invoke(main, ["game", "new", "--seat", "ann@example.org",
                                       *["--seat", "robot"] * 3],
                                env={"DATABASE_URL": plain, "PBEM_VAR_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.output
    listed = CliRunner().invoke(main, ["game", "list"], env={"DATABASE_URL": plain})
    assert listed.exit_code == 0 and re.match(r"\s*1\s", listed.output), listed.output


@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL: set PBEM_TEST_DATABASE_URL")
def test_a_missing_postgres_database_is_one_line(tmp_path):
    url = make_url(PG_URL).set(database="pbem_no_such_db").render_as_string(False)
    line = one_line_error(pbem(["db", "upgrade"], tmp_path, bare_env(DATABASE_URL=url)))
    assert 'database "pbem_no_such_db" does not exist' in line


# -- the settings file -------------------------------------------------------------------------


def test_the_settings_file_sets_what_the_environment_does_not(tmp_path, monkeypatch):
    conf = tmp_path / "etc" / "pbem.toml"
    conf.parent.mkdir()
    conf.write_text('var_dir = "../data"\nweb_port = 8001\nmail_domain = "file.example"\n'
                    'db_statement_timeout = 12\n')
    monkeypatch.setenv("PBEM_CONFIG", str(conf))
    monkeypatch.setenv("PBEM_MAIL_DOMAIN", "env.example")
    for name in ("PBEM_VAR_DIR", "PBEM_WEB_PORT", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir("/")
    cfg = load()
    assert cfg.var_dir == tmp_path / "data"  # relative to the file, not to where we run
    assert cfg.web_port == 8001 and cfg.mail_domain == "env.example"  # the environment wins
    from pbem.store.db import pg_timeouts
    assert "-c statement_timeout=12000" in pg_timeouts("postgresql+psycopg://u@h/d")["options"]


@pytest.mark.parametrize("text, said", [
    ("web_prot = 8001\n", "unknown setting 'web_prot'"),
    ("config = 'x.toml'\n", "unknown setting 'config'"),
    ("web_port = [1]\n", "web_port must be a string or a number"),
    ("web_port = \n", "not a TOML settings file"),
    ('web_port = "many"\n', "PBEM_WEB_PORT must be a whole number"),
])
def test_a_bad_settings_file_is_one_line(tmp_path, text, said):
    conf = tmp_path / "pbem.toml"
    conf.write_text(text)
    env = bare_env(PBEM_CONFIG=conf, PBEM_VAR_DIR=tmp_path)
    assert said in one_line_error(pbem(["game", "list"], tmp_path, env))
    assert not (tmp_path / "pbem.db").exists()


def test_a_missing_settings_file_is_one_line(tmp_path):
    env = bare_env(PBEM_CONFIG=tmp_path / "nope.toml")
    line = one_line_error(pbem(["game", "list"], tmp_path, env))
    assert f"cannot read {tmp_path / 'nope.toml'}" in line

