"""Rows P7, P8 and P9 of Tools/harness/compare-peers (imported by it; not run on its own): the modern
formats side by side with Pillow's plugins, on files Tools/harness/pillowcheck/derive.py makes from the
photos (avifenc / heif-enc; the same files Tools/harness/compare-pillow checks for correctness).

P7  AVIF full decode to RGBA8: `webimage-bench decode` (in-process, AVIFCoder: libavif 0.11 + dav1d,
    one thread) vs Pillow + pillow-avif-plugin `Image.open(BytesIO(data)).load()` (+ convert('RGBA')
    when the file has no alpha, as WebImage always hands out RGBA8), with the plugin's decoder at one
    thread (the goal's comparison: like for like) and at its default (all cores: context).
    Goal: WebImage <= 1.0x the plugin (geometric mean of per-file ratios).
P8  HEIF/HEIC the same way: HEIFCoder (libheif 1.15 + libde265) vs pillow-heif (libheif 1.2x +
    libde265), pillow_heif.options.DECODE_THREADS = 1, then its default. Goal: <= 1.0x. A third
    column calls Debian's libheif (the one WebImage links) directly through ctypes, so a miss can be
    told apart: WebImage's own cost, or the Debian library's.
P9  AVIF encode of 512-px thumbnails (longest side 512; PNGs without ICC written once) at equal
    quality: WebImage's 0-1 quality maps to one AV1 quantizer, q = ((100 - Q) * 63 + 50) / 100 with
    Q in percent (AVIFEncoding.swift; libavif 1.x's quality mapping), min = max, alpha too, speed 8
    (AVIFCoder's default; the CLI has no speed option), one thread, 4:2:0, full range.
      webimage fetch PNG --no-cache --format avif --quality Q -o OUT (a process: start-up, PNG read
          and decode, encode, write) vs
      avifenc -j 1 -s 8 -y 420 -d 8 --min q --max q --minalpha q --maxalpha q PNG OUT (a process
          doing the same work with the same libavif 0.11 + aom), both timed by hyperfine, and
      Pillow + pillow-avif-plugin im.save(BytesIO, 'AVIF', quality=Q, speed=8, max_threads=1,
          subsampling='4:2:0') in-process on pixels already loaded (libavif 1.x maps quality to the
          same quantizer). So that process start-up does not count against WebImage only, the table
          also gives WebImage's encode alone, estimated as its fetch median minus the median of
          `webimage decode PNG` (start-up, read, decode) on the same file: an upper bound, as
          fetch's ImageManager pipeline counts as encode there. Builds with the hidden
          `webimage-bench encode` (in-process AVIFCoder, 3a5d9ef on) also get its p50/p95 at speed 8
          and a speed 6/8/10 size/time note; older builds say n/a.
    Times: p50 and p95 of the runs; sizes in bytes. Goal: WebImage's p95 < 250 ms (whole process).
"""
import io
import math
import os
import shutil
import statistics
import subprocess
import tempfile

from peerbench_fetch import Table, log
from pillowcheck import decode, derive
from pillowcheck.env import DERIVED, PHOTOS

THUMB_SIDE = 512
THUMB_SOURCES = ("wood", "twowings", "ladybird", "yellowflower", "garden", "gulp")
QUALITIES = (90, 75)  # the CLI's default (ImageEncodeOptions 0.9) and a typical web setting
SPEED = 8
ENCODE_GOAL_MS = 250
DECODE_GOAL = 1.0


def quantizer(quality_percent):
    """AVIFEncoding.swift's mapping of a 0-100 quality to AV1's 0-63 quantizer."""
    return ((100 - quality_percent) * 63 + 50) // 100


def percentile(values, p):
    """Nearest-rank percentile (p in 0-100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def geomean(ratios):
    return math.exp(statistics.fmean(math.log(r) for r in ratios)) if ratios else None


def num(value, digits=1, suffix=""):
    return "n/a" if value is None else f"{value:.{digits}f}{suffix}"


def binary_note(binary):
    """Which build was measured: the binary's path and the commit of the checkout it sits in (the
    section's WebImage line names the tree the script ran from, which may be another worktree)."""
    def git(*args):
        result = subprocess.run(["git", "-C", os.path.dirname(binary), *args], capture_output=True, text=True)
        return result.stdout.strip() if result.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "not in a git checkout"
    if git("status", "--porcelain", "--untracked-files=no", "--", "Sources", "Package.swift"):
        commit += " + uncommitted changes to Sources"
    return f"Binary: `{binary}` (checkout at {commit})"


def versions():
    v = decode.pillow_versions()
    return f"{v['pillow']}; {v['avif']}; {v['heif']}"


