"""Attacks on where sources come from: DNS rebinding by spelling (1), non-LDH hosts (7), and
busy source clients evicted by a flood of new hosts (9)."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from harness import get, image_size, progress


def _loopback_attack(server, world, source):
    """One source that must not reach the loopback origin: refused, and the origin untouched."""
    before = world.secret.total()
    answer = get(server.port, f"/unsafe/{source}", timeout=30)
    reached = world.secret.total() - before
    return answer, reached


def public_source_served(report, server, world):
    """The control: without it a server that refused everything would pass every attack."""
    answer = get(server.port, f"/unsafe/300x200/{world.public_ip}:{world.public.port}/photo.jpg")
    size = image_size(answer.body) if answer.status == 200 else None
    report.judge("0 control, a public source is served", server, size == (300, 200),
                 f"answer {answer}{f' {size[0]}x{size[1]}' if size else ''} (want 200 300x200)")


def rebinding(report, server, world):
    progress("1: DNS rebinding through host spellings (first answer public, then 127.0.0.1)")
    port = world.secret.port
    spellings = [("upper case", "B.REBIND.test"), ("trailing dot", "c.rebind.test."),
                 ("mixed case", "d.ReBind.TEST"), ("plain", "e.rebind.test")]
    for what, host in spellings:
        answer, reached = _loopback_attack(server, world, f"{host}:{port}/secret.png")
        asked = world.dns.queries(host)
        report.judge(f"1 rebinding, {what} {host}", server, reached == 0 and answer.status != 200,
                     f"answer {answer}, loopback origin reached {reached}x, DNS asked {asked}x")
    answer, reached = _loopback_attack(server, world, f"{world.public_ip}:{world.public.port}/redirect-rebind.png")
    report.judge(f"1 rebinding, redirect to {world.redirect_host}", server, reached == 0 and answer.status != 200,
                 f"answer {answer}, loopback origin reached {reached}x, DNS asked {world.dns.queries(world.redirect_host)}x")


def non_ldh_hosts(report, server, world):
    progress("7: hosts with NUL, newline, space and encoded dots")
    port = world.secret.port
    hosts = ["127.0.0.1%00.example.com", "127.0.0.1%0a.example.com", "127.0.0.1%20.example.com",
             "127%2e0%2e0%2e1", "127%252e0%252e0%252e1", "g.rebind.test%00.example.com",
             "i.rebind.test%0a", "j.rebind%252etest"]
    for host in hosts:
        answer, reached = _loopback_attack(server, world, f"{host}:{port}/secret.png")
        report.judge(f"7 non-LDH host {host}", server, answer.refused and reached == 0,
                     f"answer {answer} (want 4xx), loopback origin reached {reached}x")


def busy_clients(report, server, world, hosts=70):
    progress(f"9: a slow download while {hosts} new source hosts arrive")
    port = world.public.port
    slow = {}
    thread = threading.Thread(target=lambda: slow.update(answer=get(
        server.port, f"/unsafe/300x300/{world.public_ip}:{port}/slow/photo.png", timeout=60)))
    thread.start()
    deadline = time.monotonic() + 10
    while world.public.slow_started is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if world.public.slow_started is None:
        thread.join()
        report.judge("9 busy client kept", server, False,
                     f"inconclusive: the slow download never reached the origin (answer {slow['answer']})")
        return
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: get(server.port, f"/unsafe/10x10/h{i}.public.test:{port}/tiny.png", timeout=30),
                                range(1, hosts + 1)))
    flood_seconds = time.monotonic() - world.public.slow_started
    thread.join()
    answer = slow["answer"]
    ok_count = sum(a.status == 200 for a in answers)
    size = image_size(answer.body) if answer.status == 200 else None
    detail = (f"slow download answered {answer}{f' {size[0]}x{size[1]}' if size else ''}; "
              f"{ok_count}/{hosts} other hosts 200, done {flood_seconds:.1f} s into its {world.public.slow_seconds:.0f} s body")
    if flood_seconds >= world.public.slow_seconds:
        report.judge("9 busy client kept", server, False, detail + " — inconclusive: the flood outlasted the slow download")
        return
    report.judge("9 busy client kept", server, answer.status == 200 and size == (300, 300), detail)
