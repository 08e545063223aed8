"""Benchmarks that print their figures (`uno-arena bench ...`); targets live here, never in unit tests.

- :mod:`arena.bench.engine`: ``bench engine``, the engine against RLCard's UNO env;
- :mod:`arena.bench.gateway`: ``bench gateway``, remote bots over loopback gRPC next to a bare echo stream;
- :mod:`arena.bench.tournament`: ``bench tournament``, a tournament in process and through Celery workers;
- :mod:`arena.bench.abuse`: ``bench abuse``, a well-behaved bot beside each attack on the gateway;
- :mod:`arena.bench.web`: ``bench web``, the web front's pages over a big history and live viewers of a
  running tournament;
- :mod:`arena.bench.load` and :mod:`arena.bench.swarm`: ``uno-arena load``, a swarm of bot processes against
  a local arena.
"""
