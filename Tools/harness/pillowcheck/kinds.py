"""Tolerance kinds: how close WebImage's RGBA8 must be to Pillow's, and why (max abs diff, mean abs
diff per channel value, 0-255).

  exact      PNG 8-bit (any colour type, palette + tRNS), WebP lossless, lossless AVIF (identity
             matrix, 4:4:4): max 0. Both sides run the same lossless algorithm (inflate + unfilter,
             VP8L, AV1 lossless with G/B/R planes); any difference is a bug.
  lossy      JPEG (YCbCr, greyscale), WebP lossy: max <= 2, mean <= 0.05. Same algorithms underneath
             (libjpeg-turbo's default ISLOW IDCT with fancy upsampling; libwebp with fancy
             upsampling) but different builds: Debian's libjpeg-turbo 2.1.5 / libwebp 1.2.4 here,
             the copies bundled in Pillow's wheel there. Allow +-1-2 for rounding between builds and
             SIMD paths; real bugs (channel order, no upsampling, premultiplied alpha, applied
             orientation, a wrong colour transform) differ by tens to hundreds.
  converted  CMYK/YCCK JPEG, 16-bit PNG: max <= 1, mean <= 0.5. Both sides reduce to RGBA8 with
             their own integer arithmetic (CMYK -> RGB rounding; libpng's 16 -> 8 bit vs Pillow's
             high-byte truncation), so one step of rounding is expected.
  yuv        8-bit AVIF and HEIC (4:2:0 / 4:4:4, BT.601 or BT.709 matrix, full or limited range,
             alpha): max <= 2, mean <= 0.1. AV1 (dav1d) and HEVC (libde265) decode
             bit-exactly on both sides; what differs is the YUV -> RGB step: libavif 0.11 vs the
             plugin's 1.4, libheif 1.15 vs pillow-heif's 1.23 (upsampling filter, fixed-point
             rounding). Measured: AVIF max 0; HEIC max 1, mean <= 0.01.
  yuv10      10-bit AVIF and HEIC reduced to 8 bits: max <= 4, mean <= 0.6. The 10 -> 8 reduction
             rounds differently: AVIF 4:4:4 differs by exactly +-1 on 25% of values (symmetric),
             4:2:0 by up to 3 where 10-bit chroma upsampling differs too (mean 0.28); WebImage's
             libheif 1.15 comes out one step brighter on a third of values where 1.23 does not
             (HEIC: -2..+2, signed mean +0.24, mean 0.42): a different 10 -> 8 rounding.
  For both:  the bugs a YUV decoder has are far outside (`--sensitivity` simulates them on Pillow's
             own pixels): R/B swapped max >= 82, mean >= 13; the other matrix (BT.601 <-> BT.709)
             max 6-26, mean 0.8-4.9 (the 0.8 on the low-saturation wood photo, 8-bit: caught by
             both limits); range flag ignored max 20, mean 3.7-11; alpha dropped max 255, mean 58;
             premultiplied alpha max 254, mean 97-109.
  colour     ICC-tagged files (unless --no-colour; Display P3, Adobe RGB; JPEG, PNG, WebP): max <= 4,
             mean <= 0.25. Pillow's ImageCms and WebImage both run Little CMS, different builds
             (the wheel's 2.19, Debian's 2.14), 8-bit transforms with their own fixed-point
             optimisation: measured against a float reference, Pillow's conversion is within 1
             (mean <= 0.03). On lossy files the decoders' +-2 passes through a curve whose slope
             reaches ~1.3, so 4. Ignoring the profile differs by max 30-114, mean 5.5-13 on these
             files (measured), converting to the wrong profile or applying it twice by as much.

RGB values under fully transparent pixels (alpha 0) are not compared (compare.pixel_diff).
"""
import os

from .derive import modern_kinds

TOLERANCE = {  # kind: (max, mean)
    "exact": (0, 0.0),
    "lossy": (2, 0.05),
    "converted": (1, 0.5),
    "yuv": (2, 0.1),
    "yuv10": (4, 0.6),
    "colour": (4, 0.25),
}


def kind_of(path, pil_image, colour=False):
    """The kind of a file not in a derived table: from its format and header."""
    if colour and pil_image.info.get("icc_profile"):
        return "colour"
    name = os.path.basename(path)
    if name in modern_kinds():
        return modern_kinds()[name]
    with open(path, "rb") as f:
        head = f.read(64)
    fmt = pil_image.format
    if fmt == "PNG":
        bit_depth = head[24] if head[12:16] == b"IHDR" else 8
        return "converted" if bit_depth == 16 else "exact"
    if fmt == "JPEG":
        return "converted" if pil_image.mode == "CMYK" else "lossy"
    if fmt == "WEBP":
        with open(path, "rb") as f:
            data = f.read(1 << 20)
        return "exact" if (head[12:16] == b"VP8L" or (head[12:16] == b"VP8X" and b"VP8L" in data)) else "lossy"
    if fmt in ("AVIF", "HEIF"):
        return "yuv"
    return "lossy"
