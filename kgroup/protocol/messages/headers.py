"""Request and response headers.

Source: clients/src/main/resources/common/message/RequestHeader.json (v0-v2, flexible 2+;
ClientId keeps the classic nullable string in v2: `"flexibleVersions": "none"`) and
ResponseHeader.json (v0-v1, flexible 1+). Which header version an API uses at a version is
`Api.request_header_version` / `Api.response_header_version`.
"""

from __future__ import annotations

from kgroup.protocol.model import NULL, f, message

REQUEST_HEADER = message(
    "RequestHeader",
    "0-2",
    "2+",
    f("RequestApiKey", "int16"),
    f("RequestApiVersion", "int16"),
    f("CorrelationId", "int32"),
    f("ClientId", "string", "1+", nullable="1+", default=NULL, flexible="none", ignorable=True),
    kind="header",
)

RESPONSE_HEADER = message("ResponseHeader", "0-1", "1+", f("CorrelationId", "int32"), kind="header")
