"""DKIM (RFC 6376): every mail we send signed for the mail domain when a key is set, so the
large mailbox providers take turn mails from a new domain as ours, not as spam.

    PBEM_DKIM_KEY=var/dkim.key  PBEM_DKIM_SELECTOR=pbem   (pbem dkim keygen writes both)

`keygen` writes an RSA key and returns the DNS TXT record to publish at
SELECTOR._domainkey.DOMAIN."""

import base64
from functools import lru_cache
from pathlib import Path

import dkim
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

# what a receiver sees and must see unchanged; List-Unsubscribe is signed as RFC 8058 asks
SIGNED = [b"from", b"to", b"subject", b"date", b"message-id", b"reply-to", b"in-reply-to",
          b"references", b"list-id", b"list-unsubscribe", b"list-unsubscribe-post",
          b"mime-version", b"content-type"]


def sign(data: bytes, domain: str, key_path: str, selector: str,
         linesep: str = "\r\n") -> bytes:
    """The message with its DKIM-Signature header first (unchanged when no key is set)."""
    if not key_path:
        return data
    return dkim.sign(data, selector.encode(), domain.encode(), _key(key_path),
                     include_headers=SIGNED, linesep=linesep.encode()) + data


@lru_cache(maxsize=4)
def _key(path: str) -> bytes:
    return Path(path).read_bytes()


def keygen(path: Path, selector: str, domain: str, bits: int = 2048) -> str:
    """Write a new private key at `path` (kept from everyone else) and return the record."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pem)
    path.chmod(0o600)
    return record(path, selector, domain)


def record(path: Path, selector: str, domain: str) -> str:
    key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    public = key.public_key().public_bytes(serialization.Encoding.DER,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    value = f"v=DKIM1; k=rsa; p={base64.b64encode(public).decode()}"
    strings = " ".join(f'"{value[i:i + 250]}"' for i in range(0, len(value), 250))
    return f"{selector}._domainkey.{domain}. IN TXT ( {strings} )"  # DNS strings: 255 at most
