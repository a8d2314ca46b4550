"""The source images the attacks use, made with Pillow in memory: name -> (content type, bytes)."""
import io

from PIL import Image, ImageDraw


def _encoded(image, fmt, **options):
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def make():
    photo = Image.new("RGB", (1000, 1000), (40, 90, 160))
    draw = ImageDraw.Draw(photo)
    for i in range(0, 1000, 50):
        draw.ellipse((i, i // 2, i + 300, i // 2 + 200), fill=(i % 256, 200 - i % 200, 90))
    # Trim's reference is the top-left pixel: a white square trims down to its one black row.
    onerow = Image.new("RGB", (1000, 1000), "white")
    ImageDraw.Draw(onerow).line((0, 500, 999, 500), fill="black")
    # 400 frames of 1×1, alternating so no encoder merges them (~9 KB).
    frames = [Image.new("P", (1, 1), i % 2) for i in range(400)]
    for frame in frames:
        frame.putpalette([0, 0, 0, 255, 255, 255])
    gif = io.BytesIO()
    frames[0].save(gif, "GIF", save_all=True, append_images=frames[1:], duration=20, loop=0, optimize=False, disposal=1)
    return {
        "photo.png": ("image/png", _encoded(photo, "PNG")),
        "photo.jpg": ("image/jpeg", _encoded(photo, "JPEG", quality=85)),
        "onerow.png": ("image/png", _encoded(onerow, "PNG")),
        "frames.gif": ("image/gif", gif.getvalue()),
        "tiny.png": ("image/png", _encoded(Image.new("RGB", (8, 8), "green"), "PNG")),
    }


def secret():
    """What the loopback origin holds: a valid image, so a server that reaches it answers 200."""
    return {"secret.png": ("image/png", _encoded(Image.new("RGB", (64, 64), "red"), "PNG"))}
