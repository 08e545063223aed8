"""Shared test helpers (real components started on free ports, cleaned up afterwards)."""
