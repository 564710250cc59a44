"""Request and response headers: `wire/RequestHeader.json` (v0-v2, flexible 2+; ClientId keeps
the classic nullable string in v2, `"flexibleVersions": "none"`) and `wire/ResponseHeader.json`
(v0-v1, flexible 1+) of kgroup/protocol/definitions/, as their generated Python
(`kgroup.protocol.declarations`). Which header version an API uses at a version is
`Api.request_header_version` / `Api.response_header_version`.
"""

from __future__ import annotations

from kgroup.protocol.declarations import declaration

REQUEST_HEADER = declaration("wire/RequestHeader")
RESPONSE_HEADER = declaration("wire/ResponseHeader")
