"""The score chart, drawn on the server as SVG: each side's running score hand by hand,
against a light grid and the target line. Sized so its labels read at 12 px or more on a
360 px phone (the page shows it at most 28rem wide)."""

from markupsafe import Markup, escape

from ..i18n import _

COLOURS = ["#1f5fa8", "#b3261e", "#2e7d32"]  # blue, red, green: readable on white
GRID = "#d9d9d9"  # light: the lines are what matters
WIDTH, PLOT_H = 360, 170
LEFT, RIGHT, TOP = 44, 12, 24  # room above the top line for its label
FONT = 13


def step_for(span: int) -> int:
    """The grid's step: the smallest round one (1, 2, 2.5 or 5 times a power of ten, from
    10) that draws at most six lines, however wide the scores range."""
    base = 10
    while True:
        for m in (1, 2, 2.5, 5):
            if span <= 6 * base * m:
                return int(base * m)
        base *= 10


def score_svg(pad: dict, labels: list[str], target: int | None = None) -> Markup:
    """The chart, or nothing while no hand is scored (an empty box says nothing)."""
    if not pad["hands"]:
        return Markup("")
    series = [[0] + [h["sides"][i]["score"] for h in pad["hands"]] for i in range(len(labels))]
    low = min(0, *[min(s) for s in series])
    high = max(target or 100, *[max(s) for s in series])
    step = step_for(high - low)
    low, high = low // step * step, -(-high // step) * step  # out to whole steps
    n = len(series[0]) - 1
    height = TOP + PLOT_H + 22 + 18 * len(series)  # hand numbers, then one legend line a side

    def x(i):
        return LEFT + i * (WIDTH - LEFT - RIGHT) / max(1, n)

    def y(v):
        return TOP + (high - v) * PLOT_H / (high - low)

    said = "; ".join(f"{name} {s[-1]}" for name, s in zip(labels, series, strict=True))
    if target:
        said = _("%(scores)s, target %(target)s") % {"scores": said, "target": target}
    said = _("Score chart: %(scores)s") % {"scores": said}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
             f'class="chart" role="img" aria-label="{escape(said)}" '
             f'font-size="{FONT}" font-family="system-ui, sans-serif" fill="#111">']
    for v in range(low, high + 1, step):
        parts.append(f'<line x1="{LEFT}" y1="{y(v):.1f}" x2="{WIDTH - RIGHT}" y2="{y(v):.1f}" '
                     f'stroke="{"#767676" if v == 0 else GRID}" stroke-width="1"/>'
                     f'<text x="{LEFT - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    if target:
        parts.append(f'<line x1="{LEFT}" y1="{y(target):.1f}" x2="{WIDTH - RIGHT}" '
                     f'y2="{y(target):.1f}" stroke="#111" stroke-width="1.5" '
                     'stroke-dasharray="6 4"/>'
                     f'<text x="{WIDTH - RIGHT}" y="{y(target) - 4:.1f}" text-anchor="end">'
                     f'{escape(_("target %(target)s") % {"target": target})}</text>')
    every = -(-n // 10)  # at most ten hand numbers along the bottom
    parts += [f'<text x="{x(j):.1f}" y="{TOP + PLOT_H + 16}" text-anchor="middle">{j}</text>'
              for j in range(0, n + 1, every)]
    for i, s in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        points = " ".join(f"{x(j):.1f},{y(v):.1f}" for j, v in enumerate(s))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" '
                     f'points="{points}"><title>{escape(labels[i])}</title></polyline>')
        parts.append(f'<text x="{LEFT}" y="{TOP + PLOT_H + 38 + 18 * i}" fill="{colour}">'
                     f'■ {escape(labels[i])}: {s[-1]}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
