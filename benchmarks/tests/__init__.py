"""Tests of the benchmarks (benchmarks/: engine, gateway, tournament, load, swarm): each runs small and
prints its figures; no speed is asserted (benchmarks report speed, tests do not)."""
