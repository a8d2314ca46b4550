"""The two decoders under comparison, each producing straight RGBA8 (h, w, 4) arrays.

WebImage: `webimage decode FILE --raw-rgba OUT` (the CLI's local-file coders: the default coders plus
HEIFCoder), its JSON line giving the declared size and hasAlpha.
Pillow: `Image.open(f).convert('RGBA')`, with PyPI's pillow-avif-plugin (libavif 1.x + dav1d) and
pillow-heif (libheif 1.2x + libde265) registered for AVIF and HEIF. Pillow 11.3+ also reads AVIF
natively; importing the plugin replaces that opener, and `pillow_versions` says which one ran.
"""
import json
import subprocess


class DecoderMissing(Exception):
    """This webimage build has no decoder for the file (e.g. a coder not yet registered)."""


class DecodeFailed(Exception):
    pass


def register_plugins():
    import pillow_avif  # noqa: F401  (registers AVIF on import)
    import pillow_heif

    pillow_heif.register_heif_opener()


def pillow_versions():
    from PIL import Image, features
    import pillow_avif
    import pillow_heif
    from pillow_avif import _avif

    avif_opener = Image.OPEN.get("AVIF", (None,))[0]
    heif = pillow_heif.libheif_info()
    return {
        "pillow": f"Pillow {Image.__version__}",
        "avif": f"pillow-avif-plugin {pillow_avif.__version__} (libavif {_avif.libavif_version}; "
                f"{_avif.codec_versions()}; opener {getattr(avif_opener, '__module__', '?')})",
        "heif": f"pillow-heif {pillow_heif.__version__} (libheif {heif['libheif']}; "
                f"{', '.join(heif['decoders'].values())})",
        "lcms": f"Little CMS {features.version('littlecms2')} (Pillow's wheel)",
    }


def webimage_rgba(binary, path, out):
    """(info dict from the JSON line, RGBA bytes as a flat uint8 array)."""
    import numpy as np

    result = subprocess.run([binary, "decode", path, "--raw-rgba", out], capture_output=True, text=True)
    if result.returncode != 0:
        message = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
        if "no decoder" in message or "unsupported" in message.lower():
            raise DecoderMissing(message)
        raise DecodeFailed(f"decode failed: {message}")
    try:
        info = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise DecodeFailed(f"bad JSON line: {result.stdout!r}")
    return info, np.fromfile(out, dtype=np.uint8)


def pillow_has_alpha(im):
    return "A" in im.mode or "transparency" in im.info


def pillow_rgba(im, colour):
    """Pillow's RGBA8 for an opened image; with colour=True an embedded ICC profile is applied
    (converted to sRGB) as WebImage does once it manages colour."""
    import numpy as np

    if colour:
        from .colour import to_srgb

        converted = to_srgb(im)
        if converted is not None:
            return np.asarray(converted, dtype=np.uint8)
    return np.asarray(im.convert("RGBA"), dtype=np.uint8)
