"""The origin's images, made once into a folder: photos with faces placed off-centre (scikit-image's
astronaut and cameraman padded into wide or tall canvases), a plain landscape photo (.photos/), a
PNG with alpha, a watermark overlay with alpha and a nine-patch frame."""
import os

import numpy as np
from PIL import Image, ImageDraw
from skimage import data

# name -> (the source's box in its canvas, canvas size): the face sits off-centre in each canvas.
PLACED = {
    "astronaut-left.jpg": ("astronaut", (0, 0), (1600, 512)),      # face near the left edge
    "astronaut-mid-left.jpg": ("astronaut", (300, 0), (1600, 512)),  # face a third of the way in
    "astronaut-right.jpg": ("astronaut", (1088, 0), (1600, 512)),  # face right of centre
    "astronaut-low.jpg": ("astronaut", (0, 900), (512, 1412)),     # tall: face near the bottom
    "camera-right.jpg": ("camera", (1000, 0), (1512, 512)),        # grayscale cameraman, right
}


def _canvas(size):
    """A soft grey gradient (no corners or faces of its own) to pad the photos with."""
    w, h = size
    x = np.linspace(0, 1, w)[None, :, None]
    y = np.linspace(0, 1, h)[:, None, None]
    ramp = 110 + 30 * x + 20 * y
    return np.broadcast_to(ramp, (h, w, 3)).astype(np.uint8).copy()


def _rgb(name):
    image = getattr(data, name)()
    if image.ndim == 2:
        image = np.stack([image] * 3, axis=-1)
    return image[..., :3]


def _landscape(photos):
    """A plain landscape photo without faces, 1600 px wide: from .photos/ when fetched, else coffee."""
    for name in ("garden-2560x1600.jpg", "yellowflower-2560x1600.jpg", "wood-2560x1920.jpg"):
        path = os.path.join(photos, "jpeg", name)
        if os.path.exists(path):
            image = Image.open(path).convert("RGB")
            return image.resize((1600, round(1600 * image.height / image.width)), Image.LANCZOS)
    return Image.fromarray(_rgb("coffee")).resize((1200, 800), Image.LANCZOS)


def _overlay():
    """A 120x60 watermark: a translucent white rounded box with a dark mark, alpha at the edges."""
    image = Image.new("RGBA", (120, 60), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, 119, 59), radius=12, fill=(255, 255, 255, 200))
    draw.ellipse((10, 10, 50, 50), fill=(200, 20, 20, 255))
    draw.rectangle((60, 20, 110, 40), fill=(20, 20, 160, 230))
    return image


def _nine_patch():
    """A 40x40 nine-patch (Android's format, as thumbor's frame reads it): a 1-px guide border whose
    black runs on the top/left mark the stretchable middle and on the bottom/right the content."""
    image = Image.new("RGBA", (40, 40), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rectangle((1, 1, 38, 38), fill=(90, 60, 30, 255))     # the frame's wood
    draw.rectangle((9, 9, 30, 30), fill=(240, 230, 210, 255))  # the mat inside
    black = (0, 0, 0, 255)
    draw.line((12, 0, 27, 0), fill=black)   # stretch horizontally
    draw.line((0, 12, 0, 27), fill=black)   # stretch vertically
    draw.line((10, 39, 29, 39), fill=black)  # content box horizontally
    draw.line((39, 10, 39, 29), fill=black)  # content box vertically
    return image


def make(folder, photos):
    """Writes every image into `folder` (skipped when already there); returns {name: (w, h)}."""
    os.makedirs(folder, exist_ok=True)
    sizes = {}

    def save(name, image, **options):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            image.save(path, **options)
        sizes[name] = Image.open(path).size

    for name, (source, (left, top), size) in PLACED.items():
        canvas = _canvas(size)
        photo = _rgb(source)
        canvas[top:top + photo.shape[0], left:left + photo.shape[1]] = photo
        save(name, Image.fromarray(canvas), quality=92)
    save("astronaut.jpg", Image.fromarray(_rgb("astronaut")), quality=92)
    landscape = _landscape(photos)
    save("landscape.jpg", landscape, quality=90)
    save("landscape.png", landscape.resize((800, round(800 * landscape.height / landscape.width))))
    save("logo.png", Image.fromarray(data.logo()))  # RGBA with transparent surroundings
    save("overlay.png", _overlay())
    save("frame.png", _nine_patch())
    return sizes
