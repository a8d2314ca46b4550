"""Prints the comparison as an aligned text table, one line per file plus its note, and the totals."""
import sys

from .kinds import TOLERANCE

WIDTH = 52


class Report:
    def __init__(self):
        self.counts = {"PASS": 0, "FAIL": 0, "n/a": 0}

    def header(self):
        print("tolerances (max abs diff, mean abs diff): "
              + ", ".join(f"{k} <= ({m}, {a})" for k, (m, a) in TOLERANCE.items()))
        line = f"{'file':{WIDTH}} {'kind':9} {'size':>10} {'max':>4} {'mean':>8}  result"
        print(line)
        print("-" * len(line))

    def add(self, row):
        status = row["status"]
        self.counts["n/a" if status.startswith("n/a") else status] += 1
        max_text = str(row["max"]) if "max" in row else "-"
        mean_text = f"{row['mean']:.4f}" if "mean" in row else "-"
        print(f"{row['file']:{WIDTH}} {row['kind']:9} {row['size']:>10} {max_text:>4} {mean_text:>8}  {status}")
        if "note" in row:
            print(f"{'':{WIDTH}}   {row['note']}")
        sys.stdout.flush()

    def finish(self):
        c = self.counts
        print(f"{c['PASS']} passed, {c['FAIL']} failed, {c['n/a']} skipped")
        return 1 if c["FAIL"] else 0
