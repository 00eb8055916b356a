"""`pbem smtp`, `pbem outbox`, `pbem digest`: mail in and out, each on its own."""

import click

from ..config import MAX_SMTP_PROCESSES, load
from ..digest import send_digests
from ..store.outbox import drain
from .common import open_store, run_until_stopped, stop_on_sigterm


@click.command("smtp")
@click.option("--lmtp", is_flag=True, help="Speak LMTP (behind Postfix) instead of SMTP.")
@click.option("--processes", type=click.IntRange(1, MAX_SMTP_PROCESSES), metavar="N",
              help="Receive in N processes on the one port [PBEM_SMTP_PROCESSES, 1].")
def smtp_cmd(lmtp, processes):
    """Only the inbound mail handler (beside other processes that send the outbox)."""
    cfg = load()
    store = open_store()  # migrated here, once, before any worker opens it
    what = f"{'LMTP' if lmtp else 'SMTP'} on {cfg.smtp_host}:{cfg.smtp_port}"
    processes = processes or cfg.smtp_processes
    if processes > 1:
        from ..mail.workers import Workers

        stop_on_sigterm()
        pool = Workers(cfg, processes, lmtp=lmtp)
        pool.start()
        run_until_stopped(f"{what}, {processes} processes", pool.stop)
        return
    from ..mail.inbound import controller  # aiosmtpd: loaded only by the commands that serve

    ctl = controller(store, cfg, cfg.smtp_host, cfg.smtp_port, lmtp=lmtp)
    ctl.start()
    run_until_stopped(what, ctl.stop)


@click.command("outbox")
def outbox_cmd():
    """Send what the outbox holds now, once (`pbem serve` does this every few seconds)."""
    from ..serve import delivery  # the servers' module: loaded only by the commands that serve

    click.echo(f"sent {drain(open_store(), delivery(load()))}")


@click.command("digest")
def digest_cmd():
    """Queue today's digest mail for every player who chose `notify digest` (run daily)."""
    click.echo(f"queued {send_digests(open_store())}")


COMMANDS = [smtp_cmd, outbox_cmd, digest_cmd]
