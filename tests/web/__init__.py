"""Tests of the web front (arena/web): pure views, the app over HTTP, and a real browser against a real arena."""
