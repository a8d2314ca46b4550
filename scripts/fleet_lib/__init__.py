"""scripts/fleet: a fleet of `webimage serve` behind nginx with a shared Redis, on loopback."""
