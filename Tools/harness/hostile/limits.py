"""Attacks on the size and memory limits: trim to one row (2), huge rotations (3), an animation
that multiplies when scaled up (4), and very long paths (5)."""
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from harness import get, image_size, progress

MAX_OUTPUT_PIXELS = 1_000_000  # the server runs with --max-output-pixels 1000000
ANIMATION_GROWTH_MB = 200
LONG_PATHS, LONG_PATH_BYTES, LONG_PATH_GROWTH_MB = 300, 70_000, 50


def trim_to_one_row(report, server, world):
    progress("2: trim a white square down to its one black row, then ask for 5000 rows of it")
    answer = get(server.port, f"/unsafe/trim/0x5000/{world.public_ip}:{world.public.port}/onerow.png")
    report.judge("2 trim to one row, 0x5000", server, answer.refused, f"answer {answer} (want 4xx, 413 expected)")


def huge_rotation(report, server, world):
    progress("3: rotate(252e19) three times at 1000x1000")
    rotate = "rotate(252e19)"
    answer = get(server.port, f"/unsafe/1000x1000/filters:{rotate}:{rotate}:{rotate}/{world.public_ip}:{world.public.port}/photo.png")
    if answer.refused:
        report.judge("3 rotate(252e19) x3", server, True, f"answer {answer}")
        return
    size = image_size(answer.body) if answer.status == 200 else None
    passed = size is not None and size[0] * size[1] <= MAX_OUTPUT_PIXELS
    shown = f"{size[0]}x{size[1]}" if size else "no image"
    report.judge("3 rotate(252e19) x3", server, passed,
                 f"answer {answer}, {shown} (want 4xx or at most {MAX_OUTPUT_PIXELS} pixels)")


def animation_amplification(report, server, world):
    progress("4: 400 frames of 1x1 asked at 600x600 (RSS measured)")
    server.reset_peak()
    before = server.rss_mb()
    answer = get(server.port, f"/unsafe/600x600/{world.public_ip}:{world.public.port}/frames.gif", timeout=60)
    time.sleep(0.5)
    growth = server.window_peak_mb() - before
    passed = (answer.refused or answer.status == 200) and growth <= ANIMATION_GROWTH_MB
    report.judge("4 animated amplification", server, passed,
                 f"answer {answer}, peak RSS +{growth:.0f} MB (want 4xx or 200, and at most +{ANIMATION_GROWTH_MB} MB)")


def long_paths(report, server, world):
    progress(f"5: {LONG_PATHS} distinct paths of ~{LONG_PATH_BYTES // 1000} KB (RSS measured)")
    prefix = f"/unsafe/300x200/{world.public_ip}:{world.public.port}/long/"
    before = server.rss_mb()

    def attack(i):
        head = f"{prefix}{i}/"
        return get(server.port, head + "a" * (LONG_PATH_BYTES - len(head) - 4) + ".png", timeout=30).status

    with ThreadPoolExecutor(4) as pool:
        statuses = list(pool.map(attack, range(LONG_PATHS)))
    time.sleep(1)
    growth = server.rss_mb() - before
    tally = Counter(statuses)
    refused = all(s is not None and 400 <= s < 500 for s in statuses)
    shown = ", ".join(f"{n}x {s}" for s, n in sorted(tally.items(), key=lambda item: str(item[0])))
    report.judge("5 long paths", server, refused and growth < LONG_PATH_GROWTH_MB,
                 f"answers {shown} (want 414, at least 4xx), RSS {growth:+.0f} MB (want < {LONG_PATH_GROWTH_MB})")
