"""webimage serve's own per-stage timing, read from its /metrics: the histogram
webimage_variant_stage_seconds{stage, format} (format: the source's), and the mean time per stage
of the variants made between two readings."""
import re

STAGES = ("fetch", "header", "decode", "transform", "encode", "store")
SERIES = re.compile(r"^webimage_variant_stage_seconds_(sum|count)\{([^}]*)\} (\S+)$")


def read(text):
    """{(sum|count, stage, format): value} from Prometheus text."""
    totals = {}
    for line in text.splitlines():
        match = SERIES.match(line)
        if match:
            kind, labels, value = match.groups()
            labels = dict(re.findall(r'(\w+)="([^"]*)"', labels))
            totals[(kind, labels.get("stage"), labels.get("format"))] = float(value)
    return totals


def mean_ms(before, after, fmt):
    """{stage: mean ms per variant, or None when none ran} between two readings, for sources in fmt."""
    means = {}
    for stage in STAGES:
        count = after.get(("count", stage, fmt), 0) - before.get(("count", stage, fmt), 0)
        total = after.get(("sum", stage, fmt), 0) - before.get(("sum", stage, fmt), 0)
        means[stage] = 1000 * total / count if count else None
    return means
