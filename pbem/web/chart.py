"""The score chart, drawn on the server as SVG: each side's running score hand by hand."""

from markupsafe import Markup, escape

COLOURS = ["#1f5fa8", "#b3261e", "#2e7d32"]  # blue, red, green: readable on white


def score_svg(pad: dict, labels: list[str], width=480, height=220) -> Markup:
    series = [[0] + [h["sides"][i]["score"] for h in pad["hands"]] for i in range(len(labels))]
    lo = min(0, *[min(s) for s in series])
    hi = max(100, *[max(s) for s in series])
    n = max(1, len(series[0]) - 1)
    pad_l, pad_b = 40, 24 + 16 * len(series)  # the legend sits under the plot

    def x(i):
        return pad_l + i * (width - pad_l - 10) / n

    def y(v):
        return 10 + (hi - v) * (height - 10 - pad_b) / (hi - lo)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="Score chart: {escape(", ".join(labels))}">',
             f'<line x1="{pad_l}" y1="{y(0):.1f}" x2="{width - 10}" y2="{y(0):.1f}" '
             'stroke="#888" stroke-width="1"/>',
             f'<text x="2" y="{y(hi) + 4:.1f}" font-size="11">{hi}</text>',
             f'<text x="2" y="{y(lo):.1f}" font-size="11">{lo}</text>']
    for i, s in enumerate(series):
        points = " ".join(f"{x(j):.1f},{y(v):.1f}" for j, v in enumerate(s))
        colour = COLOURS[i % len(COLOURS)]
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" '
                     f'points="{points}"><title>{escape(labels[i])}</title></polyline>')
        parts.append(f'<text x="{pad_l}" y="{height - 4 - 16 * (len(series) - 1 - i)}" '
                     f'font-size="13" fill="{colour}">■ {escape(labels[i])}: {s[-1]}</text>')
    parts += [f'<text x="{x(j) - 3:.1f}" y="{y(lo) + 14:.1f}" font-size="10">{j}</text>'
              for j in range(1, n + 1) if n <= 30]  # hand numbers along the bottom
    parts.append("</svg>")
    return Markup("".join(parts))
