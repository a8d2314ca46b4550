"""Tools/harness/compare-servers: webimage serve against thumbor, nginx image_filter and a pyvips
reference server, side by side in one run (see compare-servers --help)."""
