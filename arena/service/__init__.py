"""The tournament service: the application layer below both the organizer API and the Celery workers.

- :mod:`arena.service.lifecycle`: the public names of the tournament machinery, over one module per job:
  :mod:`~arena.service.runtime` (settings, enqueuer, metrics, store retries), :mod:`~arena.service.tournaments`
  (create, cancel, seeds), :mod:`~arena.service.batches` (batches, start), :mod:`~arena.service.batch_runner`
  (one batch task), :mod:`~arena.service.recovery` (completeness check, lost batches, sweep) and
  :mod:`~arena.service.standings_cache` (standings, their cache, ratings, finishing);
- :mod:`arena.service.seating`: a participant as a seat (built-in or registered, naming, bot seeds);
- :mod:`arena.service.matches`: one scheduled match as the runner plays it (seats, config) and its stored
  result;
- :mod:`arena.service.match_player`: the worker's match player (an event loop per process);
- :mod:`arena.service.incidents`: a played match's incidents for its bots' incident logs;
- :mod:`arena.service.replays`: the stored replay of a match and the one replay walk;
- :mod:`arena.service.verification`: verifying an ended tournament (commitment, schedule, replays);
- :mod:`arena.service.schedules`: firing cron schedules once per due time, and what each run is.

Everything is pure or store-backed: Redis only through :mod:`arena.store`, Celery only through the
``Enqueuer`` protocol (:mod:`arena.service.enqueuer`; :class:`workers.enqueue.CeleryEnqueuer` in production).
"""
