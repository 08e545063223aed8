"""The competitions pages and their JSON twins: the list (``ListCompetitions``) and one competition
(``GetCompetitionStandings``: its rules, entrants, ladder of current entries, one per version of a bot, and the
versions it retired), read through :class:`arena.web.reader.ArenaReader` as every page is, the JSON routes' response
models the dataclasses of :mod:`arena.web.views` (:class:`CompetitionList`, :class:`arena.web.views.CompetitionBoard`).
A competition's
blocks (small tournaments in the pool ``competition:NAME``) are grouped under it on the tournaments page
(``/tournaments?competition=NAME`` lists them)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.web import views
from arena.web.reader import ArenaReader

router = APIRouter()


def _reader(request: Request) -> ArenaReader:
    arena: ArenaReader = request.app.state.reader
    return arena


@dataclass(frozen=True)
class CompetitionList:
    """The competitions, oldest first."""

    competitions: list[views.CompetitionRow]


@router.get("/api/competitions", tags=["competitions"])
def api_competitions(request: Request) -> CompetitionList:
    """The competitions (continuous ladders), oldest first: state, rules, entrants, blocks started so far."""
    return CompetitionList(_reader(request).competitions())


@router.get("/api/competitions/{competition_id}", tags=["competitions"])
def api_competition(request: Request, competition_id: str) -> views.CompetitionBoard:
    """One competition: its rules and entrants, its ladder (each version of a bot is its own entry, ranked and
    tiered by the batch Plackett-Luce rating over the current entries, as its pool's leaderboard; ``ranked_by``
    names the rating) and the versions it retired, newest first."""
    return _reader(request).competition(competition_id)


def _page(request: Request, template: str, context: dict[str, Any]) -> HTMLResponse:
    page: HTMLResponse = request.app.state.templates.TemplateResponse(request, template, context)
    return page


@router.get("/competitions", response_class=HTMLResponse, include_in_schema=False)
def competitions_page(request: Request) -> HTMLResponse:
    competitions = _reader(request).competitions()
    return _page(request, "competitions.html", {"title": "Competitions", "competitions": competitions})


@router.get("/competitions/{competition_id}", response_class=HTMLResponse, include_in_schema=False)
def competition_page(request: Request, competition_id: str) -> HTMLResponse:
    board = _reader(request).competition(competition_id)
    return _page(request, "competition.html", {"title": f"Competition {competition_id}", "tier_note": views.TIER_NOTE,
                                               **{f.name: getattr(board, f.name) for f in fields(board)}})
