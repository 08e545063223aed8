"""What the arena and a player of one match agree on, below the runner, the protocol and the tournament maths.

- :mod:`arena.players.bot`: the :class:`Bot` interface (observation and legal actions in, an index out), the
  :data:`BotFactory` type the outer layers pass in to seat built-in bots by name, and :data:`BUILTIN_NAMES`, the
  participant names reserved for them (the bots themselves live in the ``bots`` package, above the arena's core);
- :mod:`arena.players.fallback`: :func:`fallback_action`, the safest legal action, played for a seat that gave no
  valid answer (by the runner, and by the Python kit when a bot's own code fails);
- :mod:`arena.players.outcome`: why a match ended (:class:`EndReason`), what a seat is told when its match
  starts (:class:`SeatStart`) and ends (:class:`MatchSummary`), and the vocabularies of a remote decision
  (:class:`DecideStatus`, :class:`DecisionOutcome`, :class:`Admission`).

Imports nothing of the arena but the engine.
"""

from .bot import BUILTIN_NAMES, Bot, BotFactory
from .fallback import fallback_action
from .outcome import Admission, DecideStatus, DecisionOutcome, EndReason, MatchSummary, SeatStart

__all__ = ["BUILTIN_NAMES", "Admission", "Bot", "BotFactory", "DecideStatus", "DecisionOutcome", "EndReason",
           "MatchSummary", "SeatStart", "fallback_action"]
