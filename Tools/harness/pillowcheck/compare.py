"""One file, both decoders, one verdict: size, hasAlpha and pixel differences against the
tolerance of the file's kind (kinds.py). Returns a row dict for report.py."""
import os

import numpy as np

from . import decode, kinds
from .env import PHOTOS


def pixel_diff(ours, theirs):
    """Absolute differences per channel value, RGB zeroed where both sides are fully transparent
    (invisible; codecs legitimately differ there). Alpha is always compared."""
    diff = np.abs(ours.astype(np.int16) - theirs.astype(np.int16))
    visible = (ours[..., 3] > 0) | (theirs[..., 3] > 0)
    diff[..., :3] *= visible[..., None]
    return diff


def compare(binary, path, tmpdir, colour=False, kind=None):
    from PIL import Image

    row = {"file": os.path.relpath(path, PHOTOS)}
    pil = Image.open(path)
    kind = kind or kinds.kind_of(path, pil, colour)
    row.update(kind=kind, size=f"{pil.width}x{pil.height}")
    try:
        info, ours = decode.webimage_rgba(binary, path, os.path.join(tmpdir, "out.rgba"))
    except decode.DecoderMissing as missing:
        row.update(status="n/a (decoder failed)", note=str(missing))
        return row
    except decode.DecodeFailed as failed:
        row.update(status="FAIL", note=str(failed))
        return row
    problems = []
    if (info["width"], info["height"]) != pil.size:
        problems.append(f"size {info['width']}x{info['height']}, Pillow {pil.width}x{pil.height}")
    if info["hasAlpha"] != decode.pillow_has_alpha(pil):
        problems.append(f"hasAlpha {info['hasAlpha']}, Pillow {decode.pillow_has_alpha(pil)}")
    theirs = decode.pillow_rgba(pil, colour)
    if ours.size != theirs.size:
        problems.append(f"{ours.size} bytes of RGBA, expected {theirs.size}")
        row.update(status="FAIL", note="; ".join(problems))
        return row
    ours = ours.reshape(theirs.shape)
    diff = pixel_diff(ours, theirs)
    row["max"] = int(diff.max())
    row["mean"] = float(diff.mean())
    max_ok, mean_ok = kinds.TOLERANCE[kind]
    if row["max"] > max_ok or row["mean"] > mean_ok:
        y, x = (int(v) for v in np.unravel_index(int(np.argmax(diff.max(axis=2))), diff.shape[:2]))
        problems.append(f"worst at ({x},{y}): ours {tuple(int(v) for v in ours[y, x])}, "
                        f"Pillow {tuple(int(v) for v in theirs[y, x])}")
    row["status"] = "FAIL" if problems else "PASS"
    if problems:
        row["note"] = "; ".join(problems)
    return row
