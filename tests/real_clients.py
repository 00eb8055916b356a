"""The real-client corpus (tests/clients/*.eml, issue 13): replies as Gmail, Outlook, Apple
Mail, iPhone, Thunderbird and mutt send them, in nine languages, each with the move it means
and the game's reason when it refuses that move (tests/clients/index.tsv). Each is sent
over SMTP to the running handler, to a seat in a fresh game with known hands, and judged by
what the game and the reply show:

- understood: the meant move and nothing else was applied (or, for "nothing", nothing was
  and the reply says so; for "ignore", nothing was and there was no reply);
- refused: the meant move is not allowed, the reply says so with the game's reason, and
  nothing was applied;
- not understood: no move, where one was meant (a failure, but a safe one);
- misread: a move that was not meant. Must never happen.
"""

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from mail_helpers import ANN, answered, crafted, done_line, snapshot, text
from sqlmodel import select

from pbem.engine import parse_action, preset
from pbem.play import submit
from pbem.store.models import Move, Seat

CORPUS = Path(__file__).parent / "clients"
# ann's hand in every corpus game: she bids first, and after bidding 3 she leads
ANN_HAND = ["AS", "KS", "2S", "AH", "QH", "TH", "8H", "3H", "TD", "4D", "KC", "5C", "2C"]
VERDICTS = ("understood", "refused", "not understood", "misread")


@dataclass
class Case:
    name: str
    phase: str  # bid: ann is to bid; play: ann bid 3 and is to lead
    meaning: str  # a move ("play AH"), "nothing" (no command) or "ignore" (never answered)
    refusal: str = ""  # why the game refuses that move, if it does

    @property
    def client(self) -> str:
        return self.name.removesuffix(".eml")

    def raw(self) -> bytes:
        return (CORPUS / self.name).read_bytes()


def cases() -> list[Case]:
    rows = (CORPUS / "index.tsv").read_text(encoding="utf-8").splitlines()
    return [Case(*r.rstrip("\t").split("\t")) for r in rows if r and not r.startswith("#")]


def run(env, case: Case) -> tuple[str, str]:
    """Send one corpus mail; (verdict, what happened)."""
    gid, _ = crafted(env.store, {0: ANN_HAND})
    if case.phase == "play":
        submit(env.store, gid, 0, {"type": "bid", "bid": 3})
    env.replies()
    with env.store.session() as s:
        token = s.exec(select(Seat.token).where(Seat.game_id == gid, Seat.seat == 0)).one()
        after = s.exec(select(Move.seq).where(Move.game_id == gid)
                       .order_by(Move.seq.desc())).first()
    rcpt = env.address(gid)
    before = snapshot(env.store, gid)
    code, said = env.send(case.raw().replace(b"TOKEN", token.encode()), mail_from=ANN,
                          rcpt=rcpt)
    with env.store.session() as s:
        mine = [dict(p) for p in s.exec(select(Move.payload).where(
            Move.game_id == gid, Move.actor == 0, Move.seq > after).order_by(Move.seq)).all()]
    answers = [m for m in env.replies() if answered(m)]
    subject = done_line(answers[0]) if answers else "(no reply)"
    body = text(answers[0]) if answers else ""
    # what the mail made: not a card that then played itself (forced, or an order)
    got = [{k: v for k, v in m.items() if k not in ("seq", "seat")} for m in mine
           if "auto" not in m]
    what = f"SMTP {code}; moves {got}; reply {subject!r}"
    if code != 250:
        return "not understood", what
    unchanged = snapshot(env.store, gid)["log"] == before["log"]
    if case.meaning in ("nothing", "ignore") or case.refusal:
        if got:
            return "misread", what
        if case.meaning == "ignore" and not answers and unchanged:
            return "understood", what
        if case.meaning == "nothing" and "nothing done" in subject and unchanged:
            return "understood", what
        if case.refusal and "not done" in subject and case.refusal in body and unchanged:
            return "refused", what
        return "not understood", what + "\n" + body
    meant = parse_action(case.meaning, preset("standard"))
    if got == [meant] and subject.startswith(f"Game {gid}: you ") and "not done" not in subject:
        return "understood", what
    if got and got[0] != meant or len(got) > 1:
        return "misread", what
    return "not understood", what + "\n" + body


def tally(results: dict[str, tuple[str, str]]) -> str:
    counts = Counter(v for v, _ in results.values())
    lines = [f"{name:32} {verdict}" for name, (verdict, _) in sorted(results.items())]
    lines.append(", ".join(f"{counts[v]} {v}" for v in VERDICTS) + f" (of {len(results)})")
    return "\n".join(lines)
