"""Test files made from the photos once, into .photos/derived/ (kept between runs; delete a file to
remake it). The photos themselves only cover what Debian ships (JPEG, PNG, WebP), so every other
case is derived:

  edge cases (Pillow): CMYK JPEG (Adobe, inverted), greyscale JPEG, EXIF orientation 6 JPEG (pixels
      must come out NOT rotated), greyscale PNG, palette PNG with tRNS, 16-bit RGB PNG.
  AVIF (Debian's avifenc, libavif 0.11 + aom) and HEIC (Debian's heif-enc, libheif 1.15 + x265):
      made by encoders other than the decoders on either side, from PNGs written here without an
      ICC profile (so neither side has a profile to apply and sRGB is what both mean). The AVIF set
      covers what a YUV decoder can get wrong: 8-bit 4:2:0 with the BT.601 matrix (avifenc's
      default), the BT.709 matrix, limited range, 10-bit, alpha, and lossless (identity matrix,
      4:4:4). HEIC: 8-bit, 10-bit, alpha.
"""
import os
import shutil
import struct
import subprocess
import zlib

from .env import DERIVED, PHOTOS, log

SOURCES = {
    "wood": "jpeg/wood-2560x1920.jpg",
    "twowings": "jpeg/twowings-2560x1600.jpg",
    "ladybird": "jpeg/ladybird-2560x1600.jpg",
    "yellowflower": "jpeg/yellowflower-2560x1600.jpg",
    "garden": "jpeg/garden-2560x1600.jpg",
    "png": "png/ubuntu-mate-cold-rgb-1920x1280.png",
    "arc": "png/arc-transparent-rgba-2140x1200.png",
    "gulp": "png/gulp-rgba-1920x1200.png",
}

# derived name: (source, input depth, encoder command after the tool name, tolerance kind).
# avifenc: --ignore-icc and fixed quantizers (q 20 ~ quality 68) so files do not change between runs;
# -s 6 is avifenc's own default speed.
AVIF = {
    "wood-420-bt601.avif": ("wood", 8, ["-s", "6", "-d", "8", "-y", "420", "--min", "20", "--max", "20"], "yuv"),
    "twowings-420-bt709.avif": ("twowings", 8, ["-s", "6", "-d", "8", "-y", "420", "--min", "20", "--max", "20",
                                                "--cicp", "1/13/1"], "yuv"),
    "yellowflower-420-limited.avif": ("yellowflower", 8, ["-s", "6", "-d", "8", "-y", "420", "-r", "limited",
                                                          "--min", "20", "--max", "20"], "yuv"),
    "ladybird-420-10bit.avif": ("ladybird", 16, ["-s", "6", "-d", "10", "-y", "420", "--min", "20", "--max", "20"], "yuv10"),
    "garden-444-10bit.avif": ("garden", 16, ["-s", "6", "-d", "10", "-y", "444", "--min", "20", "--max", "20"], "yuv10"),
    "gulp-420-alpha.avif": ("gulp", 8, ["-s", "6", "-d", "8", "-y", "420", "--min", "20", "--max", "20",
                                      "--minalpha", "10", "--maxalpha", "10"], "yuv"),
    "gulp-lossless-alpha.avif": ("gulp", 8, ["-s", "6", "-l"], "exact"),
}
# heif-enc: x265 at -q 75, 4:2:0, BT.601 matrix, full range (its defaults); -b 10 needs 16-bit input.
HEIC = {
    "wood-8bit.heic": ("wood", 8, ["-q", "75"], "yuv"),
    "ladybird-10bit.heic": ("ladybird", 16, ["-q", "75", "-b", "10"], "yuv10"),
    "gulp-alpha.heic": ("gulp", 8, ["-q", "75"], "yuv"),
}
TOOLS = {"avif": ("avifenc", "libavif-bin", AVIF), "heic": ("heif-enc", "libheif-examples", HEIC)}


def write_png16(path, rgb16):
    """A 16-bit RGB PNG (filter 0 on every row) from an (h, w, 3) uint16 array (Pillow cannot
    write 16-bit RGB)."""
    import numpy as np

    h, w, _ = rgb16.shape
    rows = np.zeros((h, 1 + w * 6), dtype=np.uint8)
    rows[:, 1:] = rgb16.astype(">u2").view(np.uint8).reshape(h, w * 6)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)))
        f.write(chunk(b"IEND", b""))


