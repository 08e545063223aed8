"""Celery workers of uno-arena: the app (:mod:`workers.celery_app`), its tasks, cron schedules."""
