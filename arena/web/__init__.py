"""The arena's web front: an ASGI app (FastAPI, Jinja2 templates, server-sent events) that reads everything through
the organizer API (:class:`arena.client.ArenaClient`), the same road as the CLI: a rating, an interval or a tier is
shown as the API gives it, never computed here. The one exception, named in the import contract of pyproject.toml:
the play pages (:mod:`arena.web.play_routes`) run people's own games with the human-play service on the store.

:func:`arena.web.app.create_app` builds the app; ``uno-arena web`` serves it with uvicorn. Every page is also JSON
under ``/api/...`` (documented on ``/docs``); pages that only show data work without JavaScript.
"""