def make(folder, name, body):
    """Runs body(tmp_path) once and moves the result to folder/name; returns the final path."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        body(path + ".tmp")
        os.replace(path + ".tmp", path)
    return path


def have_sources(*keys):
    return all(os.path.exists(os.path.join(PHOTOS, SOURCES[k])) for k in keys)


def open_source(key):
    from PIL import Image

    return Image.open(os.path.join(PHOTOS, SOURCES[key]))


def make_edge_cases():
    import numpy as np
    from PIL import Image

    if not have_sources("wood", "png", "arc"):
        return
    photo = lambda: open_source("wood").convert("RGB")
    make(DERIVED, "wood-cmyk-adobe.jpg", lambda p: photo().convert("CMYK").save(p, "JPEG", quality=90))
    make(DERIVED, "wood-gray.jpg", lambda p: photo().convert("L").save(p, "JPEG", quality=90))

    def oriented(p):
        exif = Image.Exif()
        exif[0x0112] = 6
        photo().save(p, "JPEG", quality=90, exif=exif.tobytes())

    make(DERIVED, "wood-exif-orientation-6.jpg", oriented)
    make(DERIVED, "ubuntu-mate-cold-gray.png", lambda p: open_source("png").convert("L").save(p, "PNG"))
    make(DERIVED, "arc-palette-trns.png",
         lambda p: open_source("arc").convert("RGBA").quantize(256, method=Image.Quantize.FASTOCTREE).save(p, "PNG"))

    def sixteen(p):
        rgb = np.asarray(open_source("png").convert("RGB"), dtype=np.uint16)
        # High byte = the photo; low byte = the neighbouring sample, so it is neither 0 nor a copy
        # of the high byte and 16 -> 8 rounding choices show.
        low = np.roll(rgb, 1, axis=1)
        write_png16(p, (rgb << 8) | low)

    make(DERIVED, "ubuntu-mate-cold-rgb16.png", sixteen)


def encoder_input(key, depth):
    """A PNG of the source without any ICC profile (a fresh array, so no metadata rides along):
    8-bit RGB/RGBA as the photo is, or 16-bit RGB with each sample scaled exactly (v * 257)."""
    import numpy as np
    from PIL import Image

    folder = os.path.join(DERIVED, "sources")
    im = open_source(key)
    mode = "RGBA" if "A" in im.mode or "transparency" in im.info else "RGB"
    if depth == 16:
        return make(folder, f"{key}-rgb16.png",
                    lambda p: write_png16(p, np.asarray(im.convert("RGB"), dtype=np.uint16) * 257))
    return make(folder, f"{key}-{mode.lower()}.png",
                lambda p: Image.fromarray(np.asarray(im.convert(mode))).save(p, "PNG", compress_level=1))


def make_modern(fmt):
    """Encodes the AVIF ('avif') or HEIC ('heic') set; returns {path: kind} for the files that
    exist. Missing tool or photos: an empty dict and a hint on stderr."""
    tool, package, recipes = TOOLS[fmt]
    if not shutil.which(tool):
        log(f"{tool} not found: no {fmt.upper()} files (scripts/bootstrap peers installs {package})")
        return {}
    folder = os.path.join(DERIVED, fmt)
    made = {}
    for name, (key, depth, options, kind) in recipes.items():
        if not have_sources(key):
            continue
        source = encoder_input(key, depth)

        def encode(tmp):
            log(f"{tool} {' '.join(options)} {os.path.relpath(source, PHOTOS)} -> {fmt}/{name}")
            args = ([tool, "-j", "2", "--ignore-icc", *options, source, "-o", tmp] if fmt == "avif"
                    else [tool, *options, "-o", tmp, source])
            result = subprocess.run(args, capture_output=True, text=True)
            if result.returncode != 0 or not os.path.exists(tmp):
                raise RuntimeError(f"{tool} failed: {result.stderr.strip()[-300:]}")

        made[make(folder, name, encode)] = kind
    return made


def modern_kinds():
    """{file name: tolerance kind} of every derived AVIF/HEIC file."""
    return {name: recipe[3] for _, _, recipes in TOOLS.values() for name, recipe in recipes.items()}
