"""Colour rows (on unless --no-colour): ICC-tagged files, compared against Pillow + ImageCms converting the
embedded profile to sRGB. WebImage converts decoded pixels to sRGB with Little CMS; Pillow's wheel
bundles its own Little CMS, so the reference is an independent build of the same engine.

Display P3 and Adobe RGB profiles are written here byte by byte (ICC v4 matrix/TRC, the primaries
of the published specs adapted to D50 with Bradford as ICC requires), because Pillow can only
create sRGB/LAB/XYZ profiles and Debian ships no Display P3 profile; building them also keeps the
test files reproducible without any download.

The hook for new colour cases is COLOUR_CASES; the reference is `to_srgb`, which the comparison
applies to every file with an embedded profile unless --no-colour.
"""
import io
import os
import struct

import numpy as np

from .derive import have_sources, make, open_source
from .env import DERIVED

D50 = (0.9642, 1.0, 0.8249)
D65_XY = (0.3127, 0.3290)
SRGB_CURVE = (2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045)  # ICC parametric type 3: g, a, b, c, d
PROFILES = {  # name: (red, green, blue xy, white xy, curve: a gamma or type-3 parameters)
    "Display P3": ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060), D65_XY, SRGB_CURVE),
    "Adobe RGB (1998) compatible": ((0.640, 0.330), (0.210, 0.710), (0.150, 0.060), D65_XY, 563 / 256),
}
# derived name: (photo source key, profile, longest side, how it is saved)
COLOUR_CASES = {
    "yellowflower-displayp3.jpg": ("yellowflower", "Display P3", 1280, {"format": "JPEG", "quality": 92}),
    "twowings-adobergb.png": ("twowings", "Adobe RGB (1998) compatible", 1280, {"format": "PNG"}),
    "gulp-displayp3-alpha.png": ("gulp", "Display P3", 1280, {"format": "PNG"}),
    "ladybird-displayp3.webp": ("ladybird", "Display P3", 1280, {"format": "WEBP", "quality": 90}),
    "garden-adobergb-lossless.webp": ("garden", "Adobe RGB (1998) compatible", 1280, {"format": "WEBP", "lossless": True}),
}
FOLDER = os.path.join(DERIVED, "colour")


def xyz(xy):
    x, y = xy
    return np.array([x / y, 1.0, (1 - x - y) / y])


def rgb_to_xyz_d50(red, green, blue, white):
    """The 3x3 RGB -> XYZ matrix for these primaries, white scaled to Y = 1, adapted to D50."""
    primaries = np.column_stack([xyz(red), xyz(green), xyz(blue)])
    scale = np.linalg.solve(primaries, xyz(white))
    matrix = primaries * scale
    bradford = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]])
    cone = (bradford @ np.array(D50)) / (bradford @ xyz(white))
    return np.linalg.inv(bradford) @ np.diag(cone) @ bradford @ matrix


def s15(value):
    return struct.pack(">i", int(round(value * 65536)))


def tag_xyz(values):
    return b"XYZ \0\0\0\0" + b"".join(s15(v) for v in values)


def tag_curve(curve):
    if isinstance(curve, tuple):  # parametricCurveType, function 3
        return b"para\0\0\0\0" + struct.pack(">HH", 3, 0) + b"".join(s15(v) for v in curve)
    return b"curv\0\0\0\0" + struct.pack(">I", 1) + struct.pack(">H", int(round(curve * 256))) + b"\0\0"


def tag_text(text):
    """multiLocalizedUnicodeType with one en-US record."""
    body = text.encode("utf-16-be")
    return b"mluc\0\0\0\0" + struct.pack(">II", 1, 12) + b"enUS" + struct.pack(">II", len(body), 28) + body


def icc_profile(name):
    """ICC v4.3 display profile bytes (matrix/TRC) for PROFILES[name]."""
    red, green, blue, white, curve = PROFILES[name]
    matrix = rgb_to_xyz_d50(red, green, blue, white)
    trc = tag_curve(curve)
    tags = [(b"desc", tag_text(name)), (b"cprt", tag_text("No copyright, use freely")),
            (b"wtpt", tag_xyz(D50)),
            (b"rXYZ", tag_xyz(matrix[:, 0])), (b"gXYZ", tag_xyz(matrix[:, 1])), (b"bXYZ", tag_xyz(matrix[:, 2])),
            (b"rTRC", trc), (b"gTRC", trc), (b"bTRC", trc)]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for signature, body in tags:
        body += b"\0" * (-len(body) % 4)
        table += signature + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = (struct.pack(">I", size) + b"lcms" + bytes([4, 0x30, 0, 0]) + b"mntrRGB XYZ "
              + struct.pack(">6H", 2026, 1, 1, 0, 0, 0) + b"acsp" + b"\0" * 4 + b"\0" * 4 + b"\0" * 8
              + b"\0" * 8 + struct.pack(">I", 0) + b"".join(s15(v) for v in D50) + b"\0" * 4 + b"\0" * 16)
    header += b"\0" * (128 - len(header))
    return header + struct.pack(">I", len(tags)) + table + data


def cms(profile_bytes):
    from PIL import ImageCms

    return ImageCms.ImageCmsProfile(io.BytesIO(profile_bytes))


def to_srgb(im):
    """Pillow's reference for a file with an embedded profile: RGB(A) converted with ImageCms from
    that profile to Little CMS's built-in sRGB, perceptual intent (WebImage's; for matrix/TRC
    profiles Little CMS treats it as relative colorimetric), alpha carried over untouched. Returns
    an RGBA image, or None when the file has no profile."""
    from PIL import ImageCms

    icc = im.info.get("icc_profile")
    if not icc:
        return None
    rgba = im.convert("RGBA")
    rgb = ImageCms.profileToProfile(rgba.convert("RGB"), cms(icc), ImageCms.createProfile("sRGB"),
                                    renderingIntent=ImageCms.Intent.PERCEPTUAL, outputMode="RGB")
    rgb.putalpha(rgba.getchannel("A"))
    return rgb


def make_colour_files():
    """Writes COLOUR_CASES: the photo, fit in the longest side, converted from sRGB into the
    profile (so it looks the same once managed) and saved with that profile embedded. Returns
    {path: 'colour'}."""
    from PIL import Image, ImageCms

    made = {}
    for name, (key, profile, side, save) in COLOUR_CASES.items():
        if not have_sources(key):
            continue

        def write(tmp):
            im = open_source(key)
            im = im.convert("RGBA" if "A" in im.mode or "transparency" in im.info else "RGB")
            im.thumbnail((side, side), Image.LANCZOS)
            icc = icc_profile(profile)
            rgb = ImageCms.profileToProfile(im.convert("RGB"), ImageCms.createProfile("sRGB"), cms(icc),
                                            renderingIntent=ImageCms.Intent.PERCEPTUAL, outputMode="RGB")
            if im.mode == "RGBA":
                rgb.putalpha(im.getchannel("A"))
            options = dict(save)
            rgb.save(tmp, options.pop("format"), icc_profile=icc, **options)

        made[make(FOLDER, name, write)] = "colour"
    return made
