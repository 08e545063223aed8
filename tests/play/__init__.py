"""Tests of local play (`uno-arena play`) and of replays with hands."""
