"""The ``/docs`` page: the web front's JSON API described for people, rendered on the server from the app's own
OpenAPI schema (``/openapi.json``), with no script and nothing from a CDN (FastAPI's Swagger UI and ReDoc load
theirs from one, so they are turned off in :func:`arena.web.app.create_app`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.web.pages import render

router = APIRouter()
METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Parameter:
    name: str
    where: str
    required: bool
    description: str


@dataclass(frozen=True)
class Operation:
    """One route of the schema: method, path, group (its first tag), summary, description and parameters."""

    method: str
    path: str
    group: str
    summary: str
    description: str
    parameters: tuple[Parameter, ...]


def operations(schema: dict[str, Any]) -> list[Operation]:
    """Every operation of an OpenAPI schema, by group then path."""
    found = []
    for path, item in schema.get("paths", {}).items():
        for method in (m for m in METHODS if m in item):
            op = item[method]
            parameters = tuple(Parameter(name=p.get("name", ""), where=p.get("in", ""),
                                         required=bool(p.get("required")),
                                         description=p.get("description") or p.get("schema", {}).get("description", ""))
                               for p in op.get("parameters", []))
            found.append(Operation(method=method.upper(), path=path, group=(op.get("tags") or ["play"])[0],
                                   summary=op.get("summary", ""), description=op.get("description", ""),
                                   parameters=parameters))
    return sorted(found, key=lambda o: (o.group, o.path, METHODS.index(o.method.lower())))


@router.get("/docs", response_class=HTMLResponse, include_in_schema=False)
def docs_page(request: Request) -> HTMLResponse:
    schema = request.app.openapi()
    return render(request, "api_docs.html", {"title": "API", "operations": operations(schema),
                                             "api_title": schema.get("info", {}).get("title", "")})
