"""The ``/cards`` page: every face of both variants as the web front draws it (UNO Flip's light and dark sides,
classic UNO), normal and small, a legend for people and the page the browser tests measure (no card's label may
be cut at any width)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.client import plain
from arena.engine.cards import Face, classic_deck, flip_dark_faces, flip_light_faces
from arena.protocol.convert import face_to_proto
from arena.web.pages import render

router = APIRouter()


@dataclass(frozen=True)
class FaceSet:
    """The distinct faces of one side of one variant, in deck order, as the card macro takes them."""

    title: str
    side: str
    faces: list[dict[str, Any]]


def _distinct(faces: list[Face]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for face in faces:
        seen.setdefault(str(face), plain(face_to_proto(face)))
    return list(seen.values())


def face_sets() -> list[FaceSet]:
    """Every face kind of every colour: UNO Flip light, UNO Flip dark, classic UNO (pure: from the engine)."""
    classic = [card.light for card in classic_deck()]
    return [FaceSet("UNO Flip, light side", "light", _distinct(flip_light_faces())),
            FaceSet("UNO Flip, dark side", "dark", _distinct(flip_dark_faces())),
            FaceSet("Classic UNO", "light", _distinct(classic))]


@router.get("/cards", response_class=HTMLResponse, include_in_schema=False)
def cards_page(request: Request) -> HTMLResponse:
    return render(request, "card_sheet.html", {"title": "Cards", "sets": face_sets()})
