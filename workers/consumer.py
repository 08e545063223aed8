"""The worker's broker consumer: a Redis that refuses writes or drops the connection is waited out, never fatal.

A ``ResponseError`` (Redis refusing a write: ``MISCONF`` when the append-only file's disk is full, ``READONLY``,
``OOM``, ``NOREPLICAS``) is a kombu *channel* error: raised from a late ack or the queue's ``BRPOP`` it ended the
worker. The app retries the consumer on channel errors too, and :class:`ResilientConsumer` logs, counts
(``uno_arena_store_errors_total{where="broker"}``) and backs off exponentially before each restart. A message whose
acknowledgement was refused comes back; running it again only skips its recorded matches.
"""

from __future__ import annotations

import logging
import time

from celery.worker.consumer import Consumer

from arena.store import failure_kind

from .celery_app import quiet_cancel_on_connection_loss_warning

log = logging.getLogger(__name__)

BACKOFF_FIRST = 0.5
BACKOFF_MAX = 10.0
BACKOFF_RESET = 60.0


class ResilientConsumer(Consumer):
    """Celery's consumer with a logged, counted back-off before each restart after a broker error."""

    _failures = 0
    _last_failure = 0.0

    def _back_off(self, exc: BaseException, connected: bool) -> None:
        now = time.monotonic()
        if now - self._last_failure > BACKOFF_RESET:
            self._failures = 0
        self._failures += 1
        self._last_failure = now
        delay = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (self._failures - 1))
        kind = failure_kind(exc)
        log.warning(
            "broker %s (%s: %s); consumer restarts in %.1f s (failure %d in a row)",
            "refused a command" if kind not in ("connection", "other") else "failed" if connected else "unreachable",
            kind, exc, delay, self._failures,
        )
        try:
            from arena.metrics import get_metrics

            get_metrics().record_store_error(kind, "broker")
        except Exception:  # a metric never stops the worker
            log.debug("store error not counted", exc_info=True)
        time.sleep(delay)

    def on_connection_error_after_connected(self, exc: BaseException) -> None:
        self._back_off(exc, True)
        # Celery's reminder that cancelling running tasks will become its default: this app chose not to (see
        # workers.celery_app); its worker's logging set-up may have put an "always" filter first since.
        quiet_cancel_on_connection_loss_warning()
        super().on_connection_error_after_connected(exc)

    def on_connection_error_before_connected(self, exc: BaseException) -> None:
        self._back_off(exc, False)
        super().on_connection_error_before_connected(exc)
