"""A private Postfix for the tests: Debian's postfix binaries with a configuration, queue and
data directory of its own in a scratch directory, listening on free loopback ports, started
with `postfix -c DIR start` and stopped at the end whatever happened.

Its main.cf and master.cf are contrib/postfix's (docs/deploy.md's recipe) with only the
domain's paths and ports put in, plus what a test host needs: a mailbox domain
(example.org, Maildirs delivered by Postfix's virtual agent) standing in for the players'
providers, and no mail leaving the host."""

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

ROOT = Path(__file__).resolve().parent.parent
CONTRIB = ROOT / "contrib" / "postfix"
POSTFIX = "/usr/sbin/postfix"
DOMAIN = "spades.example.org"  # contrib/postfix's PBEM_MAIL_DOMAIN, kept as it is
PLAYERS = "example.org"  # the players' mail provider: Maildirs here
GONE = "gone.example.net"  # a provider whose MX refuses every mail
DOC_LMTP, DOC_OUT = "127.0.0.1:2525", "127.0.0.1:10025"  # the ports contrib/postfix names

# Debian's master.cf services, without chroot (a scratch queue has no /etc inside it)
SERVICES = """\
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
tlsmgr    unix  -       -       n       1000?   1       tlsmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
virtual   unix  -       n       n       -       -       virtual
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
"""


def missing() -> str:
    """Why no private Postfix can run here ('' when it can)."""
    if not os.access(POSTFIX, os.X_OK):
        return "Debian's postfix is not installed (.ci/run installs it: apt-get install postfix)"
    if os.geteuid() != 0:
        return "postfix's master must start as root, and these tests do not run as root"
    try:
        pwd.getpwnam("postfix")
    except KeyError:
        return "there is no postfix user (Debian's postfix package makes it)"
    return ""


def self_signed(where: Path) -> str:
    """A key and self-signed certificate in one PEM file (Debian's snakeoil stands in)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"mx.{DOMAIN}")])
    now = datetime.now(UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1)).not_valid_after(now + timedelta(days=1))
            .sign(key, hashes.SHA256()))
    path = where / "tls.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption())
                     + cert.public_bytes(serialization.Encoding.PEM))
    path.chmod(0o600)
    return str(path)


def read_main_cf(text: str) -> dict[str, str]:
    """main.cf's settings in order: `name = value`, a line starting with white space going
    on the one before, # comments skipped."""
    out: dict[str, str] = {}
    last = ""
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0].isspace():
            out[last] += " " + line.strip()
            continue
        last, _, value = (x.strip() for x in line.partition("="))
        out[last] = value
    return out


@dataclass
class Ports:
    mx: int  # port 25 of the recipe: mail from outside
    out: int  # the loopback listener pbem relays through (PBEM_SMTP_URL)
    lmtp: int  # pbem's LMTP port (PBEM_SMTP_PORT)
    gone: int  # GONE's MX


