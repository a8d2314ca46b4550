"""imgproxy's benchmark corpus, rebuilt from the photos we have: their 100 DIV2K validation photos
(2040 px on the long side) are not on this machine, so the sources are every distinct opaque picture
in .photos/ (Tools/harness/fetch-photos: Debian's wallpapers; the translucent overlays are left out, as
DIV2K's photos have no alpha), resized to 2040 px on the long side with Pillow's LANCZOS (a square
one cut to 3:2 first), plus two 2040x1360 windows cut at 100 % out of each picture larger than that,
so there are enough different sources. Each is written as PNG (Pillow, zlib level 6, like DIV2K's own PNGs)
and converted as imgproxy's Makefile does: `vips copy` to JPEG (Q75) and WebP (Q75), and to AVIF
with `[Q=65,effort=0]`. Kept in .build/serverbench/shape between runs; a stamp says what was made."""
import glob
import os
import subprocess

from PIL import Image, ImageChops, ImageStat

LONG_SIDE = 2040
WINDOW = (2040, 1360)
FORMATS = ("jpeg", "png", "webp", "avif")
EXTENSION = {"jpeg": "jpg", "png": "png", "webp": "webp", "avif": "avif"}
VIPS_OPTIONS = {"jpeg": "", "webp": "", "avif": "[Q=65,effort=0]"}
STAMP = "shape corpus v2: 2040 px, windows 2040x1360, vips copy (JPEG/WebP Q75, AVIF Q65 effort 0)"


def opaque(image):
    """RGB, or None for a picture with any transparency."""
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        if image.convert("RGBA").getchannel("A").getextrema()[0] < 255:
            return None
    return image.convert("RGB")


def distinct_pictures(photos_dir):
    """Each picture once: a WebP made from a JPEG, or one artwork at two sizes, is the same picture
    (same aspect, near-identical 16x16 thumbnails)."""
    kept = []
    for path in sorted(glob.glob(os.path.join(photos_dir, "*", "*"))):
        if path.endswith(".tsv"):
            continue
        image = opaque(Image.open(path))
        if image is None:
            continue
        print_ = image.convert("L").resize((16, 16), Image.BOX)
        aspect = image.width / image.height
        if any(abs(aspect - a) < 0.01 and ImageStat.Stat(ImageChops.difference(print_, p)).mean[0] < 8 for a, p, _ in kept):
            continue
        kept.append((aspect, print_, image))
    return [image for _, _, image in kept]


def sources(picture):
    """The whole picture at 2040 px on its long side, and two windows at 100 % when it is larger."""
    w, h = picture.size
    whole = picture
    if 0.8 < w / h < 1.25:
        top = (h - w * 2 // 3) // 2
        whole = picture.crop((0, top, w, top + w * 2 // 3))
    scale = LONG_SIDE / max(whole.size)
    whole = whole.resize((round(whole.width * scale), round(whole.height * scale)), Image.LANCZOS)
    made = [whole]
    if max(w, h) >= 2560 and min(w, h) >= WINDOW[1]:
        first = WINDOW if w >= h else WINDOW[::-1]
        # A square picture gives a landscape and a portrait window; others two landscape ones, corner to corner.
        second = WINDOW[::-1] if w == h else first
        made.append(picture.crop((0, 0, *first)))
        made.append(picture.crop((w - second[0], h - second[1], w, h)))
    return made


def ensure(root, photos_dir):
    """Makes root/src/FORMAT/NNN.EXT for every format; returns the number of sources."""
    stamp = os.path.join(root, "STAMP")
    if os.path.exists(stamp):
        text = open(stamp).read().split("\n")
        if text[0] == STAMP:
            return int(text[1])
    pictures = distinct_pictures(photos_dir)
    if not pictures:
        raise SystemExit("no photos: run Tools/harness/fetch-photos first")
    for fmt in FORMATS:
        os.makedirs(os.path.join(root, "src", fmt), exist_ok=True)
    count = 0
    for picture in pictures:
        for image in sources(picture):
            png = path(root, "png", count)
            image.save(png, compress_level=6)
            for fmt, options in VIPS_OPTIONS.items():
                subprocess.run(["vips", "copy", png, path(root, fmt, count) + options], check=True)
            count += 1
    with open(stamp, "w") as f:
        f.write(f"{STAMP}\n{count}\n{len(pictures)} distinct pictures\n")
    return count


def pictures_in(root):
    return int(open(os.path.join(root, "STAMP")).read().split("\n")[2].split()[0])


def path(root, fmt, index):
    return os.path.join(root, "src", fmt, f"{index:03d}.{EXTENSION[fmt]}")


def url_path(fmt, index, copy):
    """A name of its own for every request (the origin maps NNN-COPY.EXT to NNN.EXT): no cache answers."""
    return f"/src/{fmt}/{index:03d}-{copy:06d}.{EXTENSION[fmt]}"
