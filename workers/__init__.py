"""Celery workers of uno-arena: the app and its settings (:mod:`workers.celery_app`), the enqueuer, the thin tasks
binding :mod:`arena.service` to the app's store, settings and metrics, the scheduler loop, the worker process
hooks, and a consumer that rides out Redis write refusals.
"""
