"""Benchmarks that print their figures (`uno-arena bench ...`); targets live here, never in unit tests.

- :mod:`arena.bench.engine`: ``bench engine``, the engine against RLCard's UNO env;
- :mod:`arena.bench.gateway`: ``bench gateway``, remote bots over loopback gRPC next to a bare echo stream;
- :mod:`arena.bench.tournament`: ``bench tournament``, a tournament in process and through Celery workers;
- :mod:`arena.bench.abuse`: ``bench abuse``, a well-behaved bot beside each attack on the gateway;
- :mod:`arena.bench.hosted_abuse`: ``bench abuse --hosted``, a hosted bot beside each hostile hosted bot
  (:mod:`arena.bench.hostile_bots`, which the bot host's tests submit too);
- :mod:`arena.bench.web`: ``bench web``, the web front's pages over a big history and live viewers of a
  running tournament;
- :mod:`arena.bench.load`: ``bench load``, many remote bots (swarm processes) and one tournament against a local
  arena: decisions/s, latency, timeouts, RSS, every match recorded once;
- :mod:`arena.bench.sprt`: ``bench sprt``, the gauntlet's sequential test on resampled real block scores (recorded by
  :mod:`arena.bench.sprt_blocks`) and synthetic ones, tilted to each mean: blocks to a decision against Wald's expected
  sample number, type I and type II on skewed nulls, the bias of the estimate after acceptance;
- :mod:`arena.bench.remote`: ``bench remote``, remote matches in flight at once against the bound the bots allow,
  and their cost (worker CPU and RSS, Redis per decision), the run against one match per worker process.

Shared by the last two: :mod:`arena.bench.swarm` (many bots in one process), :mod:`arena.bench.fleet` (the swarms
and a tournament against a local arena); :mod:`arena.bench.procfs` (what ``/proc`` says of the processes) serves
``bench tournament`` too.
"""
