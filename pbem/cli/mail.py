"""`pbem smtp`, `pbem outbox`, `pbem digest`: mail in and out, each on its own; `pbem mail
shunt list|retry|drop`: the mails whose processing failed (pbem.mail.shunt)."""

import sys

import click

from .. import logs
from ..config import MAX_SMTP_PROCESSES, load
from ..digest import send_digests
from ..store import webhooks
from ..store.outbox import drain
from .common import fail, open_store, run_until_stopped


@click.command("smtp")
@click.option("--lmtp", is_flag=True, help="Speak LMTP (behind Postfix) instead of SMTP.")
@click.option("--processes", type=click.IntRange(1, MAX_SMTP_PROCESSES), metavar="N",
              help="Receive in N processes on the one port [PBEM_SMTP_PROCESSES, 1].")
def smtp_cmd(lmtp, processes):
    """Only the inbound mail handler (beside other processes that send the outbox)."""
    cfg = load()
    logs.setup(cfg)  # the operator's log: a line a mail (docs/operating.md)
    store = open_store(cfg)  # migrated here, once, before any worker opens it
    what = (f"data directory {cfg.var_dir}\n"
            f"{'LMTP' if lmtp else 'SMTP'} on {cfg.smtp_host}:{cfg.smtp_port}")
    processes = processes or cfg.smtp_processes
    if processes > 1:
        from ..mail.workers import Workers

        pool = Workers(cfg, processes, lmtp=lmtp)
        pool.start()
        run_until_stopped(f"{what}, {processes} processes", pool.stop)
        return
    from ..mail.inbound import controller  # aiosmtpd: loaded only by the commands that serve
    from ..serve import listening

    ctl = controller(store, cfg, cfg.smtp_host, cfg.smtp_port, lmtp=lmtp)
    listening("mail", cfg.smtp_host, cfg.smtp_port, "PBEM_SMTP_PORT", ctl.start)
    run_until_stopped(what, ctl.stop)


@click.command("outbox")
def outbox_cmd():
    """Send what the outbox holds now, once, and post the leagues' webhooks that are due
    (`pbem serve` does both every few seconds)."""
    from ..serve import delivery  # the servers' module: loaded only by the commands that serve

    logs.setup(load())
    store = open_store()
    click.echo(f"sent {drain(store, delivery(load()))}")
    click.echo(f"webhook posts {webhooks.drain(store)}")


@click.command("digest")
def digest_cmd():
    """Queue today's digest mail for every player who chose `notify digest` (run daily)."""
    click.echo(f"queued {send_digests(open_store())}")


@click.group("mail")
def mail_group():
    """Inbound mail kept for the operator."""


@mail_group.group("shunt")
def shunt_group():
    """Mails whose processing failed (answered 451 and kept in var/shunt/): list, retry
    once the bug is fixed, or drop."""


@shunt_group.command("list")
def shunt_list():
    """Each kept mail: its id, when it last failed, its recipient (key masked), how often it
    failed, and its error's last line."""
    from ..mail.shunt import Shunt
    from ..store.masking import mask

    entries = Shunt.of(load()).entries()
    for e in entries:
        click.echo(f"{e.id}  {e.last}  {mask(e.rcpt)}  tries {e.tries}  {mask(e.last_line)}")
    click.echo(f"{len(entries)} mail(s) in the shunt")


def _known(shunt, ids) -> list[str]:
    """`ids`, each one the shunt holds (else exit 2, nothing done); all without any."""
    missing = [i for i in ids if not shunt.has(i)]
    if missing:
        fail(f"no such mail in the shunt: {', '.join(m[:40] for m in missing)}", 2)
    return list(ids) or shunt.ids()


@shunt_group.command("retry")
@click.argument("ids", nargs=-1, metavar="[ID]...")
def shunt_retry(ids):
    """Process the kept mails again (all without an ID): those that go through leave the
    shunt, those that fail again stay with their new error. Exit 1 if any failed again."""
    from ..mail.inbound import Processor
    from ..mail.shunt import Shunt, retry
    from ..store.masking import mask

    cfg = load()
    ids = _known(Shunt.of(cfg), ids)
    processor = Processor(open_store(), cfg)
    failed = 0
    for id_ in ids:
        done, what = retry(processor, id_)
        failed += not done
        click.echo(f"{id_}: {'done' if done else 'failed again'}: {mask(what)}")
    click.echo(f"{len(ids) - failed} done, {failed} kept")
    if failed:
        sys.exit(1)


@shunt_group.command("drop")
@click.argument("ids", nargs=-1, required=True, metavar="ID...")
def shunt_drop(ids):
    """Delete kept mails for good."""
    from ..mail.shunt import Shunt

    shunt = Shunt.of(load())
    for id_ in _known(shunt, ids):
        shunt.drop(id_)
        click.echo(f"{id_}: dropped")


COMMANDS = [smtp_cmd, outbox_cmd, digest_cmd, mail_group]
