"""Benchmarks and research harnesses that print their figures (`python -m benchmarks NAME`, :mod:`benchmarks.cli`); they
import the arena, never the reverse, and are not part of the installed package. Targets live here, never in unit tests.

- :mod:`benchmarks.engine`: ``engine``, the engine against RLCard's UNO env;
- :mod:`benchmarks.gateway`: ``gateway``, remote bots over loopback gRPC next to a bare echo stream;
- :mod:`benchmarks.tournament`: ``tournament``, a tournament in process and through Celery workers;
- :mod:`benchmarks.abuse`: ``abuse``, a well-behaved bot beside each attack on the gateway;
- :mod:`benchmarks.hosted_abuse`: ``abuse --hosted``, a hosted bot beside each hostile hosted bot
  (:mod:`benchmarks.hostile_bots`, which the bot host's tests submit too);
- :mod:`benchmarks.web`: ``web``, the web front's pages over a big history and live viewers of a
  running tournament;
- :mod:`benchmarks.load`: ``load``, many remote bots (swarm processes) and one tournament against a local
  arena: decisions/s, latency, timeouts, RSS, every match recorded once;
- :mod:`benchmarks.sprt`: ``sprt``, the gauntlet's sequential test on resampled real block scores (recorded by
  :mod:`benchmarks.sprt_blocks`) and synthetic ones, tilted to each mean: blocks to a decision against Wald's expected
  sample number, type I and type II on skewed nulls, the bias of the estimate after acceptance;
- :mod:`benchmarks.remote`: ``remote``, remote matches in flight at once against the bound the bots allow,
  and their cost (worker CPU and RSS, Redis per decision), the run against one match per worker process.

Shared by the last two: :mod:`benchmarks.swarm` (many bots in one process), :mod:`benchmarks.fleet` (the swarms
and a tournament against a local arena); :mod:`benchmarks.procfs` (what ``/proc`` says of the processes) serves
``tournament`` too.
"""
