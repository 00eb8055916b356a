"""`pbem serve` (everything in one process) and `pbem clock` (only the clock)."""

import click

from .. import logs
from ..clock import scheduler
from ..config import MAX_SMTP_PROCESSES, load
from .common import open_store, run_until_stopped


@click.command("serve")
@click.option("--lmtp", is_flag=True, help="Speak LMTP (behind Postfix) instead of SMTP.")
@click.option("--no-smtp", is_flag=True, help="Receive no mail here.")
@click.option("--no-web", is_flag=True, help="Serve no pages here (gunicorn does).")
@click.option("--smtp-processes", type=click.IntRange(1, MAX_SMTP_PROCESSES), metavar="N",
              help="Receive mail in N processes of its own [PBEM_SMTP_PROCESSES, 1: here].")
def serve_cmd(lmtp, no_smtp, no_web, smtp_processes):
    """Run pbem: the web on PBEM_WEB_HOST:PBEM_WEB_PORT (127.0.0.1:5000), mail in on
    PBEM_SMTP_HOST:PBEM_SMTP_PORT (127.0.0.1:2525), and the outbox sent (to PBEM_SMTP_URL,
    or into the Maildir in the data directory, PBEM_VAR_DIR). Ctrl-C, SIGINT or SIGTERM
    stops it."""
    from ..serve import run  # the web and mail servers: loaded only when serving

    cfg = load()
    logs.setup(cfg)  # the operator's log (docs/operating.md)
    processes = smtp_processes or cfg.smtp_processes
    run(open_store(cfg), cfg, smtp=not no_smtp, lmtp=lmtp, web=not no_web, echo=click.echo,
        smtp_processes=processes)


@click.command("clock")
@click.option("--every", default=30.0, show_default=True, help="Seconds between ticks.")
def clock_cmd(every):
    """Only the clock: reminders and timeouts (beside web workers that run none). Two clocks
    at once are safe: the database decides what fired."""
    cfg = load()
    logs.setup(cfg)
    sched = scheduler(open_store(cfg), every)
    sched.start()
    run_until_stopped(f"data directory {cfg.var_dir}\nclock: deadlines checked every "
                      f"{every:g} s",
                      lambda: sched.shutdown(wait=False))


COMMANDS = [serve_cmd, clock_cmd]
