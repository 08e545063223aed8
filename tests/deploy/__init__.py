"""Tests of deploy/ (compose, Kubernetes, Prometheus, Grafana) and arena/metrics.py."""
