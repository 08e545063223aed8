"""The arena's web front: an ASGI app (FastAPI, Jinja2 templates, server-sent events) that reads everything through
the organizer API (:class:`arena.client.Client`), the same layer as the CLI.

:func:`arena.web.app.create_app` builds the app; ``uno-arena web`` serves it with uvicorn. Every page is also JSON
under ``/api/...`` (documented on ``/docs``); pages that only show data work without JavaScript.
"""
