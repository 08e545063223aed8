"""The bot host (`uno-arena host`): it runs submitted bots (:mod:`arena.submissions`) in a bubblewrap sandbox.

Each module says its part (the sandbox, its syscall filter, private mounts, uids, cgroups, the launcher, one bot's
process, the check of a submission, the queue of checks, the host); docs/hosting.md says what is isolated and what
is not.
"""
