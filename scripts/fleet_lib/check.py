"""scripts/fleet check: a fleet of its own (3 instances, unsafe URLs) in front of a loopback origin
that serves generated JPEGs and counts requests per path; a concurrent mixed load; the issue's
"must show" as assertions; then down. The Redis-dependent ones skip, saying so, while the server
binary reports no Redis tier (no webimage_redis series in its admin /metrics)."""
import http.client
import os
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .fleet import ROOT, Fleet
from .processes import FleetError

SOURCES = 96
WORKERS = 16
JPEG = (ROOT / "Tests/WebImageTests/Fixtures/jpeg-baseline.jpg").read_bytes()


class Origin:
    """Loopback origin: /src/N.jpg is a JPEG of its own (the fixture with a comment naming N),
    after a short delay so concurrent requests for one source overlap; counts requests per path."""

    def __init__(self):
        self.counts = {}
        self.lock = threading.Lock()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                with origin.lock:
                    origin.counts[self.path] = origin.counts.get(self.path, 0) + 1
                if not self.path.startswith("/src/"):
                    self.send_error(404)
                    return
                time.sleep(0.03)
                comment = f"webimage fleet check {self.path}".encode()
                body = JPEG[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + JPEG[2:]
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def count(self, source):
        with self.lock:
            return self.counts.get(f"/src/{source}.jpg", 0)

    def source_url(self, source):
        return f"http://127.0.0.1:{self.port}/src/{source}.jpg"

    def stop(self):
        self.server.shutdown()


class Client:
    """Keep-alive connections to nginx, one a thread; a reply is (status, X-Upstream, seconds)."""

    def __init__(self, port):
        self.port = port
        self.local = threading.local()

    def request(self, method, path, headers=None, port=None):
        if port is not None:  # one request on a connection of its own (an instance's admin listener)
            started = time.monotonic()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                connection.request(method, path, headers=headers or {})
                response = connection.getresponse()
                body = response.read()
                return response.status, body.decode(errors="replace"), time.monotonic() - started
            except (OSError, http.client.HTTPException):
                return 0, "", time.monotonic() - started
            finally:
                connection.close()
        started = time.monotonic()
        for attempt in range(2):
            connection = getattr(self.local, "connection", None)
            if connection is None:
                connection = self.local.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            try:
                connection.request(method, path, headers=headers or {})
                response = connection.getresponse()
                response.read()
                return response.status, response.getheader("X-Upstream", ""), time.monotonic() - started
            except (OSError, http.client.HTTPException):
                connection.close()
                self.local.connection = None
                if attempt == 1:
                    return 0, "", time.monotonic() - started  # a failed request: nginx itself did not answer
        raise AssertionError("unreachable")


def variant(origin, source, kind):
    """Variant kind of source: widths, a fit-in WebP, new widths for later phases."""
    options = {0: "16x0", 1: "24x0/smart", 2: "fit-in/20x20/filters:format(webp)"}.get(kind, f"{kind}x0")
    return f"/unsafe/{options}/127.0.0.1:{origin.port}/src/{source}.jpg"


class Check:
    def __init__(self, fleet, origin, failures):
        self.fleet, self.origin, self.failures = fleet, origin, failures
        self.client = Client(fleet.state["nginx"]["port"])
        self.routes = {}

    def expect(self, condition, text):
        print(f"  {'ok  ' if condition else 'FAIL'} {text}", flush=True)
        if not condition:
            self.failures.append(text)

    def load(self, requests, during=None):
        """Runs (source, path) GETs concurrently; `during(done_count)` is called as they finish."""
        done = [0]
        lock = threading.Lock()

        def one(item):
            source, path = item
            reply = self.client.request("GET", path)
            with lock:
                done[0] += 1
                count = done[0]
            if during:
                during(count)
            return source, path, reply

        with ThreadPoolExecutor(WORKERS) as pool:
            return list(pool.map(one, requests))

    def upstream_of(self, source):
        status, upstream, _ = self.client.request("GET", variant(self.origin, source, 0))
        return upstream if status == 200 else None

    # MARK: the phases

    def mixed_load(self):
        print("mixed load: 96 sources x 3 variants, each asked twice, 16 at once", flush=True)
        requests = [(s, variant(self.origin, s, k)) for k in range(3) for s in range(SOURCES) for _ in range(2)]
        requests = [requests[(i * 7919) % len(requests)] for i in range(len(requests))]  # interleaved
        started = time.monotonic()
        replies = self.load(requests)
        elapsed = time.monotonic() - started
        bad = [(path, reply[0]) for _, path, reply in replies if reply[0] != 200]
        self.expect(not bad, f"{len(replies)} requests in {elapsed:.1f} s ({len(replies) / elapsed:.0f} req/s), all 200"
                    + (f" — {len(bad)} not: {bad[:3]}" if bad else ""))
        fetches = [self.origin.count(s) for s in range(SOURCES)]
        self.expect(all(count == 1 for count in fetches),
                    f"every source fetched from the origin once across the fleet (max {max(fetches)}, total {sum(fetches)})")
        upstreams = {}
        for source, _, reply in replies:
            upstreams.setdefault(source, set()).add(reply[1])
        split = [s for s, seen in upstreams.items() if len(seen) != 1]
        self.expect(not split, "all variants of one source served by one instance (X-Upstream)"
                    + (f" — split: {[(s, upstreams[s]) for s in split[:3]]}" if split else ""))
        self.routes = {s: next(iter(seen)) for s, seen in upstreams.items()}
        spread = {u: list(self.routes.values()).count(u) for u in set(self.routes.values())}
        self.expect(len(spread) == 3, f"sources per instance: {sorted(spread.values())}")

    def admin_face(self):
        print("nginx's face: images and health only", flush=True)
        token = self.fleet.state["purge_token"]
        replies = {f"{method} {path}": self.client.request(method, path, {"Authorization": f"Bearer {token}"})[0]
                   for method, path in (("GET", "/metrics"), ("GET", "/metrics/"), ("GET", "/%6Detrics"),
                                        ("DELETE", f"/purge?url={self.origin.source_url(0)}"), ("GET", "/purge"))}
        self.expect(all(status in (403, 404) for status in replies.values()),
                    f"/metrics and /purge through nginx refused, never proxied: {replies}")
        instance = self.fleet.instance(1)
        status, body, _ = self.client.request("GET", "/metrics", port=instance["admin_port"])
        self.expect(status == 200 and "webimage_" in body, f"/metrics on instance 1's admin listener: {status}")
        status, _, _ = self.client.request("GET", "/metrics", port=instance["port"])
        self.expect(status != 200, f"/metrics on instance 1's public listener: {status} (not 200)")

    def purge(self):
        print("purge on the admin listener of the instance that holds the source", flush=True)
        token = self.fleet.state["purge_token"]
        for kind in range(3):
            source = kind  # one source per variant kind: its first request after the purge
            before = self.origin.count(source)
            owner = self.fleet.instance_at(self.routes[source])
            status, body, _ = self.client.request(
                "DELETE", f"/purge?url={self.origin.source_url(source)}", {"Authorization": f"Bearer {token}"},
                port=owner["admin_port"])
            self.expect(status == 200 and "purged" in body,
                        f"purge of source {source}: {status} {body.strip()} from {self.routes[source]}'s admin listener")
            replies = [self.client.request("GET", variant(self.origin, source, k)) for k in [kind] + [k for k in range(3) if k != kind]]
            self.expect(all(r[0] == 200 for r in replies) and self.origin.count(source) == before + 1,
                        f"after it, the next request (variant {kind}) refetched the source ({before} -> "
                        f"{self.origin.count(source)} origin fetches); the other variants: 200, no further fetch")

    def scale_out(self):
        print("a 4th instance", flush=True)
        index = self.fleet.add()
        new = f"127.0.0.1:{self.fleet.instance(index)['port']}"
        after = dict(zip(range(SOURCES), [r[2][1] for r in self.load([(s, variant(self.origin, s, 0)) for s in range(SOURCES)])]))
        moved = [s for s in range(SOURCES) if after[s] != self.routes[s]]
        elsewhere = [s for s in moved if after[s] != new]
        share = len(moved) / SOURCES
        self.expect(0.10 <= share <= 0.45, f"{len(moved)} of {SOURCES} sources moved ({share:.0%}; a quarter expected)")
        self.expect(not elsewhere, "every source that moved went to the new instance; the rest stayed"
                    + (f" — {len(elsewhere)} moved between old ones" if elsewhere else ""))
        self.routes = after

    def kill_mid_load(self, redis_tier):
        print("SIGKILL of instance 1 mid-load", flush=True)
        victim = f"127.0.0.1:{self.fleet.instance(1)['port']}"
        orphans = [s for s in range(SOURCES) if self.routes[s] == victim]
        before = {s: self.origin.count(s) for s in orphans}
        requests = [(s, variant(self.origin, s, kind)) for kind in (28, 36) for s in range(SOURCES)]
        requests = [requests[(i * 7919) % len(requests)] for i in range(len(requests))]
        killed = threading.Event()

        def during(count):
            if count >= len(requests) // 3 and not killed.is_set():
                killed.set()
                self.fleet.kill(1)

        replies = self.load(requests, during)
        failed = [(path, reply[0]) for _, path, reply in replies if reply[0] != 200]
        retried = sum(1 for _, _, reply in replies if "," in reply[1])
        self.expect(killed.is_set() and not failed,
                    f"{len(replies)} requests, instance 1 killed after {len(requests) // 3}: {len(failed)} failed, "
                    f"{retried} answered after nginx retried on the next instance" + (f" — {failed[:3]}" if failed else ""))
        if not redis_tier:
            print(f"  SKIP new variants of the killed instance's {len(orphans)} sources made from Redis with no origin fetch:"
                  " this server binary reports no Redis tier (no webimage_redis series in its admin /metrics)")
        else:
            # The load above already asked the next instances for new variants of the orphans.
            replies = self.load([(s, variant(self.origin, s, 40)) for s in orphans])
            refetched = [s for s in orphans if self.origin.count(s) != before[s]]
            self.expect(all(r[2][0] == 200 for r in replies) and not refetched,
                        f"new variants of the killed instance's {len(orphans)} sources, on the instances that took "
                        f"them over: made from Redis, {len(refetched)} of those sources fetched from the origin again")
        self.fleet.start(1)

    def redis_down(self, redis_tier):
        if not redis_tier:
            print("  SKIP Redis stopped -> every request 200 within 5 s: this server binary reports no Redis tier")
            return
        print("Redis stopped", flush=True)
        self.fleet.stop_redis()
        try:
            replies = self.load([(s, variant(self.origin, s, 44)) for s in range(SOURCES)])
            slowest = max(r[2][2] for r in replies)
            self.expect(all(r[2][0] == 200 for r in replies) and slowest < 5,
                        f"{len(replies)} requests with Redis down: all 200, slowest {slowest:.2f} s (< 5 s)")
        finally:
            self.fleet.start_redis()


def run_check():
    started = time.monotonic()
    directory = tempfile.mkdtemp(prefix="webimage-fleet-check-")
    environment = {k: v for k, v in os.environ.items() if k != "WEBIMAGE_SECURITY_KEY"}  # its own unsafe fleet
    fleet = Fleet(directory, environment)
    origin = Origin()
    failures = []
    try:
        fleet.up(3, allow_unsafe=True)
        print(f"fleet check: {fleet.url}, origin http://127.0.0.1:{origin.port}, state in {directory}", flush=True)
        check = Check(fleet, origin, failures)
        redis_tier = fleet.has_redis_tier()
        check.mixed_load()
        check.admin_face()
        check.purge()
        check.scale_out()
        check.kill_mid_load(redis_tier)
        check.redis_down(redis_tier)
    except FleetError as error:
        print(f"  FAIL {error}")
        failures.append(str(error))
    finally:
        try:
            fleet.down(quiet=True)
            print("  ok   down: nothing left running")
        except FleetError as error:
            print(f"  FAIL {error}")
            failures.append(str(error))
        origin.stop()
    elapsed = time.monotonic() - started
    if failures:
        print(f"fleet check: {len(failures)} failed in {elapsed:.0f} s (logs in {directory})")
        return 1
    shutil.rmtree(directory, ignore_errors=True)
    print(f"fleet check: passed in {elapsed:.0f} s")
    return 0
