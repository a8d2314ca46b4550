"""The three scenarios. Each server is started fresh for each run, so no run sees another's cache."""
import os
import shutil
import urllib.request

from . import corpus, load, report, servers

CONNECTIONS = (2, 16)
COLD_WIDTHS = (200, 320, 480, 640, 800)
RSS_WIDTHS = (120, 200, 280, 360, 440, 520, 600, 680, 760, 840)
WARM_URLS = 200
WARM_WIDTH = 320


def thumbor_path(width, origin_port, source):
    return f"/unsafe/fit-in/{width}x{width}/127.0.0.1:{origin_port}{corpus.path(source)}"


class Bench:
    def __init__(self, root, work, sources, seconds, webimage, python):
        self.root, self.work, self.sources, self.seconds = root, work, sources, seconds
        self.webimage, self.python = webimage, python
        self.runs = os.path.join(work, "runs")
        shutil.rmtree(self.runs, ignore_errors=True)
        self.origin = servers.Origin(os.path.join(self.runs, "origin"), os.path.join(work, "corpus")).start()
        self.charts = os.path.join(root, "docs", "benchmarks")
        os.makedirs(self.charts, exist_ok=True)

    def close(self):
        self.origin.stop()

    def paths(self, widths, count=None):
        """Width-major, so consecutive requests ask for different sources."""
        listed = [thumbor_path(w, self.origin.port, i) for w in widths for i in range(self.sources)]
        return listed[:count] if count else listed

    def make(self, kind, run):
        work = os.path.join(self.runs, run, kind)
        if kind == "webimage":
            return servers.WebImage(work, self.webimage)
        if kind == "thumbor":
            return servers.Thumbor(work, self.python)
        if kind == "image_filter":
            return servers.ImageFilterNginx(work, self.origin.port)
        if kind == "pyvips":
            return servers.Pyvips(work, self.python, self.origin.port)
        raise SystemExit(f"unknown server {kind}")

    def warm_up(self, server):
        """Ten requests on sources at a size the runs never ask, so code is loaded, nothing cached."""
        for i in range(self.sources - 10, self.sources):
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}{thumbor_path(100, self.origin.port, i)}").read()

    def cold(self, kinds):
        rows = []
        for connections in CONNECTIONS:
            for kind in kinds:
                server = self.make(kind, f"cold-{connections}").start()
                try:
                    self.warm_up(server)
                    rows.append(load.run(server, self.paths(COLD_WIDTHS), connections, self.seconds, "once", server.work))
                finally:
                    server.stop()
                print(f"cold c{connections} {kind}: {rows[-1]['rps']:.1f} req/s", flush=True)
        report.chart(rows, "Cold: every URL different (fit-in resize of a 1600x1200 JPEG, JPEG out)",
                     os.path.join(self.charts, "serve-cold.png"))
        return "\n".join([
            "### Cold: every URL different",
            "",
            f"Each URL once ({len(COLD_WIDTHS)} widths × {self.sources} sources, width-major); {self.seconds} s per run after 10 warm-up requests.",
            "Goals: webimage ≥ 2× thumbor and ≥ 1.0× the pyvips reference (req/s).",
            "",
            report.table(rows),
            "",
            "![cold](docs/benchmarks/serve-cold.png)",
        ])

    def warm(self):
        paths = self.paths([WARM_WIDTH], WARM_URLS)
        rows = []
        static_root = os.path.join(self.runs, "static-root")
        for connections in CONNECTIONS:
            for kind in ("webimage", "thumbor"):
                server = self.make(kind, f"warm-{connections}").start()
                try:
                    for path in paths:  # prime: one miss each, then every request is a hit
                        body = urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}").read()
                        if kind == "webimage":
                            target = static_root + path
                            os.makedirs(os.path.dirname(target), exist_ok=True)
                            with open(target, "wb") as f:
                                f.write(body)
                    rows.append(load.run(server, paths, connections, self.seconds, "cycle", server.work))
                finally:
                    server.stop()
            static = servers.StaticNginx(os.path.join(self.runs, f"warm-{connections}", "static"), static_root).start()
            try:
                rows.append(load.run(static, paths, connections, self.seconds, "cycle", static.work))
            finally:
                static.stop()
        report.chart(rows, "Warm: cache hits (200 URLs round and round)", os.path.join(self.charts, "serve-warm.png"))
        return "\n".join([
            "### Warm: cache hits",
            "",
            f"{WARM_URLS} URLs (fit-in/{WARM_WIDTH}x{WARM_WIDTH}) requested once, then round and round for {self.seconds} s. "
            "nginx static serves the bytes webimage answered, as files under the same paths.",
            "Goals: webimage ≥ 0.5× nginx static (req/s), p99 < 5 ms at 16 connections.",
            "",
            report.table(rows),
            "",
            "![warm](docs/benchmarks/serve-warm.png)",
        ])

    def rss(self, requests):
        widths = RSS_WIDTHS[: max(1, -(-requests // self.sources))]
        paths = self.paths(widths, requests)
        server = self.make("webimage", "rss").start()
        try:
            row = load.run(server, paths, 16, 3600, "once", server.work)
        finally:
            server.stop()
        samples = row["rss_samples"]
        half = row["seconds"] / 2
        mid = max((m for t, m in samples if t <= half), default=0)
        end = samples[-1][1] if samples else 0
        late_peak = max((m for t, m in samples if t > half), default=0)
        drift = (late_peak - mid) / mid * 100 if mid else float("nan")
        report.rss_chart(samples, f"webimage serve RSS over {row['served']} requests ({self.sources} sources, 16 connections)",
                         os.path.join(self.charts, "serve-rss.png"))
        return "\n".join([
            "### Memory over a long run (webimage serve)",
            "",
            f"{len(paths)} requests, each URL once ({len(widths)} widths × {self.sources} sources), 16 connections: "
            f"{row['served']} answered 2xx, {row['non2xx'] + row['errors']} not, in {row['seconds']:.0f} s ({row['rps']:.1f} req/s).",
            "Goal: peak RSS ≤ 250 MB, < 10 % drift over the last half.",
            "",
            "| Peak RSS MB | RSS at half time MB | Peak in the last half MB | RSS at the end MB | Drift over the last half |",
            "|---|---|---|---|---|",
            f"| {row['rss_peak_mb']:.0f} | {mid:.0f} | {late_peak:.0f} | {end:.0f} | {drift:+.1f} % |",
            "",
            "![rss](docs/benchmarks/serve-rss.png)",
        ])
