"""Issue 37's item 4: small files that cost far more than their pixel count says, all inside the
default limits (50 MP sources, 25 MP variants): name -> (content type, bytes).

- bomb.jxl: 7000x7000 of one colour, ~2 KB (Debian's libjxl-tools `cjxl`, effort 1)
- bomb.avif: 7000x7000 of one colour, ~1.5 KB (Pillow's AVIF writer)
- scans.jpg: a progressive JPEG header claiming 7000x7000 at 4:4:4 followed by ~230 scans with no
  entropy data (~7 KB): libjpeg keeps the whole coefficient image (~290 MB) and walks it per scan
- tiny133.png: a 16x16 PNG of ~130 bytes, asked at 5000x5000 with blur(150) by the rows
Made in the background (cjxl takes a few seconds): `start()` then `wait()`."""
import io
import os
import struct
import subprocess
import tempfile
import threading
import zlib

from PIL import Image

SIDE = 7000  # 49 MP: just inside --max-source-pixels' default of 50 MP
_made, _thread = {}, None


def _solid_png(path, side, rgb=(40, 90, 160)):
    row = b"\0" + bytes(rgb) * side
    raw = zlib.compress(row * side, 1)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
                  + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


def _jxl(directory):
    source, target = os.path.join(directory, "solid.png"), os.path.join(directory, "bomb.jxl")
    _solid_png(source, SIDE)
    subprocess.run(["cjxl", source, target, "-d", "1", "-e", "1"], check=True, capture_output=True, timeout=120)
    os.unlink(source)
    with open(target, "rb") as f:
        return f.read()


def _segments(data):
    """(marker, bytes) of a JPEG from SOI's end to EOI, each scan without its entropy data."""
    i, segments = 2, []
    while data[i + 1] != 0xD9:
        marker, length = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
        segments.append((marker, data[i:i + 2 + length]))
        i += 2 + length
        if marker == 0xDA:  # skip the entropy-coded data up to the next marker
            while not (data[i] == 0xFF and data[i + 1] != 0 and not 0xD0 <= data[i + 1] <= 0xD7):
                i += 1
    return segments


def _scans_jpeg(target_bytes=7000):
    small = io.BytesIO()
    Image.new("RGB", (16, 16), (40, 90, 160)).save(small, "JPEG", progressive=True, quality=90, subsampling=0)
    segments = _segments(small.getvalue())
    first_scan = next(k for k, (marker, _) in enumerate(segments) if marker == 0xDA)
    head = b"\xff\xd8"
    for marker, segment in segments[:first_scan]:
        if marker == 0xC2:  # SOF2: height and width at offsets 5 and 7
            segment = segment[:5] + struct.pack(">HH", SIDE, SIDE) + segment[9:]
        head += segment
    # Each scan (with the Huffman tables before it) and one byte of data; repeated to the size.
    scans = b"".join(segment + (b"\0" if marker == 0xDA else b"") for marker, segment in segments[first_scan:])
    copies = max(1, (target_bytes - len(head) - 2) // len(scans))
    return head + scans * copies + b"\xff\xd9"


def _tiny_png():
    image = Image.new("RGB", (16, 16), (200, 30, 30))
    for x in range(0, 16, 3):
        image.putpixel((x, x), (0, 0, 0))
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def _avif():
    out = io.BytesIO()
    Image.new("RGB", (SIDE, SIDE), (40, 90, 160)).save(out, "AVIF", speed=10, quality=50)
    return out.getvalue()


def _make(directory):
    try:
        _made["scans.jpg"] = ("image/jpeg", _scans_jpeg())
        _made["tiny133.png"] = ("image/png", _tiny_png())
        _made["bomb.avif"] = ("image/avif", _avif())
        _made["bomb.jxl"] = ("image/jxl", _jxl(directory))
    except Exception as error:  # the rows that need a missing one say so
        _made["error"] = f"{type(error).__name__}: {error}"


def start(work):
    global _thread
    directory = tempfile.mkdtemp(dir=work, prefix="bombs-")
    _thread = threading.Thread(target=_make, args=(directory,), daemon=True, name="bombs")
    _thread.start()


def wait():
    """The bombs made (name -> (content type, bytes)), and why any is missing (or None)."""
    _thread.join()
    files = {name: value for name, value in _made.items() if name != "error"}
    return files, _made.get("error")
