"""DescribeLogDirs (35): the size of each partition replica a broker keeps on disk (KIP-113).

`wire/DescribeLogDirsRequest.json` (0-4, flexible 2+; v1-v4 share the request layout; Topics
null asks for every partition) and `wire/DescribeLogDirsResponse.json` (0-4; v3 adds the
top-level ErrorCode, v4 TotalBytes and UsableBytes per log directory, KIP-827: the stored copy of
the response read for the transcription declares 0-3, v4's two fields are KIP-827's, `ignorable`,
default -1) of `kgroup.protocol.definitions`.

Not in `kgroup.protocol.messages.APIS` yet: that table must equal the wire client's
`kgroup.core.wire.messages.APIS`, and DescribeLogDirs is sent by `kgroup.core.wire.log_dirs`.
"""

from __future__ import annotations

from kgroup.protocol.messages import wire_api

# v1-v4: v0 is gone from Kafka 4.0 (KIP-896) and says nothing v1 does not
DESCRIBE_LOG_DIRS = wire_api("DescribeLogDirs", (1, 2, 3, 4))
