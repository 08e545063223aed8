"""The competitions pages and their JSON twins: the list (``ListCompetitions``) and one competition
(``GetCompetitionStandings``: its rules, entrants, ladder of current entries, one per version of a bot, and the
versions it retired), read through :class:`arena.web.reader.ArenaReader` as every page is. A competition's
blocks (small tournaments in the pool ``competition:NAME``) are grouped under it on the tournaments page
(``/tournaments?competition=NAME`` lists them)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.web import views
from arena.web.reader import ArenaReader

router = APIRouter()


def _reader(request: Request) -> ArenaReader:
    arena: ArenaReader = request.app.state.reader
    return arena


def competitions_data(arena: ArenaReader) -> dict[str, Any]:
    return {"competitions": [asdict(row) for row in arena.competitions()]}


def competition_data(arena: ArenaReader, competition_id: str) -> dict[str, Any]:
    board = arena.competition(competition_id)
    return {"competition": asdict(board.competition), "entries": [asdict(row) for row in board.entries],
            "retired": [asdict(row) for row in board.retired], "ranked_by": board.ranked_by,
            "verdicts": board.verdicts}


@router.get("/api/competitions", tags=["competitions"])
def api_competitions(request: Request) -> dict[str, Any]:
    """The competitions (continuous ladders), oldest first: state, rules, entrants, blocks started so far."""
    return competitions_data(_reader(request))


@router.get("/api/competitions/{competition_id}", tags=["competitions"])
def api_competition(request: Request, competition_id: str) -> dict[str, Any]:
    """One competition: its rules and entrants, its ladder (each version of a bot is its own entry, ranked and
    tiered by the batch Plackett-Luce rating over the current entries, as its pool's leaderboard; ``ranked_by``
    names the rating) and the versions it retired, newest first."""
    return competition_data(_reader(request), competition_id)


def _page(request: Request, template: str, context: dict[str, Any]) -> HTMLResponse:
    page: HTMLResponse = request.app.state.templates.TemplateResponse(request, template, context)
    return page


@router.get("/competitions", response_class=HTMLResponse, include_in_schema=False)
def competitions_page(request: Request) -> HTMLResponse:
    return _page(request, "competitions.html", {"title": "Competitions", **competitions_data(_reader(request))})


@router.get("/competitions/{competition_id}", response_class=HTMLResponse, include_in_schema=False)
def competition_page(request: Request, competition_id: str) -> HTMLResponse:
    data = competition_data(_reader(request), competition_id)
    return _page(request, "competition.html", {"title": f"Competition {competition_id}", "tier_note": views.TIER_NOTE,
                                               **data})
