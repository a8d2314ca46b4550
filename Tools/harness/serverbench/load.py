"""Load with wrk (Debian's): a list of paths, split among its threads, either once each (cold)
or round and round (warm). One run gives requests/s, latency percentiles, and the server's CPU
seconds per request and peak RSS read from /proc over the run."""
import json
import os
import signal
import subprocess
import threading
import time

from . import procs

HERE = os.path.dirname(os.path.abspath(__file__))


def run(server, paths, connections, seconds, mode, work, spare="/"):
    threads = min(2, connections)
    listing = os.path.join(work, f"paths-{mode}-{connections}.txt")
    with open(listing, "w") as f:
        f.write("\n".join(paths) + "\n")
    done_file = os.path.join(work, f"done-{mode}-{connections}.txt")
    if os.path.exists(done_file):
        os.remove(done_file)
    samples = []
    stop = threading.Event()
    wrk = None

    def sample():
        while not stop.wait(0.25):
            samples.append((time.time(), procs.memory_mb(server.pid, "VmRSS")))
            # Every thread ran out of paths: stop wrk now (it prints its results on SIGINT).
            if wrk and os.path.exists(done_file) and len(open(done_file).read().split()) >= threads:
                wrk.send_signal(signal.SIGINT)
                return

    sampler = threading.Thread(target=sample, daemon=True)
    cpu_before = procs.cpu_seconds(server.pid)
    started = time.time()
    sampler.start()
    wrk = subprocess.Popen(
        ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", "30s",
         "-s", os.path.join(HERE, "paths.lua"), f"http://127.0.0.1:{server.port}", "--",
         listing, mode, str(threads), spare, done_file],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = wrk.communicate()
    stop.set()
    if wrk.returncode not in (0, -signal.SIGINT):
        raise RuntimeError(f"wrk failed: {err.strip()}")
    sampler.join()
    elapsed = time.time() - started
    cpu = procs.cpu_seconds(server.pid) - cpu_before
    result = json.loads([line for line in out.splitlines() if line.startswith("{")][-1])
    wall = result["duration_us"] / 1e6
    served = result["served"]
    return {
        "server": server.name, "connections": connections, "mode": mode,
        "served": served, "non2xx": result["non2xx"], "errors": result["errors"], "exhausted": result["exhausted"],
        "rps": served / wall if wall else 0.0,
        "p50_ms": result["p50_us"] / 1000, "p99_ms": result["p99_us"] / 1000,
        "cpu_ms_per_request": 1000 * cpu / served if served else float("nan"),
        "rss_peak_mb": max((m for _, m in samples), default=procs.memory_mb(server.pid, "VmRSS")),
        "rss_samples": [(t - started, m) for t, m in samples],
        "seconds": elapsed,
    }
