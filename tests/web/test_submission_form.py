"""The bot page's upload form, without a server: its multipart body parsed exactly (binary archives byte for byte)
and what is not the page's form refused with one line."""

from __future__ import annotations

import random

import httpx
import pytest

from arena.web.submission_routes import BadForm, parse_form


def _encoded(token: str, archive: bytes, filename: str = "bot.tar.gz") -> tuple[str, bytes]:
    """The body and content type httpx (as a browser does) makes of the form."""
    request = httpx.Request("POST", "http://web/bots/b/submissions", data={"token": token},
                            files={"archive": (filename, archive, "application/gzip")})
    return request.headers["content-type"], request.read()


def test_a_binary_archive_comes_through_byte_for_byte() -> None:
    data = random.Random(7).randbytes(200_000) + b"\r\n--\r\n\r\n" + bytes(range(256))
    content_type, body = _encoded("alpha.secret", data)
    fields = parse_form(content_type, body)
    assert fields["token"].data == b"alpha.secret" and fields["token"].filename == ""
    assert fields["archive"].data == data and fields["archive"].filename == "bot.tar.gz"


def test_an_empty_file_field_is_kept_empty() -> None:
    content_type, body = _encoded("alpha.secret", b"", filename="")
    assert parse_form(content_type, body)["archive"].data == b""


@pytest.mark.parametrize(("content_type", "body", "says"), [
    ("application/x-www-form-urlencoded", b"token=x", "multipart/form-data"),
    ("multipart/form-data", b"", "boundary"),
    ("multipart/form-data; boundary=XYZ", b"--XYZ\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nx",
     "cut short"),
    ("multipart/form-data; boundary=XYZ", b"--XYZ\r\nno header end\r\n--XYZ--\r\n", "no header"),
    ("multipart/form-data; boundary=XYZ", b"--XYZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XYZ--\r\n",
     "no name"),
])
def test_what_is_not_the_pages_form_is_refused_with_one_line(content_type: str, body: bytes, says: str) -> None:
    with pytest.raises(BadForm, match=says) as refused:
        parse_form(content_type, body)
    assert "\n" not in str(refused.value)
