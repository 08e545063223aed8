"""Benchmarks that print their figures (`uno-arena bench ...`); targets live here, never in unit tests."""
