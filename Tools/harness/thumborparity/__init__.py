"""Tools/harness/compare-thumbor's parts: fixtures (the origin's images), servers (origin, thumbor 7.8,
webimage serve), cases (the URLs), measure (one URL asked of both, compared) and report (the table)."""
