"""The `pbem` command line."""

import json
import sys
from pathlib import Path

import click

from .engine import PRESETS, IllegalAction, RulesError, preset, pretty, score_pad
from .engine.tricks import table_for
from .engine.view import sort_cards
from .gamelog import LogError, export, read_log, replay_log
from .simulate import MAX_HANDS, play_game

PRESET_INFO = {
    "standard": "4 players in partnerships, nil and blind nil, 10 bags cost 100, game to 500",
    "tournament-300": "jokers and the 2S on top, teams bid 4+, double nil, 6 bags cost 60, "
                      "game to 300",
    "tournament-500": "the tournament sheet's championship game: as tournament-300, to 500",
    "barmore": "jokers, partnership bids, no nil, blind bids of 7+, dealer leads any card",
    "nyc": "New York City: jokers and 2D/2S on top, side bids 4-10, blind 6+ and coming out",
    "cutthroat-3": "3 players, 17 cards each, 2C leads, overtricks cost 10, game to 300",
    "cutthroat-4": "4 players without partners; beat the highest card so far if you can",
    "two-handed": "2 players draw their hands from the stock, then bid and play",
    "six-handed": "3 teams of 2 with two packs less the 2D, 17 cards each",
}


def _fail(message: str, code: int):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


@click.group()
def main():
    """pbem: Spades by email."""


# -- replay ---------------------------------------------------------------------------------


@main.command("replay")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--json", "as_json", is_flag=True, help="Print the score pad as JSON.")
def replay_cmd(file, as_json):
    """Replay a game log (FILE, or - for stdin) and print its score pad."""
    text = file.read()
    try:
        header = read_log(text)[0]
        st = replay_log(text)
    except LogError as e:
        _fail(str(e), 1)
    pad = score_pad(st)
    if as_json:
        click.echo(json.dumps(pad, indent=2))
    else:
        click.echo(pad_table(pad, header["seats"]))


def _side_name(seats, names) -> str:
    return "+".join(str(names[s]) for s in seats)


def _bid_text(side: dict) -> str:
    if side.get("bid") is None:
        return "-"  # B13: the hand was not bid
    nils = side.get("nils", [])
    parts = [] if nils and len(nils) == len(side["seats"]) else [str(side["bid"])]
    if side.get("blind"):
        parts[-1] = "blind " + parts[-1]
    parts += [n["bid"] + ("" if n["made"] else "(x)") for n in nils]
    return "+".join(parts)


def pad_table(pad: dict, names) -> str:
    """The score pad for people: one block of columns a side, one row a hand."""
    sides = [_side_name(s["seats"], names) for s in pad["sides"]]
    cols = ["bid", "tricks", "points", "score", "bags"]
    width = 8
    head = f"{'hand':>4} {'dealer':<8}" + "".join(f" | {n[:5 * width]:<{5 * width}}"
                                                  for n in sides)
    sub = " " * 13 + "".join(" | " + "".join(f"{c:>{width}}" for c in cols) for _ in sides)
    lines = [head, sub]
    for i, row in enumerate(pad["hands"], 1):
        cells = []
        for s in row["sides"]:
            points = str(s["points"]) + (f"-{s['bag_penalty']}" if s.get("bag_penalty") else "")
            vals = [_bid_text(s), s["tricks"], points, s["score"], s["total_bags"]]
            cells.append("".join(f"{str(v):>{width}}" for v in vals))
        dealer = str(names[row["dealer"]])
        lines.append(f"{row.get('hand', i):>4} {dealer[:8]:<8}" + "".join(f" | {c}"
                                                                          for c in cells))
    totals = ", ".join(f"{n} {s['score']} ({s['bags']} bags)"
                       for n, s in zip(sides, pad["sides"], strict=True))
    lines.append(f"totals: {totals}")
    if pad["over"]:
        lines.append(f"winner: {sides[pad['winner']]}")
    else:
        lines.append("the game is not over")
    return "\n".join(line.rstrip() for line in lines)


# -- rules ------------------------------------------------------------------------------------


@main.group("rules")
def rules_group():
    """The presets and their options."""


@rules_group.command("list")
def rules_list():
    """Each preset with a one-line description."""
    width = max(len(n) for n in PRESETS)
    for name in PRESETS:
        click.echo(f"{name:<{width}}  {PRESET_INFO.get(name, '')}")


def _option_values(options) -> dict:
    """KEY=VALUE pairs from the command line; values are JSON if they parse (true, 7, null,
    [..]), else words ("draw", "2H,2D")."""
    out = {}
    for text in options:
        key, eq, value = text.partition("=")
        if not eq or not key:
            _fail(f"option {text!r} is not KEY=VALUE", 2)
        try:
            out[key.replace("-", "_")] = json.loads(value)
        except ValueError:
            out[key.replace("-", "_")] = value
    return out


def build_rules(name: str, options):
    """A preset with --option overrides, or exit 2 saying what is wrong."""
    try:
        return preset(name).with_options(**_option_values(options))
    except RulesError as e:
        _fail(str(e), 2)


OPTION = click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
                      help="Override one option of the preset (repeatable).")


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


# -- robot games ------------------------------------------------------------------------------


def _result_line(st) -> str:
    pad = score_pad(st)
    scores = " / ".join(str(s["score"]) for s in pad["sides"])
    if st.winner is None:
        return f"{st.hand_no} hands, scores {scores}, unfinished"
    seats = "+".join(str(s) for s in pad["sides"][st.winner]["seats"])
    return f"{st.hand_no} hands, scores {scores}, winner side {st.winner} (seats {seats})"


@main.command("simulate")
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
            _fail(f"game {g}: {e}", 1)
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


@main.command("demo")
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
            self.play(st.n, ev)
        if len(st.history) > self.scored:  # the hand just ended (last trick or a claim)
            self.scored = len(st.history)
            self.trick = []
            self.show_score(st.history[-1])

    def show_hands(self, st):
        for s, hand in enumerate(st.hands):
            click.echo(f"  seat {s}: {_cards(hand, self.table)}")

    def play(self, n, ev):
        self.trick.append((ev["seat"], ev["card"]))
        if len(self.trick) < n:
            return
        winner = self.trick[self.table.winning(self.trick)][0]
        cards = ", ".join(f"{s}:{pretty(c)}" for s, c in self.trick)
        click.echo(f"  trick: {cards} -> seat {winner}")
        self.trick = []

    def show_score(self, row):
        for side in row["sides"]:
            seats = "+".join(str(x) for x in side["seats"])
            click.echo(f"  seats {seats}: bid {_bid_text(side)}, took {side['tricks']}, "
                       f"{side['points']:+d} -> {side['score']} ({side['total_bags']} bags)")
