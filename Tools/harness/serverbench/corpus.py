"""The sources every server resizes: N distinct JPEG photos made once from the real photos in
.photos/jpeg (Tools/harness/fetch-photos) — 1600x1200 crops at varying offsets and zooms, baseline,
quality 85 (about 250-450 KB, 1.9 MP: a phone photo already shrunk once by a CMS). Kept in
.build/serverbench/sources between runs; a stamp file says what was made."""
import glob
import os

from PIL import Image

WIDTH, HEIGHT = 1600, 1200


def ensure(root, photos_dir, count):
    folder = os.path.join(root, "src")
    stamp = os.path.join(root, "STAMP")
    want = f"{count} {WIDTH}x{HEIGHT} q85 v1"
    if os.path.exists(stamp) and open(stamp).read() == want:
        return folder
    photos = sorted(glob.glob(os.path.join(photos_dir, "jpeg", "*.jpg")))
    if not photos:
        raise SystemExit("no photos: run Tools/harness/fetch-photos first")
    os.makedirs(folder, exist_ok=True)
    opened = [Image.open(p).convert("RGB") for p in photos]
    for i in range(count):
        photo = opened[i % len(opened)]
        # Zoom 1.0-1.6x out of the photo, offset along a fixed walk: every source differs.
        zoom = 1.0 + (i // len(opened)) % 7 * 0.1
        w, h = min(photo.width, int(WIDTH * zoom)), min(photo.height, int(HEIGHT * zoom))
        x = (i * 97) % max(1, photo.width - w)
        y = (i * 61) % max(1, photo.height - h)
        crop = photo.crop((x, y, x + w, y + h)).resize((WIDTH, HEIGHT), Image.BICUBIC)
        crop.save(os.path.join(folder, f"{i:04d}.jpg"), quality=85)
    with open(stamp, "w") as f:
        f.write(want)
    return folder


def path(i):
    return f"/src/{i:04d}.jpg"
