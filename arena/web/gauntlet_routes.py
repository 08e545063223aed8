"""The gauntlet pages and their JSON twins: the list (``ListGauntlets``) and one gauntlet (``GetGauntlet``), shaped
by :mod:`arena.web.gauntlet_views`. A running gauntlet's page reloads itself (no live stream is kept for it)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from arena.web.gauntlet_views import ESTIMATE_NOTE, LLR_NOTE, GauntletList, GauntletPage, llr_chart
from arena.web.pages import reader, render
from arena.web.reader import GAUNTLETS_LISTED

router = APIRouter()
BLOCKS_SHOWN = 200
"""The newest blocks the page's table shows (the chart and the JSON have every block)."""
RELOAD_S = 5
"""How often a running gauntlet's page reloads itself."""


@router.get("/api/gauntlets", tags=["gauntlets"])
def api_gauntlets(request: Request,
                  limit: int = Query(GAUNTLETS_LISTED, ge=1, le=GAUNTLETS_LISTED,
                                     description=f"at most this many, newest first (at most {GAUNTLETS_LISTED})")
                  ) -> GauntletList:
    """The gauntlets (is a candidate better than a baseline?), newest first: what each tests, its state and verdict,
    the blocks played, the LLR with its bounds and the estimate (the mean block score)."""
    return GauntletList(reader(request).gauntlets()[:limit])


@router.get("/api/gauntlets/{gauntlet_id}", tags=["gauntlets"])
def api_gauntlet(request: Request, gauntlet_id: str) -> GauntletPage:
    """One gauntlet: the candidate, the baseline and the opponents, its sequential test (alpha, beta, H0 and H1, the
    LLR and its bounds), its state and verdict, the estimate, the seed commitment (and, once it ended, the seed, the
    salt and the secret), and every block played with its score and the LLR after it."""
    return reader(request).gauntlet(gauntlet_id)


@router.get("/gauntlets", response_class=HTMLResponse, include_in_schema=False)
def gauntlets_page(request: Request) -> HTMLResponse:
    return render(request, "gauntlets.html", {"title": "Gauntlets", "gauntlets": reader(request).gauntlets(),
                                              "listed": GAUNTLETS_LISTED})


@router.get("/gauntlets/{gauntlet_id}", response_class=HTMLResponse, include_in_schema=False)
def gauntlet_page(request: Request, gauntlet_id: str) -> HTMLResponse:
    page = reader(request).gauntlet(gauntlet_id)
    return render(request, "gauntlet.html", {
        "title": f"Gauntlet {gauntlet_id}", "g": page.gauntlet, "chart": llr_chart(page.gauntlet, page.blocks),
        "blocks": list(reversed(page.blocks))[:BLOCKS_SHOWN], "blocks_count": len(page.blocks),
        "estimate_note": ESTIMATE_NOTE, "llr_note": LLR_NOTE, "reload_s": RELOAD_S})
