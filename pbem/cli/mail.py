"""`pbem smtp`, `pbem outbox`, `pbem digest`: mail in and out, each on its own."""

import click

from ..config import load
from ..digest import send_digests
from ..store.outbox import drain
from .common import open_store, run_until_stopped


@click.command("smtp")
@click.option("--lmtp", is_flag=True, help="Speak LMTP (behind Postfix) instead of SMTP.")
def smtp_cmd(lmtp):
    """Only the inbound mail handler (beside other processes that send the outbox)."""
    from ..mail.inbound import controller  # aiosmtpd: loaded only by the commands that serve

    cfg = load()
    ctl = controller(open_store(), cfg, cfg.smtp_host, cfg.smtp_port, lmtp=lmtp)
    ctl.start()
    run_until_stopped(f"{'LMTP' if lmtp else 'SMTP'} on {cfg.smtp_host}:{cfg.smtp_port}",
                      ctl.stop)


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
