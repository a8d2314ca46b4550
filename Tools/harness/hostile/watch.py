"""Watching the server while it is attacked: /healthz asked every 200 ms on a new connection
(its latency is what a load balancer's probe sees), and requests fired together."""
import threading
import time

from harness import get

HEALTH_BOUND = 0.100  # seconds


class Health:
    def __init__(self, port, every=0.2):
        self.port, self.every = port, every
        self.latencies, self.failures = [], []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="healthz")

    def start(self):
        self.thread.start()
        return self

    def _run(self):
        while not self.stopping.is_set():
            answer = get(self.port, "/healthz", timeout=5, headers={"Accept": "text/plain"})
            if answer.status == 200:
                self.latencies.append(answer.seconds)
            else:
                self.failures.append(answer.why())
            self.stopping.wait(max(0.0, self.every - answer.seconds))

    def stop(self):
        self.stopping.set()
        self.thread.join()
        return self

    @property
    def passed(self):
        return bool(self.latencies) and not self.failures and max(self.latencies) < HEALTH_BOUND

    def summary(self):
        if not self.latencies:
            return f"/healthz never answered ({len(self.failures)} failures: {self.failures[:1]})"
        ordered = sorted(self.latencies)
        slow = sum(latency >= HEALTH_BOUND for latency in ordered)
        text = (f"/healthz {len(ordered)} samples, median {ordered[len(ordered) // 2] * 1000:.0f} ms, "
                f"max {ordered[-1] * 1000:.0f} ms, {slow} at or over {HEALTH_BOUND * 1000:.0f} ms")
        return text + (f", {len(self.failures)} failed ({self.failures[0]})" if self.failures else "")


def fire(port, paths, timeout, stagger=0.0):
    """GETs every path at once (a thread each, `stagger` seconds apart so they arrive in order);
    returns [thread, result holder] to join with collect()."""
    holders = [{} for _ in paths]
    threads = [threading.Thread(target=lambda h=h, p=p: h.update(answer=get(port, p, timeout=timeout)), daemon=True)
               for h, p in zip(holders, paths)]
    for thread in threads:
        thread.start()
        time.sleep(stagger)
    return threads, holders


def collect(fired):
    threads, holders = fired
    for thread in threads:
        thread.join()
    return [holder["answer"] for holder in holders]


def wait_until(condition, seconds, step=0.05):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(step)
    return condition()
