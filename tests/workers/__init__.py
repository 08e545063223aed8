"""Tests of the workers: tournaments on real Celery workers and a real Redis, faults, the organizer API, the CLI."""
