"""The tournament service: the application layer below both the organizer API and the Celery workers.

- :mod:`arena.service.lifecycle`: creating, starting, running (batches that record each match once),
  checking, finishing, cancelling and sweeping tournaments; participants, seeds, standings and their cache;
- :mod:`arena.service.matches`: one scheduled match as the runner plays it (seats, config) and its stored
  result;
- :mod:`arena.service.match_player`: the worker's match player (an event loop per process);
- :mod:`arena.service.incidents`: a played match's incidents for its bots' incident logs;
- :mod:`arena.service.replays`: the stored replay format and the step-by-step replay walk;
- :mod:`arena.service.schedules`: firing cron schedules once per due time, and what each run is.

Everything is pure or store-backed: Redis only through :mod:`arena.store`, Celery only through the
``Enqueuer`` protocol (:class:`workers.enqueue.CeleryEnqueuer` in production).
"""