# --------------------------------------------------------------------------------- P7 / P8

def set_plugin_threads(fmt, threads):
    """threads None = the plugin's own default, restored."""
    if fmt == "avif":
        from pillow_avif import AvifImagePlugin

        AvifImagePlugin.DEFAULT_MAX_THREADS = 0 if threads is None else threads
    else:
        import pillow_heif

        pillow_heif.options.DECODE_THREADS = 4 if threads is None else threads


def debian_libheif():
    """(version, decode(data)) calling Debian's libheif.so.1 (the library HEIFCoder links) through
    ctypes: context, primary handle, heif_decode_image to interleaved RGBA, release. Separates
    WebImage's own cost from the library's when P8 misses its goal. None if it cannot load."""
    import ctypes

    try:
        lib = ctypes.CDLL("libheif.so.1")
    except OSError:
        return None

    class Error(ctypes.Structure):
        _fields_ = [("code", ctypes.c_int), ("subcode", ctypes.c_int), ("message", ctypes.c_char_p)]

    pointer, out = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    signatures = {
        "heif_get_version": ([], ctypes.c_char_p),
        "heif_context_alloc": ([], pointer),
        "heif_context_free": ([pointer], None),
        "heif_context_read_from_memory_without_copy": ([pointer, ctypes.c_char_p, ctypes.c_size_t, pointer], Error),
        "heif_context_get_primary_image_handle": ([pointer, out], Error),
        "heif_decode_image": ([pointer, out, ctypes.c_int, ctypes.c_int, pointer], Error),
        "heif_image_handle_release": ([pointer], None),
        "heif_image_release": ([pointer], None),
    }
    for name, (args, result) in signatures.items():
        getattr(lib, name).argtypes, getattr(lib, name).restype = args, result
    rgb, interleaved_rgba = 1, 11  # heif_colorspace_RGB, heif_chroma_interleaved_RGBA

    def decode_rgba(data):
        context, handle, image = lib.heif_context_alloc(), ctypes.c_void_p(), ctypes.c_void_p()
        try:
            for error in (lambda: lib.heif_context_read_from_memory_without_copy(context, data, len(data), None),
                          lambda: lib.heif_context_get_primary_image_handle(context, ctypes.byref(handle)),
                          lambda: lib.heif_decode_image(handle, ctypes.byref(image), rgb, interleaved_rgba, None)):
                result = error()
                if result.code:
                    raise RuntimeError(result.message.decode())
        finally:
            lib.heif_image_release(image)
            lib.heif_image_handle_release(handle)
            lib.heif_context_free(context)

    return lib.heif_get_version().decode(), decode_rgba


def decode_row(ctx, tools, fmt):
    """P7 (fmt 'avif') or P8 ('heic'): one table row per file plus the geometric means."""
    from PIL import Image

    decode.register_plugins()
    files = derive.make_modern(fmt)
    plugin = "pillow-avif-plugin" if fmt == "avif" else "pillow-heif"
    header = ["File", "Kind", "Size", "WebImage ms", f"{plugin} 1 thread ms", "Ratio",
              f"{plugin} default threads ms", "Ratio", "K"]
    direct = debian_libheif() if fmt == "heic" else None
    if direct:
        header.insert(-1, f"Debian libheif {direct[0]} via ctypes ms")
    rows, ratios_one, ratios_default = [], [], []
    for path, kind in files.items():
        name = os.path.relpath(path, PHOTOS)
        if ctx.out_of_time():
            rows.append([name, kind, "-", "skipped: time budget", "", "", "", "", ""])
            continue
        data = ctx.data(path)

        def pillow():
            im = Image.open(io.BytesIO(data))
            im.load()
            return im if im.mode == "RGBA" else im.convert("RGBA")

        set_plugin_threads(fmt, 1)
        k = ctx.iterations(tools.probe(pillow))
        ours, note = tools.bench_webimage(ctx, path, k)
        one = tools.time_in_process(pillow, ctx.args.warmup, k)
        set_plugin_threads(fmt, None)
        default = tools.time_in_process(pillow, ctx.args.warmup, k)
        r1 = ours / one if ours else None
        rd = ours / default if ours else None
        if r1:
            ratios_one.append(r1)
            ratios_default.append(rd)
        rows.append([name, kind, note if ours is None else note.split(",")[0], num(ours), num(one),
                     num(r1, 2, "x"), num(default), num(rd, 2, "x"), str(k)])
        if direct:
            rows[-1].insert(-1, num(tools.time_in_process(lambda: direct[1](data), ctx.args.warmup, k)))
        log(f"{fmt.upper()} decode {name}: webimage {num(ours)} ms, {plugin} {num(one)} ms (1 thread), "
            f"{num(default)} ms (default)")
    g1, gd = geomean(ratios_one), geomean(ratios_default)
    verdict = "n/a" if g1 is None else f"{'meets' if g1 <= DECODE_GOAL else 'MISSES'} <= {DECODE_GOAL:.2f}x"
    rows.append([f"**geometric mean ({len(ratios_one)} files)**", "", "", "", "", num(g1, 2, "x"), "",
                 num(gd, 2, "x")] + [""] * bool(direct) + [verdict])
    notes = [binary_note(tools.WEBIMAGE),
             f"Files: {os.path.relpath(os.path.join(DERIVED, fmt), PHOTOS)} from derive.py "
             f"({'avifenc 0.11' if fmt == 'avif' else 'heif-enc 1.15'}); per-file medians of K runs after "
             f"{ctx.args.warmup} warm-up; ratio = WebImage / plugin, < 1 means WebImage is faster",
             f"Goal: WebImage <= {DECODE_GOAL:.1f}x the plugin at one thread (geometric mean): {verdict}"]
    if direct:
        notes.append(f"Debian libheif {direct[0]} via ctypes: the library WebImage links, called directly "
                     "(heif_decode_image to interleaved RGBA) - WebImage's time minus this is its own cost")
    return Table("P7" if fmt == "avif" else "P8", header, rows, notes, peers=versions())


