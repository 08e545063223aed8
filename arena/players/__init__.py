"""What the arena and a player of one match agree on, below the runner, the protocol and the tournament maths: the
:class:`Bot` interface and :data:`BotFactory`, the fallback rule, why a match ended, what a seat is told at its
start and end, and the vocabularies of a remote decision. Imports nothing of the arena but the engine.
"""

from .bot import BUILTIN_NAMES, Bot, BotFactory
from .fallback import fallback_action
from .outcome import Admission, DecideStatus, DecisionOutcome, EndReason, MatchSummary, SeatStart

__all__ = ["BUILTIN_NAMES", "Admission", "Bot", "BotFactory", "DecideStatus", "DecisionOutcome", "EndReason",
           "MatchSummary", "SeatStart", "fallback_action"]
