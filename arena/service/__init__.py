"""The tournament service: the application layer below both the organizer API and the Celery workers
(:mod:`arena.service.lifecycle` names the tournament machinery). Redis only through :mod:`arena.store`, Celery only
through the ``Enqueuer`` protocol (:mod:`arena.service.enqueuer`).
"""
