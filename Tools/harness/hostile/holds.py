"""Issue 37, what holds the server's slots and connections: sources that drip forever (item 2),
sources naming the server itself (item 5), unfinished request heads (item 6) and names whose DNS
never answers (item 7)."""
import time

from cost import SLACK
from harness import get, metrics, progress
from slowloris import Slowloris
from watch import Health, collect, fire, wait_until

REQUESTS = "webimage_requests_total"


def dripping_sources(report, server, world, drips=2):
    """On a server with --concurrency 2: two drips take both slots."""
    deadline, origin = world.deadline, world.public
    progress(f"37.2: {drips} sources that send a byte every {origin.drip_seconds} s, forever")
    started = origin.drip_started
    fired = fire(server.port, [f"/unsafe/100x100/{world.source(f'drip/{i}/never.png')}" for i in range(drips)],
                 timeout=deadline + 60)
    reached = wait_until(lambda: origin.drip_started - started >= drips, 10)
    answers = collect(fired)
    shown = ", ".join(f"{a.why()} after {a.seconds:.1f} s" for a in answers)
    bound = deadline + SLACK
    passed = reached and all(a.status == 504 and a.seconds <= bound for a in answers)
    report.judge("37.2 dripping sources answer 504 by the deadline", server, passed,
                 f"{shown} (want 504 within {bound:.0f} s)" + ("" if reached else "; the drips never reached the origin"))
    # The work past the deadline must be cancelled: the origin sees its connections go.
    wait_until(lambda: origin.dripping == 0, 2 * origin.drip_seconds + 1)
    still = origin.dripping
    cold = collect(fire(server.port, [f"/unsafe/{200 + i}x{100 + i}/{world.source('photo.jpg')}" for i in range(3)],
                        timeout=deadline + 30))
    shown = ", ".join(f"{a.why()} in {a.seconds:.1f} s" for a in cold)
    passed = still == 0 and all(a.status == 200 and a.seconds <= deadline for a in cold)
    report.judge("37.2 slots freed after the deadline", server, passed,
                 f"3 cold requests after: {shown} (want 200 within {deadline:.0f} s); drips still being read "
                 f"{still} (want 0: the downloads cancelled)")


def self_reference(report, server, world):
    """On a server listening on 0.0.0.0, so the "public" address reaches it."""
    progress("37.5: sources naming the server itself")
    me = f"self.public.test:{server.port}"
    inner = f"unsafe/10x10/{world.source('tiny.png')}"
    cases = [("by a public name", f"/unsafe/10x10/{me}/{inner}"),
             ("by its public address", f"/unsafe/11x11/{world.public_ip}:{server.port}/{inner}"),
             ("nested three deep", f"/unsafe/12x12/{me}/unsafe/12x12/{me}/unsafe/12x12/{world.source('tiny.png')}")]
    for what, path in cases:
        before = metrics(server.control_port).get(REQUESTS, 0)
        answer = get(server.port, path, timeout=world.deadline + 30)
        time.sleep(0.2)
        extra = metrics(server.control_port).get(REQUESTS, 0) - before - 1
        report.judge(f"37.5 self-reference {what}", server,
                     answer.status in (403, 508) and answer.seconds < 2 and extra == 0,
                     f"answer {answer.why()} in {answer.seconds:.2f} s, requests it made to itself: {extra:.0f} "
                     f"(want 403 or 508 within 2 s, none)")
    chains = [f"/unsafe/{20 + i}x{20 + i}/{me}/unsafe/{20 + i}x{20 + i}/{me}/{inner}" for i in range(8)]
    fired = fire(server.port, chains, timeout=world.deadline + 30)
    time.sleep(0.2)
    ordinary = get(server.port, f"/unsafe/130x130/{world.source('photo.jpg')}", timeout=world.deadline + 30)
    answers = collect(fired)
    statuses = sorted({str(a) for a in answers})
    slowest = max(a.seconds for a in answers)
    report.judge("37.5 self-references hold no slot", server,
                 ordinary.status == 200 and ordinary.seconds < 3 and all(a.status in (403, 508) for a in answers),
                 f"8 chains at once: {', '.join(statuses)}, slowest {slowest:.1f} s; an ordinary request meanwhile "
                 f"{ordinary.why()} in {ordinary.seconds:.1f} s (want 403/508, and 200 within 3 s)")


def slowloris(report, server, world, connections=200):
    timeout = world.header_timeout
    bound = (timeout or 10) + 3
    progress(f"37.6: {connections} request heads sent slowly towards 60 KB"
             + (f" (--{world.header_flag} {timeout})" if timeout else " (no header-timeout flag in serve --help)"))
    health = Health(server.port).start()
    attack = Slowloris(server.port, connections).start()
    wait_until(lambda: attack.opened + attack.refused >= connections and attack.open_now() == 0, bound, step=0.2)
    waited = time.monotonic() - attack.started
    still = attack.open_now()
    attack.stop()
    health.stop()
    closed = sorted(attack.closed_after)
    when = f", closed after {closed[0]:.1f}–{closed[-1]:.1f} s" if closed else ""
    report.judge("37.6 slowloris heads closed", server, still == 0 and attack.opened + attack.refused == connections,
                 f"{attack.opened} opened, {attack.refused} not accepted, {still} still open after {waited:.1f} s{when} "
                 f"(want none open by {bound:.0f} s)")
    report.judge("37.6 slowloris: /healthz fast", server, health.passed, health.summary())


def dns_blackhole(report, server, world, names=20):
    progress(f"37.7: {names} source names whose DNS never answers, then a new ordinary name")
    port = world.public.port
    baseline = get(server.port, f"/unsafe/10x10/fresh-a.public.test:{port}/tiny.png", timeout=30)
    asked = world.dns.blackholed
    fired = fire(server.port, [f"/unsafe/10x10/n{i}.blackhole.test:{port}/tiny.png" for i in range(names)],
                 timeout=world.deadline + 60)
    wait_until(lambda: world.dns.blackholed - asked >= names, 3)
    time.sleep(0.2)
    ordinary = get(server.port, f"/unsafe/10x10/fresh-b.public.test:{port}/tiny.png", timeout=30)
    answers = collect(fired)
    statuses = sorted({str(a) for a in answers})
    slowest = max(a.seconds for a in answers)
    bound = baseline.seconds + 0.5
    report.judge("37.7 DNS that never answers stalls no other source", server,
                 baseline.status == 200 and ordinary.status == 200 and ordinary.seconds <= bound,
                 f"a new name answered {ordinary.why()} in {ordinary.seconds:.2f} s with {names} lookups hanging "
                 f"(alone: {baseline} in {baseline.seconds:.2f} s; want 200 within {bound:.2f} s); "
                 f"the hanging ones: {', '.join(statuses)}, slowest {slowest:.1f} s, DNS queries unanswered {world.dns.blackholed - asked}")
    report.judge("37.7 hanging lookups end by the deadline", server,
                 slowest <= world.deadline + SLACK and all(a.status is not None for a in answers),
                 f"slowest of {names} answered after {slowest:.1f} s (want within {world.deadline + SLACK:.0f} s)")
