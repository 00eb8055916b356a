"""Verifiable deals: a SHA-256 commitment to the cards, shown at the deal; the salt is
revealed when the hand is over, so anyone can check that no card changed mid-hand."""

import hashlib
import json


def deal_digest(deal: dict, salt: str) -> str:
    """The commitment to a deal event's cards (hands, out, stock; T4: and the dummy's, only
    when dealt, so every other deal's digest is as before) under `salt`."""
    cards = {k: deal.get(k, []) for k in ("hands", "out", "stock")}
    if deal.get("dummy"):
        cards["dummy"] = deal["dummy"]
    text = json.dumps(cards, sort_keys=True, separators=(",", ":")) + ":" + salt
    return hashlib.sha256(text.encode()).hexdigest()
