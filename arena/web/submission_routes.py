"""A bot's submitted code on its page, for its author: the form uploads a new version (``SubmitBot``) and shows every
version with its verdict, the hosted process's state and its last output, all through the organizer API with the
bot's token the author types in (the API's refusal is shown as the verdict).

Hostile input: the body is refused past :data:`MAX_UPLOAD_BYTES` before more is read
(:func:`arena.web.pages.read_capped`), and parsed only then (:func:`parse_form`, exact on binary parts); a client that
posts too often or had too many tokens refused is answered 429 before the body is read. The token travels in the
form's body only: never in a URL, a page or a log line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from email.message import Message

import grpc
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from arena.submissions import DEFAULT_LIMITS
from arena.web.pages import admit_author_form, as_author, bot_data, read_capped, reader, render

router = APIRouter()

FORM_OVERHEAD_BYTES = 64 * 1024
"""Room for the form's other fields and its multipart framing, beside the archive."""
MAX_UPLOAD_BYTES = DEFAULT_LIMITS.max_archive_bytes + FORM_OVERHEAD_BYTES
REFUSED_CODES = frozenset({grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED})
"""The API's answers that refuse the submission itself (shown as its verdict, beside the list)."""


class BadForm(ValueError):
    """The form's body is not what the page sends (the message names what is wrong)."""


@dataclass(frozen=True)
class FormPart:
    """One field of a multipart form: its file name (``""`` for a plain field) and its bytes as sent."""
    filename: str
    data: bytes


def _boundary(content_type: str) -> bytes:
    header = Message()
    header["content-type"] = content_type
    boundary = header.get_param("boundary")
    if header.get_content_type() != "multipart/form-data" or not isinstance(boundary, str) or not boundary:
        raise BadForm("send the page's form (multipart/form-data with a boundary)")
    if not 1 <= len(boundary) <= 70:
        raise BadForm("the form's boundary must have 1 to 70 characters")
    return boundary.encode("latin-1")


def parse_form(content_type: str, body: bytes) -> dict[str, FormPart]:
    """The fields of a ``multipart/form-data`` body (RFC 7578), by name, their bytes exactly as sent (a part is what
    lies between two delimiters, so binary data needs no decoding). :class:`BadForm` naming what is wrong."""
    delimiter = b"\r\n--" + _boundary(content_type)
    parts = (b"\r\n" + body).split(delimiter)
    if len(parts) < 2 or not parts[-1].startswith(b"--"):
        raise BadForm("the form's body is cut short or not multipart (no closing boundary)")
    fields: dict[str, FormPart] = {}
    for part in parts[1:-1]:
        head, sep, data = part.partition(b"\r\n\r\n")
        if not sep:
            raise BadForm("a part of the form has no header")
        header = Message()
        for line in head.decode("utf-8", "replace").split("\r\n"):
            name, colon, value = line.partition(":")
            if colon and name.strip().lower() == "content-disposition":
                header["content-disposition"] = value.strip()
        field = header.get_param("name", header="content-disposition")
        if not isinstance(field, str) or not field:
            raise BadForm("a part of the form has no name")
        filename = header.get_param("filename", header="content-disposition")
        fields[field] = FormPart(filename if isinstance(filename, str) else "", data)
    return fields


@router.post("/bots/{name}/submissions", response_class=HTMLResponse, include_in_schema=False)
async def bot_submissions(request: Request, name: str) -> HTMLResponse:
    """For the bot's author (its token in the form): submit the chosen archive, if any, as its next version, then
    show every version's verdict and the hosted process's last output."""
    admit_author_form(request)
    body = await read_capped(request, MAX_UPLOAD_BYTES, "upload", "an archive may have at most "
                             f"{DEFAULT_LIMITS.max_archive_bytes} bytes (8 MiB); make it smaller (docs/hosting.md)")
    try:
        fields = parse_form(request.headers.get("content-type", ""), body)
    except BadForm as error:
        raise HTTPException(status_code=400, detail=str(error)) from None
    token = fields["token"].data.decode("utf-8", "replace").strip() if "token" in fields else ""
    if not token:
        raise HTTPException(status_code=400, detail="give the bot's token to submit code or see its submissions")
    archive = fields.get("archive", FormPart("", b""))
    arena = reader(request)
    upload: dict[str, object] | None = None
    if archive.data:
        try:
            upload = {"submitted": asdict(await as_author(request, arena.submit, name, token, archive.data))}
        except grpc.RpcError as error:
            if not isinstance(error, grpc.Call) or error.code() not in REFUSED_CODES:
                raise
            upload = {"refused": error.details() or "the submission was refused"}
        upload["filename"] = archive.filename
    elif archive.filename:
        raise HTTPException(status_code=400, detail=f"the file {archive.filename!r} is empty: choose the archive "
                            "(.tar.gz, .tgz, .tar or .zip) of your bot's folder")
    submissions, hosted, output = await as_author(request, arena.submissions, name, token)
    data = await run_in_threadpool(bot_data, arena, name)
    return render(request, "bot.html", {
        "title": f"Bot {name}", **vars(data), "upload": upload, "submissions": [asdict(s) for s in submissions],
        "hosted": asdict(hosted) if hosted is not None else None, "output": output})
