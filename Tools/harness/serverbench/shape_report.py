"""The imgproxy shape's section of BENCHMARKS.md: speed per server and format, the ratios beside
imgproxy's published ones, the quality table, and where webimage's cold requests spend their time."""
import re

from . import shape_corpus, stages

NAMES = {"webimage": "webimage serve", "thumbor": "thumbor 7.8", "pyvips": "libvips reference"}
# imgproxy ÷ thumbor req/s on a c7i.large (their results/x86_64.md), and imagor's 2026 rerun.
PUBLISHED = {"jpeg": (1.54, 1.38), "png": (2.17, 1.70), "webp": (1.67, 1.54), "avif": (1.01, 1.15)}
GOALS = {"jpeg": 2.5, "png": 2.5, "webp": 2.5, "avif": 1.5}  # webimage ÷ thumbor, issue 39
MARKER = "compare-servers-imgproxy"
TITLE = "The imgproxy benchmark's shape: webimage serve vs thumbor 7.8 and libvips (issue 39)"
ANCHOR = re.sub(r"[^\w\- ]", "", TITLE.lower()).replace(" ", "-")  # GitHub's heading anchor
SUMMARY_START = "| Image server, imgproxy's benchmark shape"


def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "-"


def by(rows):
    return {(r["format"], r["kind"]): r for r in rows}


