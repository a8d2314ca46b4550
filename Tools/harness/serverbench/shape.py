"""`Tools/harness/compare-servers --shape imgproxy`: imgproxy's image-servers-benchmark reproduced here.

Their shape (github.com/imgproxy/image-servers-benchmark: k6.js, Makefile, thumbor/thumbor.conf.in):
photos at 2040 px in JPEG, PNG, WebP and AVIF, each asked `fit-in/512x512/filters:format(SAME):
quality(Q)` (Q 80 JPEG and PNG, 75 WebP, 65 AVIF) by 2 clients, nothing cached. Here every request
also names its source differently (the origin maps the name back), so webimage's result and source
caches, on as a user runs it, are always missed. For each format, each server is started fresh and
asked every source once, one request at a time (bytes, pixels against a reference resize, and
webimage's per-stage metrics), then loaded at 2 connections for `seconds` (req/s, p50, CPU)."""
import datetime
import os
import platform
import shutil
import statistics
import time
import urllib.request

from . import load, shape_corpus, shape_quality, shape_report, shape_servers, stages

FORMATS = (("jpeg", 80), ("png", 80), ("webp", 75), ("avif", 65))  # k6.js's qualities
BOX = 512
CONNECTIONS = 2
WARM_UP = 3
PATHS_PER_SECOND = 500  # more distinct URLs than any server answers in a run


class Shape:
    def __init__(self, work, photos, seconds, webimage, python, kinds):
        self.corpus = os.path.join(work, "shape")
        self.sources = shape_corpus.ensure(self.corpus, photos)
        self.pictures = shape_corpus.pictures_in(self.corpus)
        self.seconds, self.webimage, self.python, self.kinds = seconds, webimage, python, kinds
        self.runs = os.path.join(work, "shape-runs")
        shutil.rmtree(self.runs, ignore_errors=True)
        self.origin = shape_servers.Origin(os.path.join(self.runs, "origin"), self.corpus).start()
        self.copies = 0
        self.reference = None
        self.connections, self.warm_up = CONNECTIONS, WARM_UP

    def close(self):
        self.origin.stop()

    def url(self, fmt, quality, index):
        self.copies += 1
        return (f"/unsafe/fit-in/{BOX}x{BOX}/filters:format({fmt}):quality({quality})/"
                f"127.0.0.1:{self.origin.port}{shape_corpus.url_path(fmt, index, self.copies)}")

    def make(self, kind, fmt):
        work = os.path.join(self.runs, fmt, kind)
        if kind == "webimage":
            return shape_servers.WebImage(work, self.webimage)
        if kind == "thumbor":
            return shape_servers.Thumbor(work, self.python)
        if kind == "pyvips":
            return shape_servers.Pyvips(work, self.python, self.origin.port)
        raise SystemExit(f"unknown server {kind} (the shape compares webimage, thumbor, pyvips)")

    @staticmethod
    def get(server, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=120) as reply:
            return reply.read()

    def metrics(self, server):
        return stages.read(server.metrics()) if isinstance(server, shape_servers.WebImage) else {}

    def measure(self, kind, fmt, quality):
        """One server on one format: warm-up, every source once, then the load run."""
        server = self.make(kind, fmt).start()
        try:
            for i in range(WARM_UP):
                self.get(server, self.url(fmt, quality, self.sources - 1 - i))
            before = self.metrics(server)
            answers, latencies = [], []
            for i in range(self.sources):
                started = time.perf_counter()
                answers.append(self.get(server, self.url(fmt, quality, i)))
                latencies.append(1000 * (time.perf_counter() - started))
            between = self.metrics(server)
            paths = [self.url(fmt, quality, n % self.sources) for n in range(self.seconds * PATHS_PER_SECOND)]
            row = load.run(server, paths, CONNECTIONS, self.seconds, "once", server.work)
            after = self.metrics(server)
        finally:
            server.stop()
        differences = [self.reference.difference(a, shape_corpus.path(self.corpus, fmt, i), fmt) for i, a in enumerate(answers)]
        row.update({
            "kind": kind, "format": fmt,
            "bytes": statistics.mean(len(a) for a in answers),
            "mae": statistics.mean(d[0] for d in differences),
            "psnr": statistics.mean(d[1] for d in differences),
            "single_p50_ms": statistics.median(latencies),
        })
        if before:
            row["stages_single"] = stages.mean_ms(before, between, fmt)
            row["stages_load"] = stages.mean_ms(between, after, fmt)
        return row

    def run(self):
        rows = []
        for fmt, quality in FORMATS:
            self.reference = shape_quality.Reference()  # one format's references at a time
            for kind in self.kinds:
                rows.append(self.measure(kind, fmt, quality))
                r = rows[-1]
                print(f"{fmt} {kind}: {r['rps']:.1f} req/s, p50 {r['p50_ms']:.0f} ms, {r['cpu_ms_per_request']:.1f} CPU ms/req, "
                      f"{r['bytes'] / 1024:.1f} KB, MAE {r['mae']:.2f}, PSNR {r['psnr']:.2f} dB", flush=True)
        return rows

    def source_bytes(self, fmt):
        return statistics.mean(os.path.getsize(shape_corpus.path(self.corpus, fmt, i)) for i in range(self.sources))


def peers(python_version):
    import PIL
    import pyvips
    import thumbor
    return (f"thumbor {thumbor.__version__} (Pillow {PIL.__version__}, Python {python_version}); libvips "
            f"{pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)} through pyvips {pyvips.__version__}; wrk (Debian)")


def run(work, photos, seconds, webimage, python, kinds, command, webimage_version):
    """The whole shape run; returns its BENCHMARKS.md section and its line of the head table."""
    load_before = os.getloadavg()
    shape = Shape(work, photos, seconds, webimage, python, kinds)
    try:
        rows = shape.run()
    finally:
        shape.close()
    env = {
        "date": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "load_before": " ".join(f"{v:.2f}" for v in load_before),
        "load_after": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "command": command, "webimage": webimage_version, "peers": peers(platform.python_version()),
    }
    return shape_report.section(shape, rows, env), shape_report.summary_row(rows, env)
