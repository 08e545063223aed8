"""The bot host (`uno-arena host`): it runs submitted bots (:mod:`arena.submissions`) in a bubblewrap sandbox.

:mod:`~arena.hosting.sandbox` builds the sandbox's command line and its limits; :mod:`~arena.hosting.seccomp` its
syscall filter; :mod:`~arena.hosting.private_mounts` the launcher's own ``/tmp`` and ``/bot`` (inode-limited
tmpfs); :mod:`~arena.hosting.identity` the uid each sandbox runs as; :mod:`~arena.hosting.cgroups`
detects and makes the per-bot cgroups (memory, CPU and processes of the whole bot) where the machine allows;
:mod:`~arena.hosting.launch` is the small program that joins the bot's cgroup, applies the limits and starts
``bwrap`` with nothing of the host's environment; :mod:`~arena.hosting.process` keeps one bot's process running
(restarts with backoff, its output capped, the wall-clock and never-connected kills); :mod:`~arena.hosting.check`
runs ``uno-arena bot check`` on a new submission in the sandbox, as a live match plays it, on a store of its own;
:mod:`~arena.hosting.queue` orders the checks (in turn per author, a bot's newest waiting version only);
:mod:`~arena.hosting.host` puts them together on the arena's store. docs/hosting.md says what is isolated and
what is not.
"""
