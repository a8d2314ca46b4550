"""Tools/harness/compare-pillow's command line: picks the files and the binary, runs compare.py on each,
prints report.py's table. Exit status: 0 when every compared file passes, 1 on any FAIL, 2 on a
usage or setup error."""
import argparse
import os
import sys
import tempfile

from . import corpus, decode, env
from .compare import compare
from .report import Report


def main():
    parser = argparse.ArgumentParser(
        prog="Tools/harness/compare-pillow",
        description="Compare webimage's decoded RGBA with Pillow's (plus pillow-avif-plugin and "
                    "pillow-heif) on the photos in .photos/ and files derived from them.",
        epilog="usage example: scripts/bootstrap peers && Tools/harness/fetch-photos && Tools/harness/compare-pillow")
    parser.add_argument("files", nargs="*", help="images to compare (default: everything in .photos/ and derived)")
    parser.add_argument("--no-build", action="store_true", help=f"use the existing {env.SCRATCH}/release/webimage")
    parser.add_argument("--webimage", metavar="PATH",
                        help="compare this webimage binary (default $WEBIMAGE_BIN, else the repo's release build)")
    parser.add_argument("--no-colour", "--no-color", dest="colour", action="store_false",
                        help="skip colour management: by default ICC-tagged JPEG/PNG/WebP (Display P3, Adobe RGB) are "
                             "derived and every embedded profile is converted to sRGB on Pillow's side (ImageCms), "
                             "as WebImage does since issue 14")
    parser.add_argument("--sensitivity", action="store_true",
                        help="for AVIF/HEIC files, also show whether typical YUV decoder bugs (simulated on "
                             "Pillow's pixels) would exceed the tolerance (pillowcheck/sensitivity.py)")
    args = parser.parse_args()
    decode.register_plugins()

    if args.files:
        files = dict.fromkeys(os.path.abspath(f) for f in args.files)
    else:
        if not os.path.isdir(os.path.join(env.PHOTOS, "jpeg")):
            env.die("no photos: run Tools/harness/fetch-photos first")
        files = corpus.default_corpus(args.colour)
    binary = env.webimage_binary(args.webimage, args.no_build)

    versions = decode.pillow_versions()
    print(f"webimage: {binary}\n{versions['pillow']}; {versions['avif']}\n{versions['heif']}"
          + (f"\n{versions['lcms']}" if args.colour else ""))
    report = Report()
    report.header()
    with tempfile.TemporaryDirectory() as tmpdir:
        for path, kind in files.items():
            try:
                row = compare(binary, path, tmpdir, colour=args.colour, kind=kind)
            except Exception as error:  # Pillow cannot open it, etc.: report, keep going
                row = {"file": os.path.relpath(path, env.PHOTOS), "kind": "?", "size": "?",
                       "status": "FAIL", "note": f"{type(error).__name__}: {error}"}
            if args.sensitivity and row["kind"] in ("yuv", "yuv10"):
                from .sensitivity import report as simulate

                row["note"] = "; ".join(filter(None, [row.get("note"), simulate(path, row["kind"])]))
            report.add(row)
    sys.exit(report.finish())
