"""Issue 37, what one request may cost: a filter argument that traps (item 1), small files that
decode far beyond their pixel count (item 4, one at a time; all at once is storm.py), and
`max_bytes(1)` re-encoding (item 8). Run on the "cost" server: the shipped unit's limits, a
short deadline, in the 2 GiB cgroup."""
import re
import time

from cgroup import MEMORY_MAX, mb
from harness import get, progress

SLACK = 4.0  # seconds past the request deadline an answer may take (a debug build decodes slowly)


def memory_budget(report, server, world):
    """The server's default memory budget comes from the cgroup it runs in (its startup lines)."""
    pattern = re.compile(r"memory: (\d+) bytes planned at once")
    found = next((m for m in map(pattern.search, server.settings) if m), None)
    if not found:
        report.verdict("37 memory budget within the cgroup", False,
                       "no 'memory: N bytes planned at once' line in the server's startup settings")
        return
    budget = int(found.group(1))
    report.verdict("37 memory budget within the cgroup", budget < MEMORY_MAX,
                   f"planned at once {mb(budget):.0f} MB by default (want under the cgroup's {mb(MEMORY_MAX):.0f} MB)")


def round_corner_trap(report, server, world):
    progress("37.1: round_corner with an empty first argument (a trap in the filter parser)")
    for arguments in ("|,0,0,0", ",0,0,0"):
        answer = get(server.port, f"/unsafe/40x40/filters:round_corner({arguments})/{world.source('photo.png')}")
        report.judge(f"37.1 round_corner({arguments})", server, answer.status in (200, 400),
                     f"answer {answer.why()} (want 400 or 200, and the server up)")


# (label, path after /unsafe/, RSS a 413 may cost): JPEG XL and AVIF cannot be decoded smaller by
# their libraries here, so a plan that refuses them must do so before the decoder allocates ("a
# plan over the per-request cap is a 413 before any work"); a progressive JPEG's scan cap is
# reached while decoding, inside its plan.
BOMBS = [
    ("JPEG XL 7000x7000 in ~2 KB at 40x40", "40x40/{bomb.jxl}", 64),
    ("PNG of ~130 B at 5000x5000 blur(150)", "5000x5000/filters:blur(150)/{tiny133.png}", None),
    ("progressive JPEG 7000x7000, ~230 scans in ~7 KB, at 40x40", "40x40/{scans.jpg}", None),
    ("AVIF 7000x7000 in ~1.5 KB at 40x40", "40x40/{bomb.avif}", 64),
]
REQUEST_MEMORY_MB = 1024  # --max-request-memory's default cap (half of --max-memory, at most 1 GiB)


def bomb_path(world, template):
    name = template[template.index("{") + 1:template.index("}")]
    return "/unsafe/" + template.replace("{" + name + "}", world.source(name)), name


def cpu_after(server, seconds=1.0):
    """CPU the server spends in the `seconds` after an answer: work a deadline cut short must stop."""
    before = server.cpu_seconds() or 0
    time.sleep(seconds)
    return (server.cpu_seconds() or before) - before


def bombs(report, server, world):
    deadline = world.deadline
    for label, template, refusal_mb in BOMBS:
        path, name = bomb_path(world, template)
        if name not in world.public.files:
            report.verdict(f"37.4 bomb: {label}", False, f"the harness could not make {name}: {world.bomb_error}")
            continue
        progress(f"37.4: {label} ({len(world.public.files[name][1])} bytes)")
        server.reset_peak()
        rss_before = server.rss_mb()
        cpu_before = server.cpu_seconds() or 0
        server.group.start_window()
        answer = get(server.port, path, timeout=deadline + 30)
        peak = server.group.stop_window()
        cpu = (server.cpu_seconds() or cpu_before) - cpu_before
        died = server.proc.poll() is not None
        growth = 0 if died else server.window_peak_mb() - rss_before
        lingering = cpu_after(server) if answer.status == 504 else 0
        problems = []
        if answer.seconds > deadline + SLACK:
            problems.append(f"over {deadline + SLACK:.0f} s")
        if answer.status == 504:
            if lingering > 0.25:  # a deadline's 504 is bounded only when the work stops with it
                problems.append(f"504 but the work went on ({lingering:.2f} s CPU in the next second)")
        elif answer.status != 200 and not answer.refused:
            problems.append("not 413 or 200")
        if growth > REQUEST_MEMORY_MB:
            problems.append(f"over the {REQUEST_MEMORY_MB} MB per-request cap")
        if answer.status == 413 and refusal_mb is not None and growth > refusal_mb:
            problems.append(f"refused only after +{growth:.0f} MB (want a 413 before any work: under +{refusal_mb} MB)")
        if peak >= MEMORY_MAX:
            problems.append("the cgroup at its limit")
        wants = (f"want 413, 200, or a 504 whose work stops, within {deadline + SLACK:.0f} s; RSS under "
                 f"+{REQUEST_MEMORY_MB} MB" + (f", a 413 under +{refusal_mb} MB" if refusal_mb else ""))
        report.judge(f"37.4 bomb: {label}", server, not problems,
                     f"answer {answer.why()} in {answer.seconds:.1f} s, {'RSS unknown (died)' if died else f'RSS +{growth:.0f} MB'}, {cpu:.1f} s CPU, "
                     f"cgroup peak {mb(peak):.0f} of {mb(MEMORY_MAX):.0f} MB" + (f" — {'; '.join(problems)}" if problems else "") + f" ({wants})")


def max_bytes(report, server, world):
    progress("37.8: max_bytes(1) against a plain encode of the same variant (server CPU time)")
    source = world.source("photo.png")
    warm = get(server.port, f"/unsafe/10x10/{source}")  # the source in its cache: no download measured
    if warm.status != 200:
        report.judge("37.8 max_bytes(1) CPU", server, False, f"the source did not load: {warm.why()}")
        return

    def cpu_of(path):
        before = server.cpu_seconds()
        answer = get(server.port, path, timeout=60)
        time.sleep(0.3)  # the cache write after the answer
        return answer, server.cpu_seconds() - before

    # WebP (max_bytes searches JPEG and WebP qualities; WebP's encoder is the slower of the two, so
    # the measure is the encodes more than the decode around them), at 4 MP so that the CPU clock's
    # 10 ms ticks are noise.
    plain, plain_cpu = cpu_of(f"/unsafe/2000x2000/filters:format(webp)/{source}")
    capped, capped_cpu = cpu_of(f"/unsafe/2000x2000/filters:format(webp):max_bytes(1)/{source}")
    if plain.status != 200 or plain_cpu <= 0:
        report.judge("37.8 max_bytes(1) CPU", server, False, f"the plain encode answered {plain.why()} ({plain_cpu:.2f} s CPU): nothing to compare")
        return
    ratio = capped_cpu / plain_cpu
    report.judge("37.8 max_bytes(1) CPU", server, capped.status == 200 and ratio <= 4,
                 f"max_bytes(1) answer {capped.why()} ({len(capped.body)} bytes), {capped_cpu:.2f} s CPU; plain "
                 f"{plain_cpu:.2f} s: {ratio:.1f}x (want 200 and at most 4x)")
