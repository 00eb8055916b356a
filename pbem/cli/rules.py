"""`pbem rules`, `pbem simulate`, `pbem demo`: the presets and robot games, no database."""

import json
from pathlib import Path

import click

from ..engine import PRESETS, IllegalAction, pretty, score_pad
from ..engine.tricks import table_for
from ..engine.view import sort_cards
from ..gamelog import export
from ..i18n import _
from ..simulate import MAX_HANDS, play_game
from .common import OPTION, bid_text, build_rules, fail

PRESET_INFO = {
    "standard": "4 players in partnerships, nil and blind nil, 10 bags cost 100, game to 500",
    "tournament-300": "jokers and the 2S on top, teams bid 4+, double nil, 6 bags cost 60, "
                      "game to 300",
    "tournament-500": "the tournament sheet's championship game: as tournament-300, to 500",
    "barmore": "jokers, partnership bids, no nil, blind bids of 7+, dealer leads any card",
    "nyc": "New York City: jokers and 2D/2S on top, side bids 4-10, blind 6+ and coming out",
    "cutthroat-3": "3 players, 17 cards each, 2C leads, overtricks cost 10, game to 300",
    "cutthroat-4": "4 players without partners; beat the highest card so far if you can",
    "dummy-3": "3 players and a dummy hand: the highest bidder plays it, face up",
    "two-handed": "2 players draw their hands from the stock, then bid and play",
    "six-handed": "3 teams of 2 with two packs less the 2D, 17 cards each",
    "whiz": "forced bids: each player bids the spades they hold, or nil",
    "suicide": "forced bids: one partner of each side bids nil, the other 4 or more",
    "mo": "a side may call little Mo (first 7 tricks, 150) or big Mo (first 10, 250)",
}


@click.group("rules")
def rules_group():
    """The presets and their options."""


@rules_group.command("list")
def rules_list():
    """Each preset with a one-line description."""
    width = max(len(n) for n in PRESETS)
    for name in PRESETS:
        click.echo(f"{name:<{width}}  {PRESET_INFO.get(name, '')}")


@rules_group.command("show")
@click.argument("name", metavar="PRESET")
@OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
def rules_show(name, options, as_json):
    """Every option of PRESET with its value."""
    rules = build_rules(name, options)
    data = rules.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    width = max(len(k) for k in data)
    for key, value in data.items():
        click.echo(f"{key:<{width}}  {json.dumps(value)}")


def _result_line(st) -> str:
    pad = score_pad(st)
    scores = " / ".join(str(s["score"]) for s in pad["sides"])
    if st.winner is None:
        return f"{st.hand_no} hands, scores {scores}, unfinished"
    seats = "+".join(str(s) for s in pad["sides"][st.winner]["seats"])
    return f"{st.hand_no} hands, scores {scores}, winner side {st.winner} (seats {seats})"


@click.command("simulate")
@click.option("--rules", "rules_name", default="standard", show_default=True,
              metavar="PRESET")
@OPTION
@click.option("--games", default=10, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write each game's log as DIR/game-0001.jsonl.")
@click.option("--max-hands", default=MAX_HANDS, show_default=True,
              type=click.IntRange(min=1), help="Stop a game after this many hands.")
def simulate_cmd(rules_name, options, games, seed, log_dir, max_hands):
    """Play robot games and print one line each and a summary."""
    rules = build_rules(rules_name, options)
    if log_dir:
        log_dir.mkdir(parents=True, exist_ok=True)
    wins = [0] * len(rules.sides)
    unfinished = hands = 0
    for g in range(1, games + 1):
        try:
            st, events = play_game(rules, f"{seed}:{g}", max_hands=max_hands)
        except IllegalAction as e:  # the robot broke a rule: a bug worth a loud stop
            fail(f"game {g}: {e}", 1)
        click.echo(f"game {g}: {_result_line(st)}")
        hands += st.hand_no
        if st.winner is None:
            unfinished += 1
        else:
            wins[st.winner] += 1
        if log_dir:
            text = export(rules, events, [f"robot{i}" for i in range(rules.players)],
                          st.first_dealer)
            (log_dir / f"game-{g:04d}.jsonl").write_text(text, encoding="utf-8")
    per_side = ", ".join(f"side {i}: {w}" for i, w in enumerate(wins))
    click.echo(f"{games} games of {rules.preset}, {hands / games:.1f} hands a game; "
               f"wins {per_side}; unfinished {unfinished}")


@click.command("demo")
@click.option("--rules", "rules_name", default="standard", show_default=True,
              metavar="PRESET")
@OPTION
@click.option("--seed", default=0, show_default=True, type=int)
def demo_cmd(rules_name, options, seed):
    """Play one robot game and print it as it is played."""
    rules = build_rules(rules_name, options)
    st, _ = play_game(rules, seed, on_event=_Narrator(rules))
    click.echo(f"game over: {_result_line(st)}")


def _cards(cards, table) -> str:
    return " ".join(pretty(c) for c in sort_cards(cards, table))


class _Narrator:
    """Prints each event of a robot game for people (the on_event of play_game)."""

    def __init__(self, rules):
        self.table = table_for(rules)
        self.trick = []
        self.scored = 0  # score pad rows printed so far

    def __call__(self, st, ev):
        kind, seat = ev["type"], ev.get("seat")
        if kind == "deal":
            click.echo(f"\n== hand {st.hand_no + 1}: seat {ev['dealer']} deals ==")
            if not ev.get("stock"):
                self.show_hands(st)
        elif kind == "draw" and st.phase != "draw":
            click.echo("the stock is drawn:")
            self.show_hands(st)
        elif kind == "bid":
            blind = "blind " if ev.get("blind") else ""
            click.echo(f"seat {seat} bids {blind}{ev['bid']}")
        elif kind == "pass":
            click.echo(f"seat {seat} passes {_cards(ev['cards'], self.table)}")
        elif kind in ("misdeal", "come_out", "stay", "claim"):
            click.echo(f"seat {seat}: {kind.replace('_', ' ')}")
        elif kind == "play":
            self.play(st.rules.hands, ev)  # T4: the dummy plays too
        if len(st.history) > self.scored:  # the hand just ended (last trick or a claim)
            self.scored = len(st.history)
            self.trick = []
            self.show_score(st.history[-1])

    def show_hands(self, st):
        for s, hand in enumerate(st.hands):
            click.echo(f"  seat {s}: {_cards(hand, self.table)}")
        if st.dummy_hand:  # T4
            click.echo(f"  dummy: {_cards(st.dummy_hand, self.table)}")

    def play(self, n, ev):
        self.trick.append((ev["seat"], ev["card"]))
        if len(self.trick) < n:
            return
        best = self.table.taker(self.trick)
        cards = ", ".join(f"{s}:{pretty(c)}" for s, c in self.trick)
        taker = _("no one (dead)") if best is None else f"seat {self.trick[best][0]}"
        click.echo(f"  trick: {cards} -> {taker}")
        self.trick = []

    def show_score(self, row):
        for side in row["sides"]:
            seats = "+".join(str(x) for x in side["seats"])
            click.echo(f"  seats {seats}: bid {bid_text(side)}, took {side['tricks']}, "
                       f"{side['points']:+d} -> {side['score']} ({side['total_bags']} bags)")


COMMANDS = [rules_group, simulate_cmd, demo_cmd]
