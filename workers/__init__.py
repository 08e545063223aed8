"""Celery workers of uno-arena: Celery's own layout around the tournament service (:mod:`arena.service`).

- :mod:`workers.celery_app`: the app and its deliberate settings; ``get_store`` per process;
- :mod:`workers.enqueue`: sending follow-up work as Celery messages by task name;
- :mod:`workers.tasks`: the thin tasks (start, batch, completeness check, sweep, schedules, canary) binding
  :mod:`arena.service.lifecycle` and :mod:`arena.service.schedules` to the app's store, settings and metrics;
- :mod:`workers.scheduler`: the loop of ``uno-arena scheduler`` (due schedules, the sweep, the canary);
- :mod:`workers.signals`: worker process hooks (after fork, metrics of dead children, queue depth).
"""