@dataclass
class Postfix:
    dir: Path
    ports: Ports
    conf: Path = field(init=False)

    def __post_init__(self) -> None:
        self.conf = self.dir / "conf"

    def mailbox(self, user: str) -> Path:
        return self.dir / "mailboxes" / PLAYERS / user

    def log(self) -> str:
        path = self.dir / "maillog"
        return path.read_text(errors="replace") if path.exists() else "(no maillog)"

    def _contrib(self, name: str) -> str:
        """A contrib/postfix file with the doc's paths and ports put in."""
        return ((CONTRIB / name).read_text().replace("/etc/postfix/", f"{self.conf}/")
                .replace(DOC_LMTP, f"127.0.0.1:{self.ports.lmtp}")
                .replace(DOC_OUT, f"127.0.0.1:{self.ports.out}"))

    def write(self, mailboxes: list[str]) -> None:
        for sub in ("conf", "queue", "data", "mailboxes"):
            (self.dir / sub).mkdir()
        owner = pwd.getpwnam("postfix")
        for sub in ("data", "mailboxes"):
            os.chown(self.dir / sub, owner.pw_uid, owner.pw_gid)
        for name in ("pbem-transport", "pbem-aliases"):
            (self.conf / name).write_text(self._contrib(name))
        (self.conf / "test-mailboxes").write_text(
            "".join(f"{u}@{PLAYERS} {PLAYERS}/{u}/\n" for u in mailboxes))
        main = read_main_cf(self._contrib("main.cf"))
        main["virtual_mailbox_domains"] += f", {PLAYERS}"
        main["virtual_mailbox_maps"] += f", texthash:{self.conf}/test-mailboxes"
        # GONE's provider refuses mail after Postfix took it from pbem: Postfix bounces it
        (self.conf / "test-transport").write_text(f"{GONE} smtp:[127.0.0.1]:{self.ports.gone}\n")
        main["transport_maps"] += f", texthash:{self.conf}/test-transport"
        settings = {**self._host(owner), **main}
        (self.conf / "main.cf").write_text("".join(f"{k} = {v}\n" for k, v in settings.items()))
        mx = (f"127.0.0.1:{self.ports.mx} inet n - n - - smtpd\n"
              # mail from outside: loopback is not trusted on this port
              "  -o mynetworks=192.0.2.1/32\n"
              f"127.0.0.1:{self.ports.gone} inet n - n - - smtpd\n"  # GONE's MX: 554 to all
              f"  -o myhostname=mx.{GONE} -o smtpd_recipient_restrictions=reject\n")
        (self.conf / "master.cf").write_text(mx + SERVICES + self._contrib("master.cf"))

    def _host(self, owner: pwd.struct_passwd) -> dict[str, str]:
        """What the host's own main.cf would say, for a host that is only this test."""
        d = self.dir
        return {
            "compatibility_level": "3.6", "queue_directory": f"{d}/queue",
            "data_directory": f"{d}/data", "mail_owner": "postfix",
            "myhostname": f"mx.{DOMAIN}", "mydestination": "", "inet_interfaces": "127.0.0.1",
            "inet_protocols": "ipv4", "mynetworks": "127.0.0.0/8", "alias_maps": "",
            "alias_database": "", "maillog_file": f"{d}/maillog",
            "maillog_file_prefixes": str(d),
            # as Debian's own main.cf: STARTTLS offered, with a self-signed certificate
            "smtpd_tls_security_level": "may", "smtpd_tls_chain_files": self_signed(d),
            "virtual_mailbox_base": f"{d}/mailboxes",
            "virtual_uid_maps": f"static:{owner.pw_uid}",
            "virtual_gid_maps": f"static:{owner.pw_gid}",
            # nothing leaves this host: any other domain fails at once
            "default_transport": "error:5.7.1 the test's Postfix sends nowhere",
            "relay_transport": "error:5.7.1 the test's Postfix sends nowhere",
            # the recipient check's poll, 3 s by default: the test's only tuning for speed
            "address_verify_poll_delay": "1s",
        }

    def postfix(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([POSTFIX, "-c", str(self.conf), *args], capture_output=True,
                              text=True, timeout=60)

    def stop(self) -> None:
        self.postfix("stop")
        pid = self.dir / "queue" / "pid" / "master.pid"
        end = time.monotonic() + 10
        while pid.exists() and time.monotonic() < end:  # the master removes it as it goes
            time.sleep(0.1)
        if pid.exists():
            self.postfix("abort")


@contextmanager
def running(ports: Ports, mailboxes: list[str]) -> Iterator[Postfix]:
    """A private Postfix on `ports`, with a Maildir for each of `mailboxes`@example.org;
    stopped and removed at the end, whatever happened."""
    scratch = Path(tempfile.mkdtemp(prefix="pbem-postfix-"))
    scratch.chmod(0o755)  # postfix's daemons, not root, walk into it
    pf = Postfix(scratch, ports)
    try:
        pf.write(mailboxes)
        started = pf.postfix("start")
        assert started.returncode == 0, started.stderr + pf.log()
        yield pf
    finally:
        pf.stop()
        shutil.rmtree(scratch, ignore_errors=True)
