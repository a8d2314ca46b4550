"""Rows P4, P6 and P1 of Tools/harness/compare-peers (imported by it; not run on its own).

P4  Bulk prefetch: 5,000 JPEGs of ~30 KB, served by nginx on 127.0.0.1 (started here with a temporary
    config, one worker, access log off), fetched into a fresh folder, on disk and on tmpfs over http, and
    on tmpfs over https (a test CA made with openssl, trusted through each client's CA option), by
      webimage prefetch --from LIST --concurrency 16 --cache-dir DIR --no-progress   (ImagePrefetcher:
          download, check the signature, store the original bytes in the disk cache; --decode: decode too)
      curl --parallel --parallel-max 16 --config LIST   (writes each file)
      aria2c -j16 -i LIST -d DIR                        (writes each file)
    each timed whole (process start to exit) under /usr/bin/time -v, K runs alternating, medians reported.
    images/s = 5,000 / wall seconds; CPU s = user + sys of the client process. nginx's own ceiling
    comes from wrk (-t1 -c16, the same 5,000 paths in turn) for context.
    Ratio = WebImage images/s / peer images/s (>= 1: WebImage as fast or faster). Goal: >= 1.0x curl.
P6  Peak RSS of those webimage prefetch runs (/usr/bin/time -v "Maximum resident set size").
    Goal: < 150 MB.
P1  Memory-hit latency: `swift package benchmark --target ManagerBenchmarks` in Tools/Benchmarks/
    (ImageManager.loadImage on a memory hit, async and callback, vs a Mutex dictionary lookup).
"""
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import time

from peerbench_nginx import Nginx, make_test_certificate

IMAGE_COUNT = 5000
TARGET_BYTES = 30_000
CONCURRENCY = 16
TILE = (400, 300)


class Table:
    """A row's result that is not per-file decode timings: a header, rows and notes."""

    def __init__(self, row, header, rows, notes=(), peers=""):
        self.row, self.header, self.rows, self.notes, self.peers = row, header, rows, list(notes), peers


def log(message):
    print(f"compare-peers: {message}", flush=True, file=__import__("sys").stderr)


# ------------------------------------------------------------------------------------- images

