"""Tools/harness/compare-pillow as a package: WebImage's decoders checked pixel by pixel against Pillow
and its AVIF/HEIF plugins. Modules: env (paths, venv, binary), derive and colour (test files made
from the photos), corpus (which files), decode (both sides to RGBA8), kinds (tolerances and why),
compare (one file's verdict), report (the table), cli (the command line).
Tools/harness/peerbench_formats.py reuses env, derive and decode for its timing rows."""
