"""Tables into BENCHMARKS.md (between <!-- compare-servers --> markers) and a PNG chart per
scenario beside them (docs/benchmarks/)."""
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

WEBIMAGE = "webimage serve"


def table(rows):
    """Markdown rows; the last column is webimage's req/s over each peer's at the same connections."""
    ours = {r["connections"]: r["rps"] for r in rows if r["server"] == WEBIMAGE}
    lines = ["| Server | Conns | req/s | p50 ms | p99 ms | CPU ms/req | peak RSS MB | served | non-2xx | webimage ÷ this |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = "-" if r["server"] == WEBIMAGE or not r["rps"] else f"{ours.get(r['connections'], 0) / r['rps']:.2f}x"
        note = " (list ran out)" if r["exhausted"] else ""
        lines.append(f"| {r['server']} | {r['connections']} | {r['rps']:.1f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | "
                     f"{r['cpu_ms_per_request']:.1f} | {r['rss_peak_mb']:.0f} | {r['served']}{note} | {r['non2xx'] + r['errors']} | {ratio} |")
    return "\n".join(lines)


def chart(rows, title, path):
    servers = list(dict.fromkeys(r["server"] for r in rows))
    conns = sorted({r["connections"] for r in rows})
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.8 / len(conns)
    for ax, key, label in ((axes[0], "rps", "requests/s (higher is better)"), (axes[1], "p99_ms", "p99 latency, ms (lower is better)")):
        for j, c in enumerate(conns):
            values = [next((r[key] for r in rows if r["server"] == s and r["connections"] == c), 0) for s in servers]
            bars = ax.bar([i + j * width for i in range(len(servers))], values, width, label=f"{c} connections")
            ax.bar_label(bars, fmt="%.0f" if key == "rps" else "%.1f", fontsize=7)
        ax.set_xticks([i + width * (len(conns) - 1) / 2 for i in range(len(servers))], servers, rotation=15, fontsize=8)
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def rss_chart(samples, title, path):
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot([t for t, _ in samples], [m for _, m in samples])
    ax.set_xlabel("seconds into the run")
    ax.set_ylabel("RSS, MB")
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def replace_section(markdown_path, text, marker="compare-servers"):
    """`text` between <!-- MARKER --> and <!-- /MARKER --> (markers added when it has none)."""
    start, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    current = open(markdown_path).read() if os.path.exists(markdown_path) else ""
    block = f"{start}\n{text.strip()}\n{end}"
    if start in current:
        current = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: block, current, flags=re.S)
    else:
        current = current.rstrip() + "\n\n" + block + "\n"
    with open(markdown_path, "w") as f:
        f.write(current)


def replace_line(markdown_path, start, line):
    """The line that begins with `start` (a row of the head table) replaced by `line`; none, nothing done."""
    lines = open(markdown_path).read().split("\n")
    found = [i for i, l in enumerate(lines) if l.startswith(start)]
    if found:
        lines[found[0]] = line
        with open(markdown_path, "w") as f:
            f.write("\n".join(lines))
    return bool(found)
