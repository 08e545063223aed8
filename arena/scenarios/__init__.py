"""Rule scenarios: the JSON scenario format (schema.json) and its runner (:mod:`arena.scenarios.runner`)."""
