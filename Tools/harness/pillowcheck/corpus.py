"""Which files a run compares: the photos from Tools/harness/fetch-photos, the derived edge cases, the
AVIF/HEIC set (derive.py) and, unless --no-colour, the ICC-tagged set (colour.py). Returns
{path: kind or None}; None lets kinds.kind_of decide from the file."""
import os

from . import derive
from .env import DERIVED, PHOTOS


def files_in(folder):
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if not f.endswith(".tmp") and os.path.isfile(os.path.join(folder, f)))


def default_corpus(colour):
    derive.make_edge_cases()
    corpus = {}
    for sub in ("jpeg", "png", "webp"):
        corpus.update(dict.fromkeys(files_in(os.path.join(PHOTOS, sub))))
    corpus.update(dict.fromkeys(files_in(DERIVED)))
    for fmt in derive.TOOLS:
        corpus.update(derive.make_modern(fmt))
    if colour:
        from .colour import make_colour_files

        corpus.update(make_colour_files())
    return corpus
