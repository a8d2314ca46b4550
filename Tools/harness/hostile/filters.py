"""Issue 38: filter arguments no request may turn into a crash, a stall or unbounded memory —
blur(10000), convolution and curve of 10,000 terms (and the most that fit in a path), a watermark
of a 49 MP image, a frame of a 7000x7000 nine-patch, proportion(1000), noise(-5), a watermark on
a loopback address, fill(blur) on the largest box. Each must be a 400 (or another 4xx refusal),
a 413, a refused source, or a bounded 200 (output within the limits, RSS growth under the
per-request cap), answered within the deadline with the server still up. A 504 counts as a FAIL:
the argument was not bounded before the work. Run on the "filters" server (the unit's limits,
short deadline, long request heads so the long filters reach the parser, 2 GiB cgroup)."""
import re
import struct
import zlib

from cgroup import MEMORY_MAX, mb
from cost import REQUEST_MEMORY_MB, SLACK
from harness import get, image_size, progress

SIDE = 7000  # 49 MP: inside --max-source-pixels' default of 50 MP
MAX_OUTPUT_PIXELS = 25_000_000  # --max-output-pixels' default
MAX_HEADER_BYTES = 131072  # the filters server's --max-header-bytes: 10,000-term paths get past the head limit


def _png(width, height, rows, color_type):
    """A PNG of `height` rows from `rows(y)` (filter byte included), compressed as it goes: big in
    pixels, small on disk, never whole in this process's memory."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(rows(y)) for y in range(height)) + packer.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def _watermark_png():
    row = b"\0" + bytes((200, 30, 30, 128)) * SIDE  # translucent red RGBA
    return _png(SIDE, SIDE, lambda y: row, 6)


def _nine_patch_png():
    """A 7000x7000 nine-patch: a 1-px guide border (black runs over the middle third on every side)
    around a brown frame."""
    third = SIDE // 3
    clear, black, wood = bytes(4), bytes((0, 0, 0, 255)), bytes((90, 60, 30, 255))
    guide = b"\0" + clear + clear * (third - 1) + black * third + clear * (SIDE - 2 * third - 1) + clear
    edge_inner = wood * (SIDE - 2)
    plain = b"\0" + clear + edge_inner + clear
    marked = b"\0" + black + edge_inner + black

    def rows(y):
        if y in (0, SIDE - 1):
            return guide
        return marked if third <= y < 2 * third else plain

    return _png(SIDE, SIDE, rows, 6)


def fixtures():
    """The files these rows ask the public origin for: name -> (content type, bytes)."""
    return {"watermark49mp.png": ("image/png", _watermark_png()),
            "ninepatch49mp.png": ("image/png", _nine_patch_png())}


def _rows(world):
    src = world.source("photo.png")
    mark, frame = world.source("watermark49mp.png"), world.source("ninepatch49mp.png")
    ones = lambda n: ";".join("1" for _ in range(n))
    points = lambda n: "[" + ",".join(f"({i * 255 // max(1, n - 1)},{i * 255 // max(1, n - 1)})" for i in range(n)) + "]"
    return [  # (label, path)
        ("blur(10000)", f"/unsafe/1000x1000/filters:blur(10000)/{src}"),
        ("blur(10,10000)", f"/unsafe/1000x1000/filters:blur(10,10000)/{src}"),
        ("convolution of 10,000 terms", f"/unsafe/1000x1000/filters:convolution({ones(10000)},100,false)/{src}"),
        ("convolution 63x63 (the most that fits in a path) at 2000x2000",
         f"/unsafe/2000x2000/filters:convolution({ones(3969)},63,true)/{src}"),
        ("convolution of 4,000 terms in one column", f"/unsafe/2000x2000/filters:convolution({ones(4000)},1,true)/{src}"),
        ("curve with 10,000 points", f"/unsafe/1000x1000/filters:curve({points(10000)},[],[],[])/{src}"),
        ("curve with 1,300 points (fits in a path)",
         f"/unsafe/1000x1000/filters:curve([{','.join(['(1,1)'] * 1300)}],[],[],[])/{src}"),
        ("watermark of a 49 MP PNG", f"/unsafe/1000x1000/filters:watermark({mark},0,0,0)/{src}"),
        ("watermark of a 49 MP PNG, repeat", f"/unsafe/1000x1000/filters:watermark({mark},repeat,repeat,0)/{src}"),
        ("frame of a 7000x7000 nine-patch", f"/unsafe/1000x1000/filters:frame({frame})/{src}"),
        ("proportion(1000)", f"/unsafe/1000x1000/filters:proportion(1000)/{src}"),
        ("noise(-5)", f"/unsafe/1000x1000/filters:noise(-5)/{src}"),
        ("fill(blur) on a 5000x5000 box", f"/unsafe/fit-in/5000x5000/filters:fill(blur)/{src}"),
    ]


def hostile_arguments(report, server, world):
    progress("38: hostile filter arguments (each: 4xx, or a bounded 200, within the deadline)")
    deadline = world.deadline
    for label, path in _rows(world):
        fetched = world.public.seen("/watermark49mp.png") + world.public.seen("/ninepatch49mp.png")
        server.reset_peak()
        rss_before = server.rss_mb()
        server.group.start_window()
        answer = get(server.port, path, timeout=deadline + 30)
        peak = server.group.stop_window()
        died = server.proc.poll() is not None
        growth = 0 if died else server.window_peak_mb() - rss_before
        problems = []
        if answer.seconds > deadline + SLACK:
            problems.append(f"over {deadline + SLACK:.0f} s")
        size = image_size(answer.body) if answer.status == 200 else None
        if answer.status == 200:
            if size is None:
                problems.append("200 without an image")
            elif size[0] * size[1] > MAX_OUTPUT_PIXELS:
                problems.append(f"{size[0]}x{size[1]} past the {MAX_OUTPUT_PIXELS} output pixels")
        elif answer.status == 504:
            problems.append("504: the deadline cut the work (the argument was not bounded before it)")
        elif not answer.refused:
            problems.append("not 4xx or 200")
        if growth > REQUEST_MEMORY_MB:
            problems.append(f"RSS +{growth:.0f} MB over the {REQUEST_MEMORY_MB} MB per-request cap")
        if peak >= MEMORY_MAX:
            problems.append("the cgroup at its limit")
        fetched = world.public.seen("/watermark49mp.png") + world.public.seen("/ninepatch49mp.png") - fetched
        notes = []
        if "49mp" in path:
            notes.append(f"the 49 MP image fetched {fetched} time(s)")
        if answer.status == 200 and ("49mp" in path) and not fetched:
            problems.append("200 without fetching the 49 MP image: the filter was ignored, the row shows nothing yet")
        elif answer.status == 200 and "filters:" in path:
            plain = get(server.port, re.sub(r"filters:.*?\)/", "", path, count=1), timeout=deadline + 30)
            if plain.status == 200 and plain.body == answer.body:
                notes.append("same bytes as without the filter (ignored)")
        shown = f", {size[0]}x{size[1]}" if size else ""
        report.judge(f"38 filter: {label}", server, not problems,
                     f"answer {answer.why()}{shown} in {answer.seconds:.1f} s ({len(path)}-byte path), "
                     f"{'RSS unknown (died)' if died else f'RSS +{growth:.0f} MB'}, cgroup peak {mb(peak):.0f} MB"
                     + (f" — {'; '.join(problems + notes)}" if problems or notes else ""))


def private_watermark(report, server, world):
    progress("38: a watermark on loopback and on the metadata address (refused, never fetched)")
    src = world.source("photo.png")
    for label, mark in [("loopback", f"127.0.0.1:{world.secret.port}/secret.png"),
                        ("link-local metadata", "169.254.169.254/latest/meta-data/secret.png")]:
        before = world.secret.total()
        answer = get(server.port, f"/unsafe/300x200/filters:watermark({mark},0,0,0)/{src}", timeout=world.deadline + 30)
        reached = world.secret.total() - before
        passed = answer.refused and reached == 0
        report.judge(f"38 filter: watermark on {label}", server, passed,
                     f"answer {answer.why()} in {answer.seconds:.1f} s, loopback origin reached {reached} time(s) "
                     "(want 4xx, the refused source; 200 means the watermark was dropped or fetched)")
