"""The competitions pages and their JSON twins: the list (``ListCompetitions``) and one competition
(``GetCompetitionStandings``: its rules, entrants, ladder of current entries and retired versions). A competition's
blocks are grouped under it on the tournaments page (``/tournaments?competition=NAME`` lists them)."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.web import views
from arena.web.pages import reader, render

router = APIRouter()


@dataclass(frozen=True)
class CompetitionList:
    """The competitions, oldest first."""

    competitions: list[views.CompetitionRow]


@router.get("/api/competitions", tags=["competitions"])
def api_competitions(request: Request) -> CompetitionList:
    """The competitions (continuous ladders), oldest first: state, rules, entrants, blocks started so far."""
    return CompetitionList(reader(request).competitions())


@router.get("/api/competitions/{competition_id}", tags=["competitions"])
def api_competition(request: Request, competition_id: str) -> views.CompetitionBoard:
    """One competition: its rules and entrants, its ladder (each version of a bot is its own entry, ranked and
    tiered by the batch Plackett-Luce rating over the current entries, as its pool's leaderboard; ``ranked_by``
    names the rating) and the versions it retired, newest first."""
    return reader(request).competition(competition_id)


@router.get("/competitions", response_class=HTMLResponse, include_in_schema=False)
def competitions_page(request: Request) -> HTMLResponse:
    return render(request, "competitions.html", {"title": "Competitions",
                                                 "competitions": reader(request).competitions()})


@router.get("/competitions/{competition_id}", response_class=HTMLResponse, include_in_schema=False)
def competition_page(request: Request, competition_id: str) -> HTMLResponse:
    return render(request, "competition.html", {"title": f"Competition {competition_id}", "tier_note": views.TIER_NOTE,
                                                **vars(reader(request).competition(competition_id))})