# -------------------------------------------------------------------------------------- P9

def thumbnails():
    """512-px PNG thumbnails (Lanczos, no ICC) of THUMB_SOURCES, made once."""
    import numpy as np
    from PIL import Image

    made = []
    for key in THUMB_SOURCES:
        if not derive.have_sources(key):
            continue

        def write(tmp):
            im = derive.open_source(key)
            im = im.convert("RGBA" if "A" in im.mode or "transparency" in im.info else "RGB")
            im.thumbnail((THUMB_SIDE, THUMB_SIDE), Image.LANCZOS)
            Image.fromarray(np.asarray(im)).save(tmp, "PNG")

        made.append(derive.make(os.path.join(DERIVED, f"thumb{THUMB_SIDE}"), f"{key}.png", write))
    return made


def hyperfine_runs(commands, runs, warmup, tmp):
    """Wall times in ms of every run of each command (hyperfine -N: no shell), or None on failure."""
    export = os.path.join(tmp, "hyperfine-p9.json")
    result = subprocess.run(["hyperfine", "-N", "--style", "none", "--warmup", str(warmup), "--runs", str(runs),
                             "--export-json", export, *commands], capture_output=True, text=True)
    if result.returncode != 0:
        log("P9: " + (result.stderr.strip().splitlines() or ["hyperfine failed"])[-1])
        return None
    import json

    with open(export) as f:
        return [[t * 1000 for t in r["times"]] for r in json.load(f)["results"]]


def pillow_encode_times(path, quality, runs, warmup):
    """(times in ms, bytes) of the plugin's in-process encode of the loaded thumbnail."""
    import time
    from PIL import Image

    im = Image.open(path)
    im.load()
    out = io.BytesIO()

    def once():
        out.seek(0)
        out.truncate()
        im.save(out, "AVIF", quality=quality, speed=SPEED, max_threads=1, subsampling="4:2:0")

    for _ in range(warmup):
        once()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        once()
        times.append((time.perf_counter() - start) * 1000)
    return times, out.tell()


def bench_encode(binary, path, quality, speed, runs, warmup):
    """`webimage-bench encode` (in-process AVIFCoder encode, in builds that have it): the JSON line
    as a dict, or None when the binary has no such command or it fails."""
    import json

    result = subprocess.run([binary, "encode", path, "--speed", str(speed), "--quality", str(quality / 100),
                             "--max-size", str(THUMB_SIDE), "--iterations", str(runs), "--warmup", str(warmup)],
                            capture_output=True, text=True)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if result.returncode == 0 and lines else None


def speed_sweep(binary, paths, runs, warmup, quality=75, speeds=(6, 8, 10)):
    """One note on the size/time trade-off over all thumbnails, or None without webimage-bench encode."""
    parts = []
    for speed in speeds:
        found = [bench_encode(binary, path, quality, speed, runs, warmup) for path in paths]
        if None in found:
            return None
        parts.append(f"speed {speed}: {sum(f['bytes'] for f in found)} bytes, "
                     f"{sum(f['median_ms'] for f in found):.1f} ms (sum of p50s)")
    return f"In-process speed trade-off (webimage-bench encode, Q {quality}, {len(paths)} thumbnails): " + "; ".join(parts)


