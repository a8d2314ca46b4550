"""--sensitivity: would the yuv/yuv10 tolerances catch the bugs a YUV decoder typically has? Each
bug is simulated on Pillow's own decode of the file (so WebImage is not involved) and measured with
the same statistics the comparison uses. A bug whose max and mean both stay within the tolerance
would slip through; the run prints it as SLIPS.

Bugs: R and B swapped; the other matrix (BT.709 for BT.601 and back); the range flag ignored
(full read as limited, limited read as full); alpha dropped; alpha premultiplied.
"""
import os

import numpy as np

from . import derive
from .compare import pixel_diff
from .kinds import TOLERANCE

KR_KB = {"601": (0.299, 0.114), "709": (0.2126, 0.0722)}


def signal_of(name):
    """(matrix '601'/'709'/None for identity, full range?) from the file's derive recipe."""
    for _, _, recipes in derive.TOOLS.values():
        if name in recipes:
            options = recipes[name][2]
            if "-l" in options:
                return None, True
            matrix = "709" if "--cicp" in options and options[options.index("--cicp") + 1].endswith("/1") else "601"
            limited = "-r" in options and options[options.index("-r") + 1] == "limited"
            return matrix, not limited
    return "601", True


def to_ycc(rgb, matrix):
    kr, kb = KR_KB[matrix]
    y = kr * rgb[..., 0] + (1 - kr - kb) * rgb[..., 1] + kb * rgb[..., 2]
    return np.stack([y, (rgb[..., 2] - y) / (2 * (1 - kb)) + 128, (rgb[..., 0] - y) / (2 * (1 - kr)) + 128], axis=-1)


def to_rgb(ycc, matrix):
    kr, kb = KR_KB[matrix]
    y, cb, cr = ycc[..., 0], ycc[..., 1] - 128, ycc[..., 2] - 128
    r = y + 2 * (1 - kr) * cr
    b = y + 2 * (1 - kb) * cb
    g = (y - kr * r - kb * b) / (1 - kr - kb)
    return np.stack([r, g, b], axis=-1)


def with_rgb(rgba, rgb):
    out = rgba.copy()
    out[..., :3] = np.clip(np.rint(rgb), 0, 255).astype(np.uint8)
    return out


def simulated_bugs(rgba, matrix, full_range):
    """{bug: the RGBA8 a decoder with that bug would produce}."""
    rgb = rgba[..., :3].astype(np.float64)
    bugs = {"R/B swapped": rgba[..., [2, 1, 0, 3]]}
    if matrix:
        other = "709" if matrix == "601" else "601"
        bugs[f"BT.{other} matrix"] = with_rgb(rgba, to_rgb(to_ycc(rgb, matrix), other))
        ycc = to_ycc(rgb, matrix)
        if full_range:  # read as limited: expanded
            wrong = np.stack([(ycc[..., 0] - 16) * 255 / 219, (ycc[..., 1] - 128) * 255 / 224 + 128,
                              (ycc[..., 2] - 128) * 255 / 224 + 128], axis=-1)
        else:  # limited read as full: the true values squeezed into 16-235/240
            wrong = np.stack([ycc[..., 0] * 219 / 255 + 16, (ycc[..., 1] - 128) * 224 / 255 + 128,
                              (ycc[..., 2] - 128) * 224 / 255 + 128], axis=-1)
        bugs["range ignored"] = with_rgb(rgba, to_rgb(wrong, matrix))
    if (rgba[..., 3] < 255).any():
        opaque = rgba.copy()
        opaque[..., 3] = 255
        bugs["alpha dropped"] = opaque
        bugs["premultiplied"] = with_rgb(rgba, rgb * rgba[..., 3:4] / 255.0)
    return bugs


def report(path, kind):
    """One line per simulated bug: its max/mean against Pillow's decode and CAUGHT or SLIPS."""
    from PIL import Image

    reference = np.asarray(Image.open(path).convert("RGBA"), dtype=np.uint8)
    matrix, full_range = signal_of(os.path.basename(path))
    max_ok, mean_ok = TOLERANCE[kind]
    lines = []
    for bug, pixels in simulated_bugs(reference, matrix, full_range).items():
        diff = pixel_diff(pixels, reference)
        worst, mean = int(diff.max()), float(diff.mean())
        verdict = "SLIPS" if worst <= max_ok and mean <= mean_ok else "caught"
        lines.append(f"{bug} {worst}/{mean:.2f} {verdict}")
    return "simulated (max/mean): " + "; ".join(lines)
