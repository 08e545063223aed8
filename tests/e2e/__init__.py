"""End-to-end tests: the whole arena as processes (Redis, gateway, worker, remote bots), a real Prometheus."""