def encode_row(ctx, tools):
    """P9: per thumbnail and quality, sizes and p50/p95 of WebImage, avifenc and the plugin."""
    decode.register_plugins()
    if not shutil.which("avifenc") or not shutil.which("hyperfine"):
        return Table("P9", ["Note"], [["avifenc or hyperfine missing: run scripts/bootstrap peers (as root)"]])
    runs = max(10, min(40, ctx.args.iterations * 3))
    header = ["File", "Q (quantizer)", "WebImage bytes", "avifenc bytes", "plugin bytes",
              "WebImage p50 / p95 ms", "WebImage encode alone p50 ms (upper bound)",
              "WebImage in-process p50 / p95 ms (webimage-bench encode)", "avifenc p50 / p95 ms",
              "plugin p50 / p95 ms (in-process)"]
    from PIL import Image

    rows, webimage_all = [], []
    tmp = tempfile.mkdtemp(prefix="peerbench-p9-", dir=ctx.tmp)
    for path in thumbnails():
        im = Image.open(path)
        name = f"{os.path.basename(path)} ({im.width}x{im.height}{', alpha' if im.mode == 'RGBA' else ''})"
        for quality in QUALITIES:
            if ctx.out_of_time():
                rows.append([name, str(quality), "skipped: time budget", "", "", "", "", "", ""])
                continue
            q = quantizer(quality)
            ours_out, theirs_out = os.path.join(tmp, "webimage.avif"), os.path.join(tmp, "avifenc.avif")
            commands = [
                f"{tools.WEBIMAGE} fetch {path} --no-cache --format avif --quality {quality} -o {ours_out}",
                f"avifenc -j 1 -s {SPEED} -y 420 -d 8 --min {q} --max {q} --minalpha {q} --maxalpha {q} "
                f"--ignore-icc {path} {theirs_out}",
                f"{tools.WEBIMAGE} decode {path}",
            ]
            times = hyperfine_runs(commands, runs, ctx.args.warmup, tmp)
            plugin_times, plugin_bytes = pillow_encode_times(path, quality, runs, ctx.args.warmup)
            inside = bench_encode(tools.BENCH, path, quality, SPEED, runs, ctx.args.warmup)
            inside_text = f"{inside['median_ms']:.1f} / {inside['p95_ms']:.1f}" if inside else "n/a (no webimage-bench encode)"
            if times is None:
                rows.append([name, f"{quality} ({q})", "n/a (a command failed)", "", str(plugin_bytes), "", "",
                             inside_text, "", f"{statistics.median(plugin_times):.1f} / {percentile(plugin_times, 95):.1f}"])
                continue
            ours, avifenc, baseline = times
            webimage_all += ours
            p = lambda ts: f"{statistics.median(ts):.1f} / {percentile(ts, 95):.1f}"
            rows.append([name, f"{quality} ({q})", str(os.path.getsize(ours_out)), str(os.path.getsize(theirs_out)),
                         str(plugin_bytes), p(ours), f"{statistics.median(ours) - statistics.median(baseline):.1f}",
                         inside_text, p(avifenc), p(plugin_times)])
            log(f"P9 {name} q{quality}: webimage {p(ours)} ms, avifenc {p(avifenc)} ms, plugin {p(plugin_times)} ms")
    p95 = percentile(webimage_all, 95) if webimage_all else None
    verdict = "n/a" if p95 is None else f"{'meets' if p95 < ENCODE_GOAL_MS else 'MISSES'} < {ENCODE_GOAL_MS} ms"
    notes = [binary_note(tools.WEBIMAGE),
             f"{runs} runs per command after {ctx.args.warmup} warm-up (hyperfine -N for the processes); "
             "WebImage and avifenc are whole processes, the plugin is in-process on loaded pixels",
             "Speed: only AVIFCoder's default 8 is measured, because the webimage CLI has no speed option",
             f"Goal: WebImage p95 < {ENCODE_GOAL_MS} ms over all its runs: {num(p95)} ms, {verdict}"]
    sweep = speed_sweep(tools.BENCH, thumbnails(), runs, ctx.args.warmup)
    if sweep:
        notes[2] = sweep
    else:
        notes[2] += " (and this binary has no webimage-bench encode to vary it in-process)"
    return Table("P9", header, rows, notes, peers=versions() + "; Debian " + avifenc_version())


def avifenc_version():
    try:
        out = subprocess.run(["avifenc", "--version"], capture_output=True, text=True).stdout
    except OSError:
        return "avifenc not installed"
    return "avifenc " + (out.strip().splitlines() or ["?"])[0].replace("Version: ", "")
