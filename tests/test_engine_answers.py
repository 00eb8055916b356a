"""The engine's answers over random games of every preset, pinned by a digest: what
legal() offers every seat, what apply() makes of every card in the hand of the seat to
play (the event, or the refusal's words), taken-back moves, the events and the score pad.
A speed change to the hot paths must leave every answer as it was; a rule change that
means to change answers updates DIGEST (run this file with PBEM_PRINT_DIGEST=1)."""

import hashlib
import json
import os
import random

from helpers import random_step

from pbem.engine import PRESETS, IllegalAction, advance, apply, legal, new_game, preset, score_pad

# issue 29: no undo of a move that showed a card
DIGEST = "bab5466dd6f7b1294203379f1f1d37bfa63672253fd21a3c7ea0715981fe9511"
STEPS = 260  # moves a preset: about four hands of the standard game


def answers(name: str, out) -> None:
    rng = random.Random(f"answers {name}")
    st = new_game(preset(name), 0)
    for step in range(STEPS):
        if st.phase == "over":
            break
        out.update(json.dumps([legal(st, s) for s in range(st.n)], sort_keys=True).encode())
        if st.phase == "play":
            seat = st.to_act()[0]
            for card in sorted(set(st.hand_of(seat)) | {"AS", "2C", "XX"}):
                out.update(_attempt(st, seat, {"type": "play", "card": card}).encode())
        seat = random_step(st, rng)
        if seat is not None and step % 5 == 0:  # take it back, when the engine lets us
            out.update(_attempt(st, seat, {"type": "undo"}, keep=True).encode())
        out.update(json.dumps([st.seq, st.phase, st.to_act(), st.trick, st.won]).encode())
    out.update(json.dumps(score_pad(st), sort_keys=True).encode())


def _attempt(st, seat, action, keep=False) -> str:
    """apply()'s answer as text; with `keep` its events are advanced."""
    try:
        events = apply(st, seat, action)
    except IllegalAction as e:
        return f"refused: {e}"
    if keep:
        for ev in events:
            advance(st, ev)
    st._checked = None  # (a refused or unkept event leaves no mark for the next one)
    return json.dumps(events, sort_keys=True)


def test_the_engine_answers_as_pinned():
    out = hashlib.sha256()
    for name in sorted(PRESETS):
        answers(name, out)
    if os.environ.get("PBEM_PRINT_DIGEST"):
        print("DIGEST", out.hexdigest())
    assert out.hexdigest() == DIGEST
