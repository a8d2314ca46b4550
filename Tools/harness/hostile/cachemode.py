"""Cache permissions (11): every directory under the server's cache 0700, every file 0600, so no
other user of the machine reads the images it fetched or made."""
import os
import stat

from harness import progress


def modes(report, root):
    progress(f"11: modes under {root}")
    offenders, files, directories = [], 0, 0
    for path, dirs, names in os.walk(root):
        entries = [(path, 0o700)] + [(os.path.join(path, name), 0o600) for name in names]
        directories += 1
        files += len(names)
        for entry, wanted in entries:
            mode = stat.S_IMODE(os.lstat(entry).st_mode)
            if mode != wanted:
                offenders.append(f"{os.path.relpath(entry, root)} {mode:04o} (want {wanted:04o})")
    if files == 0:
        report.verdict("11 cache modes", False, f"no files under {root}: nothing was cached to check")
        return
    shown = "; ".join(offenders[:6]) + (f"; … {len(offenders) - 6} more" if len(offenders) > 6 else "")
    report.verdict("11 cache modes", not offenders,
                   f"{directories} directories, {files} files" + (f", {len(offenders)} offenders: {shown}" if offenders else ", all 0700/0600"))
