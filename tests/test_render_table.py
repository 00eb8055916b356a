"""A mail's table (pbem.compose.table_txt, table_html, commitment_html, and the public part
shared by a move's mails: public_txt, public_html) writes what the Jinja macros of
mail/table.* wrote, byte for byte, for every seat's view (and a spectator's) at every move
of seeded random games of every preset, with names to escape and deal commitments with and
without their salt."""

import random

import pytest

from pbem import compose
from pbem.engine import PRESETS, new_game, preset, view
from tests.helpers import random_step
from tests.test_mail_bytes import NAMES

# The macros as they were (lead at 0755b9e), verbatim: a line of template a line here.
# ruff: noqa: E501
OLD_TXT = ('{%- macro table(v, names) -%}\n'
    'Game {{ v.game_id }} ({{ v.preset }}), hand {{ v.hand_no }}, move {{ v.seq }}\n'
    '{% if v.hand %}\n'
    'Your hand:\n'
    '{%- for suit, cards in v.hand_by_suit %}\n'
    '  {{ suit }}  {{ cards | join(" ") }}\n'
    '{%- endfor %}\n'
    '{% elif v.seat is not none and not v.looked %}\n'
    'You have not looked at your cards yet (you may bid blind).\n'
    '{% endif %}\n'
    '{%- if v.dummy_pretty %}\n'
    'Dummy (played by {{ names[v.dummy.declarer] }}{% if v.dummy.on_turn %}, its turn{% endif %}): {{ v.dummy_pretty }}\n'
    '{% endif %}\n'
    '{{- shared("txt", v, names) }}\n'
    '{%- if v.deal_commitment %}\n'
    '\n'
    'Deal commitment (SHA-256):\n'
    '  {{ v.deal_commitment.sha256 }}{% if v.deal_commitment.salt %}\n'
    'Salt: {{ v.deal_commitment.salt }}{% endif %}\n'
    '{%- endif %}\n'
    '{%- endmacro %}')
OLD_HTML = ('{% macro table(v, names) -%}\n'
    '<p><strong>Game {{ v.game_id }}</strong> ({{ v.preset }}), hand {{ v.hand_no }}, move {{ v.seq }}</p>\n'
    '{% if v.hand %}<p>Your hand:<br>\n'
    '{% for suit, list in v.hand_by_suit %}<span style="font-size: 1.2em">{{ list | cards }}</span><br>\n'
    '{% endfor %}</p>\n'
    '{% elif v.seat is not none and not v.looked %}<p>You have not looked at your cards yet (you may bid blind).</p>\n'
    '{% endif %}\n'
    '{% if v.dummy_pretty %}<p>Dummy (played by {{ names[v.dummy.declarer] }}{% if v.dummy.on_turn %}, its turn{% endif %}): {{ v.dummy_pretty }}</p>\n'
    '{% endif %}\n'
    '{{ shared("html", v, names) }}\n'
    '{%- endmacro %}')
OLD_COMMITMENT = ('{% macro commitment(v) -%}\n'
    '{% if v.deal_commitment %}<p style="font-size: 0.8em; color: #444; overflow-wrap: anywhere; word-break: break-all">Deal commitment (SHA-256): {{ v.deal_commitment.sha256 }}{% if v.deal_commitment.salt %}, salt {{ v.deal_commitment.salt }}{% endif %}</p>{% endif %}\n'
    '{%- endmacro %}')

OLD_PUBLIC_TXT = ('{% macro public(v, names) %}{% if v.trick %}\n'
    'On the table: {% for t in v.trick %}{{ names[t.seat] }}{% if t.dummy %} (dummy){% endif %} {{ t.card_pretty }}{% if not loop.last %}, {% endif %}{% endfor %}\n'
    '{% endif %}\n'
    '{%- if v.last_trick %}\n'
    'Last trick: {% for t in v.last_trick.cards %}{{ names[t.seat] }} {{ t.card_pretty }}{% if not loop.last %}, {% endif %}{% endfor %} (won by {{ names[v.last_trick.winner] }})\n'
    '{% endif %}\n'
    '{%- if v.last_hand %}\n'
    'Hand {{ v.scored }} was scored: {{ v.last_hand }}\n'
    '{% endif %}\n'
    '{%- if not v.over %}\n'
    'Bids and tricks:\n'
    '{%- for s in range(v.players) %}\n'
    '  {{ "%-16s"|format(names[s]) }} bid {{ v.bids[s] if v.bids[s] is not none else "-" }}{% if v.blind[s] %} (blind){% endif %}{% if v.mo and v.mo.seat == s %} {{ v.mo.call }}{% endif %}, took {{ v.won[s] }}\n'
    '{%- endfor %}\n'
    '{% endif %}\n'
    '\n'
    'Score:\n'
    '{%- for side in v.sides %}\n'
    '  {{ side.label }}: {{ side.score }} ({{ side.bags | plural("bag") }})\n'
    '{%- endfor %}\n'
    '{%- endmacro %}')
