"""`pbem dkim`: the key that signs our mail, and the DNS records to publish."""

from pathlib import Path

import click

from ..config import load
from ..store.dkim_sign import keygen, record
from .common import fail


@click.group("dkim")
def dkim_group():
    """DKIM signing of outbound mail (PBEM_DKIM_KEY, default var/dkim.key)."""


@dkim_group.command("keygen")
@click.option("--force", is_flag=True, help="Replace a key that exists (mail signed with it "
              "fails until DNS has the new record).")
def dkim_keygen(force):
    """Write a new key and print the DNS records to publish (DKIM, and SPF and DMARC)."""
    cfg = load()
    path = Path(cfg.dkim_key or cfg.var_dir / "dkim.key")
    if path.exists() and not force:
        fail(f"{path} exists: `pbem dkim record` prints its record (or --force)", 1)
    click.echo(keygen(path, cfg.dkim_selector, cfg.mail_domain))
    click.echo(_others(cfg.mail_domain))
    click.echo(f"; the key is {path}: mail is signed from now on")


@dkim_group.command("record")
def dkim_record():
    """Print the DNS TXT record of the key in use."""
    cfg = load()
    if not cfg.dkim_key:
        fail("no key: run `pbem dkim keygen` first", 1)
    click.echo(record(Path(cfg.dkim_key), cfg.dkim_selector, cfg.mail_domain))


def _others(domain: str) -> str:
    return (f'{domain}. IN TXT "v=spf1 mx -all"   ; SPF: the hosts that send for it\n'
            f'_dmarc.{domain}. IN TXT "v=DMARC1; p=quarantine; rua=mailto:postmaster@{domain}"')


COMMANDS = [dkim_group]
