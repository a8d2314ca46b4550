"""The markdown table of a run."""

COLUMNS = ["URL", "thumbor", "webimage", "size ok", "MAD", "bytes ratio", "verdict", "notes"]


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(rows):
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [f"`{r.label}`", r.thumbor, r.webimage, r.size_ok, r.mad, r.ratio,
                 "**FAIL**" if r.verdict == "FAIL" else r.verdict, "; ".join(r.notes)]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def summary(rows):
    failed = sum(1 for r in rows if r.verdict == "FAIL")
    deviates = sum(1 for r in rows if r.verdict == "deviates")
    passed = len(rows) - failed - deviates
    return (f"{passed} of {len(rows)} rows pass, {failed} FAIL"
            + (f", {deviates} deviate from a thumbor 7.8 bug (said in the row)" if deviates else ""))