def speed_table(rows):
    lines = ["| Source → same format | Server | req/s | p50 ms | CPU ms/req | KB/answer | p50 ms, 1 at a time | served | non-2xx |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        note = " (list ran out)" if r["exhausted"] else ""
        lines.append(f"| {r['format'].upper()} | {NAMES[r['kind']]} | {r['rps']:.1f} | {r['p50_ms']:.0f} | {r['cpu_ms_per_request']:.1f} | "
                     f"{r['bytes'] / 1024:.1f} | {r['single_p50_ms']:.0f} | {r['served']}{note} | {r['non2xx'] + r['errors']} |")
    return "\n".join(lines)


def ratio_table(rows):
    table = by(rows)
    lines = ["| Format | webimage ÷ thumbor | webimage ÷ libvips | libvips ref. ÷ thumbor (here) | imgproxy ÷ thumbor (published) | "
             "imagor ÷ thumbor (2026 rerun) | goal ÷ thumbor | bytes webimage ÷ thumbor |",
             "|---|---|---|---|---|---|---|---|"]
    for fmt in formats(rows):
        ours, thumbor, vips = (table.get((fmt, k), {}) for k in ("webimage", "thumbor", "pyvips"))
        imgproxy, imagor = PUBLISHED[fmt]
        lines.append(f"| {fmt.upper()} | {ratio(ours.get('rps'), thumbor.get('rps'))} | {ratio(ours.get('rps'), vips.get('rps'))} | "
                     f"{ratio(vips.get('rps'), thumbor.get('rps'))} | {imgproxy:.2f}× | {imagor:.2f}× | ≥ {GOALS[fmt]}× | "
                     f"{ratio(ours.get('bytes'), thumbor.get('bytes'))} |")
    return "\n".join(lines)


def quality_table(rows, kinds):
    table = by(rows)
    head = "| Format | " + " | ".join(f"{NAMES[k]} MAE | PSNR dB" for k in kinds) + " |"
    lines = [head, "|---|" + "---|---|" * len(kinds)]
    for fmt in formats(rows):
        cells = []
        for k in kinds:
            r = table.get((fmt, k))
            cells += [f"{r['mae']:.2f}", f"{r['psnr']:.2f}"] if r else ["-", "-"]
        lines.append(f"| {fmt.upper()} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def stage_table(rows):
    lines = ["| Source format | Pass | " + " | ".join(stages.STAGES) + " | sum of stages | request p50 |",
             "|---|---|" + "---|" * (len(stages.STAGES) + 2)]
    for r in rows:
        if r["kind"] != "webimage" or "stages_single" not in r:
            continue
        for label, key, p50 in (("1 at a time", "stages_single", r["single_p50_ms"]), ("2 connections", "stages_load", r["p50_ms"])):
            means = r[key]
            cells = [f"{means[s]:.2f}" if means[s] is not None else "-" for s in stages.STAGES]
            total = sum(v for v in means.values() if v is not None)
            lines.append(f"| {r['format'].upper()} | {label} | " + " | ".join(cells) + f" | {total:.1f} | {p50:.1f} |")
    return "\n".join(lines)


def formats(rows):
    return list(dict.fromkeys(r["format"] for r in rows))


def summary_row(rows, env):
    """The line of BENCHMARKS.md's head table for this run (it starts with SUMMARY_START)."""
    table = by(rows)

    def ratios(peer, goal):
        cells = []
        for fmt in formats(rows):
            ours, theirs = table.get((fmt, "webimage"), {}).get("rps"), table.get((fmt, peer), {}).get("rps")
            text = ratio(ours, theirs)
            cells.append(f"**{text}**" if ours and theirs and round(ours / theirs, 2) < goal(fmt) else text)
        return " / ".join(cells)

    names = " / ".join(f.upper().replace("WEBP", "WebP") for f in formats(rows))
    sizes = [table[(f, "webimage")]["bytes"] / table[(f, "thumbor")]["bytes"] for f in formats(rows)
             if (f, "webimage") in table and (f, "thumbor") in table]
    png = (table.get(("png", "webimage")), table.get(("png", "thumbor")))
    quality = f"; PNG resize error {png[0]['mae']:.2f} vs thumbor's {png[1]['mae']:.2f} MAE" if all(png) else ""
    return (f"{SUMMARY_START}: 2040-px photos → fit-in 512, same format, 2 connections, {names} | thumbor 7.8 (their "
            f"config); libvips (pyvips) | {ratios('thumbor', GOALS.get)} thumbor's req/s; {ratios('pyvips', lambda _: 1.0)} "
            f"libvips'; bytes {min(sizes, default=0):.2f}–{max(sizes, default=0):.2f}× thumbor's{quality} | ≥ 2.5× thumbor "
            f"(AVIF 1.5×), ≥ 1.0× libvips, bytes ±20 % | `Tools/harness/compare-servers --shape imgproxy` | "
            f"[imgproxy shape](#{ANCHOR}), {env['date'][:10]} |")


def section(shape, rows, env):
    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    sizes = ", ".join(f"{fmt.upper()} {shape.source_bytes(fmt) / 1024:.0f} KB" for fmt in shape_corpus.FORMATS)
    return "\n".join([
        f"## {TITLE}",
        "",
        f"- Date: {env['date']}; machine: `{env['machine']}`; load average before/after: {env['load_before']} / {env['load_after']}",
        f"- Command: `{env['command']}`",
        f"- WebImage: {env['webimage']}; peers: {env['peers']}; every server, wrk and the origin share the same cores",
        "- Shape: [imgproxy/image-servers-benchmark](https://github.com/imgproxy/image-servers-benchmark) (k6.js, "
        "thumbor/thumbor.conf.in): `fit-in/512x512/filters:format(SAME):quality(Q)`, Q 80 for JPEG and PNG, 75 WebP, "
        f"65 AVIF; {shape.connections} connections (wrk); every URL names its source differently (the origin maps the name back), "
        "so no cache answers.",
        "- thumbor: one process, their thumbor.conf.in (`ENGINE_THREADPOOL_SIZE = 2`, PIL engine, LANCZOS, progressive "
        "JPEG, `no_storage`, no result storage, `AVIF_SPEED = 10`). libvips reference: pyvips `thumbnail_buffer` in a "
        "threaded server, `VIPS_CONCURRENCY=1`, progressive JPEG, AVIF effort 0 (imgproxy's speed 9), metadata "
        "stripped. webimage serve: its defaults, caches on (and always missed).",
        f"- Sources: {shape.sources} from {shape.pictures} distinct opaque pictures of `.photos/` (DIV2K is not on "
        "this machine): each at 2040 px on its long side (Pillow LANCZOS) plus 2040x1360 windows of the larger ones; "
        f"PNG from Pillow, JPEG and WebP (Q75) and AVIF (Q65, effort 0) by `vips copy` as their Makefile does. "
        f"Mean source: {sizes}.",
        f"- Per format, each server fresh: {shape.warm_up} warm-up requests, every source once one request at a time (bytes, "
        f"quality, stages), then {shape.seconds} s at {shape.connections} connections (req/s, p50, CPU). CPU ms/req: the server's "
        "process tree (user + system, children included) over the load run ÷ 2xx answers.",
        "",
        "### Speed",
        "",
        speed_table(rows),
        "",
        "### Ratios (req/s), beside imgproxy's published ones",
        "",
        ratio_table(rows),
        "",
        "### Quality: each answer against a float LANCZOS resize of its source",
        "",
        "Every source's answer decoded and compared over RGB with Pillow's LANCZOS done in float (mode \"F\", "
        "per channel) to the answer's size: mean absolute error (0-255, lower is closer) and PSNR (dB, higher "
        "is closer), averaged over the sources; the lossy encode is part of the difference. PNG is lossless, so its "
        "row is the resize alone; thumbor resizes with Pillow's LANCZOS, the reference's own filter in 8 bits.",
        "",
        quality_table(rows, kinds),
        "",
        "### Where a cold request's time goes (webimage's own `/metrics`)",
        "",
        "Mean ms per variant of `webimage_variant_stage_seconds{stage, format}` between readings before and after "
        "each pass; `request p50` is the client's. The decoders shrink as they decode (JPEG's DCT scaling, then the "
        "resampler to the planned size), so `decode` includes the resize and `transform` (crop, fit, filters) is "
        "what is left.",
        "",
        stage_table(rows),
    ])