def source_photo(photos):
    """The largest JPEG in .photos/ if Tools/harness/fetch-photos ran, else a synthetic photo-like image."""
    from PIL import Image, ImageFilter

    folder = os.path.join(photos, "jpeg")
    if os.path.isdir(folder):
        files = sorted((os.path.getsize(os.path.join(folder, n)), n) for n in os.listdir(folder) if n.endswith(".jpg"))
        # The 2560-px photos crop into varied 400x300 tiles; the 5640-px one is slow to load.
        for _, name in files:
            im = Image.open(os.path.join(folder, name))
            if im.width <= 4000:
                return im.convert("RGB"), f".photos/jpeg/{name}"
    # Smooth colour fields with fine grain: compresses like a photo, not like noise or flat colour.
    w, h = 2400, 1600
    base = Image.effect_noise((w // 16, h // 16), 80).resize((w, h), Image.BICUBIC).filter(ImageFilter.GaussianBlur(6))
    r = Image.linear_gradient("L").resize((w, h))
    g = base
    b = Image.radial_gradient("L").resize((w, h))
    grain = Image.effect_noise((w, h), 18)
    im = Image.merge("RGB", (Image.blend(r, grain, 0.25), Image.blend(g, grain, 0.2), Image.blend(b, grain, 0.25)))
    return im, "synthetic (gradients + noise; run Tools/harness/fetch-photos for a real photo)"


def generate_images(folder, photos, count=IMAGE_COUNT):
    """count JPEGs of about TARGET_BYTES: TILE crops of one photo at seeded offsets and mirrorings,
    the quality picked so the mean size lands near the target. Returns (names, mean bytes, source)."""
    from PIL import Image, ImageOps
    import io

    photo, source = source_photo(photos)
    rng = random.Random(6)
    crops = []
    for _ in range(count):
        x = rng.randrange(0, photo.width - TILE[0])
        y = rng.randrange(0, photo.height - TILE[1])
        crops.append((x, y, rng.random() < 0.5))

    def tile(spec):
        x, y, mirror = spec
        im = photo.crop((x, y, x + TILE[0], y + TILE[1]))
        return ImageOps.mirror(im) if mirror else im

    def encoded(im, quality):
        out = io.BytesIO()
        im.save(out, "JPEG", quality=quality)
        return out.getvalue()

    sample = [tile(c) for c in crops[:40]]
    low, high = 20, 95
    while low < high:  # the highest quality whose sample mean stays within the target
        mid = (low + high + 1) // 2
        if statistics.fmean(len(encoded(im, mid)) for im in sample) <= TARGET_BYTES:
            low = mid
        else:
            high = mid - 1
    os.makedirs(folder, exist_ok=True)
    names, total = [], 0
    for i, spec in enumerate(crops):
        name = f"{i:05d}.jpg"
        data = encoded(tile(spec), low)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        names.append(name)
        total += len(data)
    return names, total / count, f"{source}, {TILE[0]}x{TILE[1]} crops, JPEG q{low}"


# ------------------------------------------------------------------------------------ clients

def run_timed(cmd, cwd=None):
    """Runs cmd under /usr/bin/time -v: wall s (measured here), CPU s (user + sys), peak RSS MB."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-v", *cmd], cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    stats = {}
    for line in result.stderr.splitlines():
        key, _, value = line.strip().rpartition(": ")
        stats[key] = value
    cpu = float(stats.get("User time (seconds)", "nan")) + float(stats.get("System time (seconds)", "nan"))
    rss = int(stats.get("Maximum resident set size (kbytes)", "0")) / 1024
    switches = int(stats.get("Voluntary context switches", "0")) + int(stats.get("Involuntary context switches", "0"))
    return {"wall": wall, "cpu": cpu, "rss": rss, "switches": switches, "status": result.returncode,
            "stdout": result.stdout, "stderr": result.stderr}


def count_files(folder):
    return sum(1 for n in os.listdir(folder) if not n.startswith(".")) if os.path.isdir(folder) else 0


def tools(webimage, urls_file, curl_config, aria_list, ca=None):
    """name -> (command for an output dir, how to count what arrived, the command as shown); `ca`:
    the certificate every client is told to trust (for https)."""
    trust = lambda flag: [flag, ca] if ca else []
    shown_trust = lambda flag: f" {flag} CA" if ca else ""
    return {
        "webimage prefetch": (
            lambda out: [webimage, "prefetch", "--from", urls_file, "--concurrency", str(CONCURRENCY),
                         "--cache-dir", out, "--no-progress", *trust("--cacert")],
            lambda out, r: int(m.group(1)) if (m := re.search(r"finished (\d+), skipped", r["stdout"])) else 0,
            f"webimage prefetch --from LIST --concurrency {CONCURRENCY} --cache-dir DIR --no-progress{shown_trust('--cacert')}"),
        "webimage prefetch --decode": (
            lambda out: [webimage, "prefetch", "--from", urls_file, "--concurrency", str(CONCURRENCY),
                         "--cache-dir", out, "--no-progress", "--decode", *trust("--cacert")],
            lambda out, r: int(m.group(1)) if (m := re.search(r"finished (\d+), skipped", r["stdout"])) else 0,
            f"webimage prefetch --from LIST --concurrency {CONCURRENCY} --cache-dir DIR --no-progress --decode"
            f"{shown_trust('--cacert')}"),
        "curl --parallel": (
            lambda out: ["curl", "--parallel", "--parallel-max", str(CONCURRENCY), "--silent", "--fail",
                         "--config", curl_config, *trust("--cacert")],
            lambda out, r: count_files(out),
            f"curl --parallel --parallel-max {CONCURRENCY} --silent --fail --config LIST (url/output pairs)"
            f"{shown_trust('--cacert')}"),
        "aria2c -j16": (
            lambda out: ["aria2c", f"-j{CONCURRENCY}", "-i", aria_list, "-d", out, "--quiet=true",
                         "--file-allocation=none", "--auto-file-renaming=false", "--allow-overwrite=true",
                         "--summary-interval=0", *([f"--ca-certificate={ca}"] if ca else [])],
            lambda out, r: count_files(out),
            f"aria2c -j{CONCURRENCY} -i LIST -d DIR --quiet --file-allocation=none{' --ca-certificate=CA' if ca else ''}"),
    }


def wrk_ceiling(nginx, names, tmp, seconds=5):
    """Requests/s nginx serves the same files at, -t1 -c16 (a Lua script walks the paths)."""
    if not shutil.which("wrk"):
        return None, "wrk not installed"
    script = os.path.join(tmp, "paths.lua")
    with open(script, "w") as f:
        f.write("local n = 0\nlocal count = %d\nrequest = function()\n  n = n %% count + 1\n"
                "  return wrk.format(nil, string.format('/%%05d.jpg', n - 1))\nend\n" % len(names))
    cmd = ["wrk", "-t1", f"-c{CONCURRENCY}", f"-d{seconds}s", "-s", script, nginx.url("")]
    result = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"Requests/sec:\s+([\d.]+)", result.stdout)
    return (float(m.group(1)) if m else None), " ".join(cmd[:-2] + ["paths.lua", "URL"])


def output_targets(tmp):
    """(label, folder, over https) for each run set: the disk (ext4 here, next to the temp folder)
    and tmpfs, which takes the file system out and leaves the clients' own cost, both over http;
    and tmpfs over https (TLS 1.3 to the same nginx, each client trusting the test CA), the way
    image hosts serve."""
    targets = [("disk", tmp, False)]
    if os.path.isdir("/dev/shm"):
        targets.append(("tmpfs", tempfile.mkdtemp(prefix="compare-peers-p4-", dir="/dev/shm"), False))
        targets.append(("https, tmpfs", tempfile.mkdtemp(prefix="compare-peers-p4s-", dir="/dev/shm"), True))
    return targets


def prefetch_rows(ctx, webimage, photos, runs):
    """Measures P4 and P6; returns (p4 Table, p6 Table)."""
    tmp = ctx.tmp
    www = os.path.join(tmp, "www")
    log(f"P4: generating {IMAGE_COUNT} images of ~{TARGET_BYTES // 1000} KB")
    names, mean_bytes, how = generate_images(www, photos)
    # nginx's workers drop root for `nobody`: the temp folders (mkdtemp makes them 0700) must be readable.
    for folder in (tmp, www):
        os.chmod(folder, 0o755)
    targets = output_targets(tmp)
    nginx = None
    results = {}  # (target, client) -> (samples, shown)
    try:
        certificate = make_test_certificate(tmp)
        nginx = Nginx(www, tmp, tls=certificate)
        curl_config = os.path.join(tmp, "curl.config")
        for target, folder, secure in targets:
            urls_file = os.path.join(tmp, "urls-https.txt" if secure else "urls.txt")
            with open(urls_file, "w") as f:
                f.write("\n".join(nginx.url(n, secure) for n in names) + "\n")
            clients = tools(webimage, urls_file, curl_config, urls_file, ca=certificate[0] if secure else None)
            # Output folders are removed only after the last run: ext4 makes creating inodes slow
            # while many were just deleted (recently_deleted), which would tax every run after the first.
            outs = []
            for run in range(runs):  # round-robin, so drift in the machine's load hits every client alike
                for name, (command, counted, shown) in clients.items():
                    samples = results.setdefault((target, name), ([], shown))[0]
                    if ctx.out_of_time() and samples:
                        continue
                    out = os.path.join(folder, f"out-{len(outs)}")
                    os.makedirs(out)
                    outs.append(out)
                    if name.startswith("curl"):
                        with open(curl_config, "w") as f:
                            for n in names:
                                f.write(f'url = "{nginx.url(n, secure)}"\noutput = "{os.path.join(out, n)}"\n')
                    r = run_timed(command(out))
                    r["images"] = counted(out, r)
                    samples.append(r)
                    log(f"P4 {target} {name} run {run + 1}: {r['images']} images in {r['wall']:.2f} s, "
                        f"CPU {r['cpu']:.2f} s, RSS {r['rss']:.0f} MB, exit {r['status']}")
            for out in outs:
                shutil.rmtree(out, ignore_errors=True)
        ceiling, wrk_cmd = wrk_ceiling(nginx, names, tmp)
        server = nginx.version()
    finally:
        if nginx:
            nginx.stop()
        for target, folder, _ in targets:
            if target != "disk":
                shutil.rmtree(folder, ignore_errors=True)

    def median(samples, key):
        return statistics.median(s[key] for s in samples)

    p4_rows = []
    for target, _, _ in targets:
        ours_rate = IMAGE_COUNT / median(results[(target, "webimage prefetch")][0], "wall")
        ours_cpu = median(results[(target, "webimage prefetch")][0], "cpu")
        for (where, name), (samples, shown) in results.items():
            if where != target:
                continue
            wall = median(samples, "wall")
            rate = IMAGE_COUNT / wall
            complete = all(s["images"] == IMAGE_COUNT and s["status"] == 0 for s in samples)
            cpu = median(samples, "cpu")
            ratio = "-" if name.startswith("webimage") else f"{ours_rate / rate:.2f}x images/s, {ours_cpu / cpu:.2f}x CPU"
            goal = (f"{'meets' if ours_rate >= rate else 'MISSES'} >= 1.00x images/s, "
                    f"{'meets' if ours_cpu <= 1.5 * cpu else 'MISSES'} <= 1.5x CPU") if name.startswith("curl") else "-"
            p4_rows.append(["P4", target, name, f"`{shown}`", len(samples), f"{wall:.2f}", f"{rate:.0f}",
                            f"{cpu:.2f}", f"{cpu / IMAGE_COUNT * 1e6:.0f}", f"{median(samples, 'switches') / IMAGE_COUNT:.2f}",
                            f"{median(samples, 'rss'):.0f}", ratio, goal,
                            "all 5000" if complete else "INCOMPLETE: " + ", ".join(str(s["images"]) for s in samples)])
    p4_rows.append(["P4", "-", "nginx ceiling (wrk)", f"`{wrk_cmd}`", 1, "-",
                    f"{ceiling:.0f}" if ceiling else "n/a", "-", "-", "-", "-", "-", "-", "requests/s, server side only"])
    header = ["Row", "Output", "Client", "Command", "Runs", "Wall s (median)", "Images/s", "CPU s (user+sys)",
              "CPU us/image", "Context switches/image", "Peak RSS MB", "Ratio (WebImage / peer)", "Goal", "Arrived"]
    notes = [f"{IMAGE_COUNT} JPEGs, mean {mean_bytes / 1000:.1f} KB ({how}), served by {server} on 127.0.0.1 "
             "(1 worker, sendfile, keep-alive); client and server share the machine's cores.",
             "Output: `disk` = a fresh folder on the root file system (ext4) per run, `tmpfs` = the same in /dev/shm "
             "(no file system cost: what is left is each client's own work); `https, tmpfs` = tmpfs, fetched over "
             "TLS from the same nginx with a test CA every client trusts (`--cacert`, aria2c's `--ca-certificate`). "
             "Runs alternate between clients.",
             "webimage prefetch checks each body's structure (ImageIntegrity: JPEG markers to end-of-image, PNG "
             "chunk CRCs, GIF blocks, WebP chunks; ~1 us per 30 KB JPEG, no pixels) and stores the original bytes "
             "atomically in its disk cache (temp file + rename; the HTTP validators nginx sends ride in an xattr of "
             "the same file); `--decode` decodes every image instead. curl and aria2c write the bytes."]
    p4 = Table("P4", header, p4_rows, notes)

    p6_rows = []
    for (target, name), (samples, _) in results.items():
        values = [s["rss"] for s in samples]
        goal = f"{'meets' if max(values) < 150 else 'MISSES'} < 150 MB" if name.startswith("webimage") else "-"
        p6_rows.append(["P6", target, name, len(values), f"{statistics.median(values):.0f}", f"{max(values):.0f}", goal])
    p6 = Table("P6", ["Row", "Output", "Client", "Runs", "Peak RSS MB (median)", "Peak RSS MB (max)", "Goal"], p6_rows,
               [f"Maximum resident set size from /usr/bin/time -v, the P4 runs ({IMAGE_COUNT} images each)."])
    return p4, p6


# ----------------------------------------------------------------------------------------- P1

def memory_hit_row(benchmarks_dir):
    """Runs the ManagerBenchmarks target and reads each benchmark's throughput percentiles.

    The target runs 1,000 loads per iteration (scalingFactor .kilo), so package-benchmark's
    throughput row counts loads: ns per load = 1e6 / (thousands of loads per second). Its
    percentiles run from fastest (p0) to slowest (p100)."""
    cmd = ["swift", "package", "benchmark", "--target", "ManagerBenchmarks", "--format", "markdown", "--no-progress"]
    log(f"P1: (cd {benchmarks_dir} && {' '.join(cmd)})")
    result = subprocess.run(cmd, cwd=benchmarks_dir, capture_output=True, text=True)
    header = ["Row", "Benchmark", "ns per load (p50)", "ns per load (p90)", "ns per load (p99)", "vs Mutex dictionary (p50)", "Goal"]
    if result.returncode != 0:
        tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-5:]
        return Table("P1", header, [["P1", "ManagerBenchmarks", "failed: " + " / ".join(tail), "-", "-", "-", "-"]])
    per_load, name = {}, None
    for line in result.stdout.splitlines():
        heading = re.match(r"^###\s+(.*?)\s*$", line)
        if heading:
            name = heading.group(1)
        elif name and line.startswith("| Throughput"):
            cells = [c.strip().replace(",", "") for c in line.strip().strip("|").split("|")]
            # The label ends with the unit: "(K)" (the benchmark pins it), "(M)" or none.
            unit = re.search(r"\((K|M|G)\)\s*$", cells[0])
            scale = {"K": 1.0, "M": 1e3, "G": 1e6}[unit.group(1)] if unit else 1e-3
            thousands = dict(zip(["p0", "p25", "p50", "p75", "p90", "p99", "p100"], (float(c) * scale for c in cells[1:8])))
            per_load[name] = {p: 1e6 / k for p, k in thousands.items() if k > 0}
    baseline = next((v["p50"] for n, v in per_load.items() if "Mutex" in n), None)
    rows = []
    for bench, ns in per_load.items():
        ratio, goal = "-", "-"
        if baseline and "Mutex" not in bench:
            ratio = f"{ns['p50'] / baseline:.2f}x"
            goal = f"{'meets' if ns['p50'] / baseline <= 3 else 'MISSES'} <= 3x"
        rows.append(["P1", bench, f"{ns['p50']:.0f}", f"{ns['p90']:.0f}", f"{ns['p99']:.0f}", ratio, goal])
    if not rows:
        rows.append(["P1", "ManagerBenchmarks", "no throughput rows in the output", "-", "-", "-", "-"])
    return Table("P1", header, rows,
                 [f"`cd Tools/Benchmarks && {' '.join(cmd)}`: package-benchmark, 1,000 loads of 1,000 distinct keys per "
                  "iteration (scalingFactor .kilo); ns per load = 1e6 / throughput in K loads/s. Goal (issue "
                  "\"ImageManager\"): a memory hit through loadImage <= 3x a bare Mutex-guarded dictionary lookup."],
                 peers="package-benchmark (ordo-one/benchmark); baseline: a Mutex<[String: Image]> lookup in the same process")
