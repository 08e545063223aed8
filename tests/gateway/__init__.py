"""Gateway, match runner, relay and kit tests: real gRPC server on a free port, real Redis, real bots."""