OLD_PUBLIC_HTML = ('{% macro public(v, names) %}{% if v.trick %}<p>On the table: {{ v.trick | played(names) }}</p>\n'
    '{% endif %}\n'
    '{% if v.last_trick %}<p>Last trick: {{ v.last_trick.cards | played(names) }} (won by {{ names[v.last_trick.winner] }})</p>\n'
    '{% endif %}\n'
    '{% if v.last_hand %}<p>Hand {{ v.scored }} was scored: {{ v.last_hand }}</p>\n'
    '{% endif %}\n'
    '{% if not v.over %}<table cellpadding="4" style="border-collapse: collapse">\n'
    '<tr><th align="left">Player</th><th>Bid</th><th>Tricks</th></tr>\n'
    '{% for s in range(v.players) %}<tr><td style="overflow-wrap: anywhere">{{ names[s] }}</td><td align="center">{{ v.bids[s] if v.bids[s] is not none else "-" }}{% if v.blind[s] %} (blind){% endif %}{% if v.mo and v.mo.seat == s %} {{ v.mo.call }}{% endif %}</td><td align="center">{{ v.won[s] }}</td></tr>\n'
    '{% endfor %}</table>{% endif %}\n'
    '<p>{% for side in v.sides %}{{ side.label }}: <strong>{{ side.score }}</strong> ({{ side.bags | plural("bag") }})<br>{% endfor %}</p>\n'
    '{%- endmacro %}')


def old_env(**options):
    """The mail templates' environment with the filters and the global the old macros used
    (the mail templates need them no more)."""
    env = compose.env().overlay(**options)
    env.filters = {**env.filters, "card": compose.card_html, "cards": compose.cards_html,
                   "played": compose.played_html, "plural": compose.plural}
    env.globals = {**env.globals, "shared": compose.shared}
    return env


def old_renderers():
    text = old_env(autoescape=False).from_string(OLD_TXT + "{{ table(v, names) }}")
    html = old_env().from_string(OLD_HTML + OLD_COMMITMENT
                                 + "{{ table(v, names) }}|{{ commitment(v) }}")
    return text, html


def old_public():
    text = old_env(autoescape=False).from_string(OLD_PUBLIC_TXT + "{{ public(v, names) }}")
    return text, old_env().from_string(OLD_PUBLIC_HTML + "{{ public(v, names) }}")


def views(name: str, seed: int):
    """Every seat's view and a spectator's, as compose.context gives it, at every move;
    some with the deal's commitment, its salt revealed or not."""
    rng = random.Random(seed)
    st = new_game(preset(name), first_dealer=seed % preset(name).players)
    names = NAMES[:st.n]
    for step in range(400):
        if st.phase == "over":
            break
        random_step(st, rng)
        for seat in [*range(st.n), None]:
            v = compose.context(view(st, seat), 7, names)
            if step % 3 == 1:
                v["deal_commitment"] = {"seq": 1, "sha256": "ab<c>" * 3,
                                        "salt": "s&1" if step % 2 else None}
            yield v, names


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_table_functions_write_what_the_macros_wrote(name):
    text, html = old_renderers()
    seen = set()
    for v, names in views(name, 2):
        assert compose.table_txt(v, names) == text.render(v=v, names=names)
        new = f"{compose.table_html(v, names)}|{compose.commitment_html(v)}"
        assert new == html.render(v=v, names=names)
        seen.add((bool(v["hand"]), v.get("looked"), bool(v.get("dummy_pretty")),
                  bool((v.get("dummy") or {}).get("on_turn"))))
    assert (True, True, False, False) in seen  # a hand shown: the corpus is not empty


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_public_functions_write_what_the_macros_wrote(name):
    """The shared part (what compose.shared renders from compose.public_view)."""
    text, html = old_public()
    for v, names in views(name, 4):
        p, names = compose.public_view(v), tuple(names)
        assert compose.public_txt(p, names) == text.render(v=p, names=names)
        assert compose.public_html(p, names) == html.render(v=p, names=names)


def test_the_corpus_reaches_every_branch():
    """Between them, the presets' games show a hand, a seat that has not looked yet, a
    spectator, a dummy (on its turn and not), a trick, a last trick, a hand scored, a blind
    bid, a Mo call, a game over."""
    seen = set()
    for name, seed in (("standard", 2), ("dummy-3", 2), ("mo", 2), ("barmore", 2), ("nyc", 4)):
        for v, _ in views(name, seed):
            dummy = v.get("dummy") or {}
            seen |= {("hand", bool(v["hand"])), ("blind", v["seat"] is not None
                                                 and not v.get("looked")),
                      ("spectator", v["seat"] is None),
                      ("dummy", bool(v.get("dummy_pretty")), bool(dummy.get("on_turn"))),
                      ("trick", bool(v["trick"])), ("last", bool(v.get("last_trick"))),
                      ("scored", bool(v.get("last_hand"))), ("over", v["over"]),
                      ("blind bid", any(v["blind"])), ("mo", bool(v.get("mo")))}
    assert {("hand", True), ("blind", True), ("spectator", True), ("dummy", True, True),
            ("dummy", True, False), ("trick", True), ("last", True), ("scored", True),
            ("over", True), ("blind bid", True), ("mo", True)} <= seen


def test_escaped_in_html_only():
    st = new_game(preset("dummy-3"), first_dealer=0)
    rng = random.Random(1)
    while not (st.phase == "play" and st.trick):
        random_step(st, rng)
    names = ["<a&b>", "c", "d"]
    v = compose.context(view(st, 0), 7, names)
    v["deal_commitment"] = {"seq": 1, "sha256": "<h>", "salt": "<s>"}
    assert "&lt;h&gt;" in compose.commitment_html(v) and "&lt;s&gt;" in compose.commitment_html(v)
    assert "&lt;a&amp;b&gt;" in compose.table_html(v, names)
    assert "<a&b>" not in compose.table_html(v, names)
    assert "<h>" in compose.table_txt(v, names)
