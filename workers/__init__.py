"""Celery workers of uno-arena: tournaments as batches of matches on Celery + Redis.

- :mod:`workers.celery_app`: the app and its deliberate settings; ``get_store`` per process;
- :mod:`workers.tasks`: the tasks (start, batch, completeness check, sweep, schedules, canary);
- :mod:`workers.tournaments`: the run logic behind them (idempotent start, batches that record
  each match once, the completeness check that re-sends lost work, standings and ratings);
- :mod:`workers.matches` / :mod:`workers.play`: one match in a worker (built-in bots in process,
  remote bots through the relay) and what is stored of it;
- :mod:`workers.runstate`: the run bookkeeping keys (batches, heartbeats, attempts, feed);
- :mod:`workers.scheduler`, :mod:`workers.schedules`, :mod:`workers.cron`: scheduled tournaments
  that fire once per due time however many schedulers run;
- :mod:`workers.signals`: worker process hooks (after fork, metrics of dead children, queue depth);
- :mod:`workers.bench`: ``uno-arena bench tournament``.
"""
