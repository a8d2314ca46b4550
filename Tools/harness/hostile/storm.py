"""Issue 37's "must show": 16 worst-case requests at once — the bombs, blur and upscale at the
25 MP output limit, dripping sources, slow request heads — and meanwhile the server is never
killed, every answer is 413/429/503/504 (or 200) in bounded time, /healthz stays under 100 ms and
an ordinary request answers 200. In the 2 GiB, 2-core cgroup."""
import time

from cgroup import MEMORY_MAX, mb
from cost import SLACK, cpu_after
from harness import get, progress
from slowloris import Slowloris
from watch import Health, collect, fire, wait_until

WORST = [  # after /unsafe/, {path} on the public origin (it serves a file by its last segment). The
    # heaviest first: the first four take the four slots (--concurrency's default on 2 cores) before
    # the rest queue. Each JPEG XL has a source URL of its own, so no load is shared: the four decode
    # or check 49 MP each at once.
    "41x41/{j1/bomb.jxl}", "42x42/{j2/bomb.jxl}", "43x43/{j3/bomb.jxl}", "5000x5000/{j4/bomb.jxl}",
    "5000x5000/filters:blur(150)/{photo.png}", "5000x5000/filters:format(avif)/{a1/bomb.avif}",
    "5000x5000/{s1/scans.jpg}", "41x41/{s2/scans.jpg}", "41x41/{a2/bomb.avif}",
    "5000x5000/filters:blur(149)/{tiny133.png}", "5000x5000/{photo.jpg}", "5000x5000/filters:format(avif)/{photo.png}",
    "100x100/{drip/storm-a/never.png}", "100x100/{drip/storm-b/never.png}",
]
SLOW_HEADS = 2  # with WORST: 16
DEADLINE = 15  # --request-deadline of the storm's server: long enough for every bomb to reach its decoder
ALLOWED = {200, 413, 429, 503, 504}


def _path(world, template):
    start, end = template.index("{"), template.index("}")
    return "/unsafe/" + template[:start] + world.source(template[start + 1:end]) + template[end + 1:]


def worst_case(report, server, world):
    bound = DEADLINE + SLACK
    progress(f"37 storm: {len(WORST)} worst-case requests and {SLOW_HEADS} slow heads at once")
    missing = [t for t in WORST if "drip/" not in t and t[t.index("{") + 1:t.index("}")].rsplit("/", 1)[-1] not in world.public.files]
    if missing:
        report.verdict("37 storm", False, f"the harness could not make {missing}: {world.bomb_error}")
        return
    kills = server.group.oom_kills()
    pid = server.proc.pid
    server.group.start_window()
    health = Health(server.port).start()
    heads = Slowloris(server.port, SLOW_HEADS).start()
    fired = fire(server.port, [_path(world, t) for t in WORST], timeout=bound + 30, stagger=0.01)
    time.sleep(1.0)
    ordinary = get(server.port, f"/unsafe/299x199/{world.source('photo.jpg')}", timeout=bound + 30)
    answers = collect(fired)
    lingering = cpu_after(server)  # work the deadline cut short must stop with it
    wait_until(lambda: heads.open_now() == 0, max(0.0, (world.header_timeout or 10) + 3 - (time.monotonic() - heads.started)))
    heads_open = heads.open_now()
    heads.stop()
    health.stop()
    peak = server.group.stop_window()
    killed = server.proc.poll() is not None or server.proc.pid != pid
    oom = server.group.oom_kills() - kills

    exit_text = f", exited {server.proc.returncode}" if server.proc.poll() is not None else ""
    report.verdict("37 storm: the server is never killed", not killed and oom == 0,
                   f"{'killed' if killed else 'alive'}{exit_text}, OOM kills in the cgroup {oom} (want alive, 0)")
    outside = [(t, a) for t, a in zip(WORST, answers) if a.status not in ALLOWED or a.seconds > bound]
    tally = {}
    for answer in answers:
        tally[str(answer)] = tally.get(str(answer), 0) + 1
    shown = ", ".join(f"{n}x {s}" for s, n in sorted(tally.items()))
    worst = "; ".join(f"{t.split('{')[0]}{t[t.index('{') + 1:t.index('}')]}: {a.why()} after {a.seconds:.1f} s" for t, a in outside[:4])
    report.verdict("37 storm: answers 413/429/503/504/200 in bounded time", not outside and heads_open == 0 and lingering < 0.5,
                   f"{shown}, slowest {max(a.seconds for a in answers):.1f} s (want within {bound:.0f} s); "
                   f"server CPU in the second after the last answer {lingering:.2f} s (want < 0.5: the work stopped); "
                   f"slow heads still open {heads_open}/{SLOW_HEADS}" + (f"; outside: {worst}" if outside else ""))
    report.verdict("37 storm: /healthz under 100 ms throughout", health.passed, health.summary())
    report.verdict("37 storm: an ordinary request meanwhile answers 200", ordinary.status == 200 and ordinary.seconds <= bound,
                   f"{ordinary.why()} in {ordinary.seconds:.1f} s (want 200 within {bound:.0f} s)")
    report.judge("37 storm: cgroup memory peak", server, peak < MEMORY_MAX,
                 f"{mb(peak):.0f} MB sampled (want under the cgroup's {mb(MEMORY_MAX):.0f} MB)")
