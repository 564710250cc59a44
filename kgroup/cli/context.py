"""What every command shares: the global options of this invocation and the stderr note line.

Command modules import these from here, not from `kgroup.cli.app`: the app imports the command
modules to register them, so importing the app back would make an import circle.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import typer

from kgroup.core.notes import note

if TYPE_CHECKING:
    from kgroup.core.admin import GroupAdmin
    from kgroup.core.config import ClusterConfig
    from kgroup.render import Output
    from kgroup.render.stream import Stream


@dataclass
class GlobalOptions:
    """Options every command shares; commands read them from `ctx.obj`."""

    bootstrap: str | None = None
    command_config: str | None = None
    overrides: list[str] = field(default_factory=list)
    timeout: float | None = None
    output: str = "table"
    no_color: bool = False
    verbose: bool = False
    _cluster: ClusterConfig | None = None
    _admins: list[GroupAdmin] = field(default_factory=list)

    def cluster(self) -> ClusterConfig:
        """The ClusterConfig from flags, env, file, or the running sandbox (said on stderr)."""
        if self._cluster is None:
            from kgroup.core.config import build_cluster_config
            from kgroup.sandbox.state import running_sandbox_bootstrap

            self._cluster = build_cluster_config(
                bootstrap=self.bootstrap,
                command_config=self.command_config,
                overrides=self.overrides,
                timeout_s=self.timeout,
                fallback_bootstrap=running_sandbox_bootstrap,
            )
            if self._cluster.used_fallback:
                note(
                    f"using the sandbox broker at {self._cluster.bootstrap_servers} "
                    f"({self._cluster.bootstrap_source})"
                )
            log = logging.getLogger("kgroup")
            for text in self._cluster.notes:
                log.debug(text)
            log.debug("client properties: %s", self._cluster.redacted())
        return self._cluster

    def admin(self) -> GroupAdmin:
        from kgroup.core.admin import GroupAdmin

        admin = GroupAdmin(self.cluster(), count_requests=self.verbose)
        self._admins.append(admin)
        return admin

    def show(self, output: Output | Stream, mode: str | None = None) -> None:
        """Print `output` (whole, or a Stream as it comes) on stdout in this invocation's
        format (-o, or `mode`) and colour (--no-color)."""
        from kgroup.render import render

        render(output, mode or self.output, no_color=self.no_color)

    def log_request_counts(self) -> None:
        """With --verbose: how many Kafka requests this run sent, per API."""
        from collections import Counter

        total: Counter[str] = Counter()
        for admin in self._admins:
            total.update(admin.counted_requests())
        if total:
            summary = " ".join(f"{api}={n}" for api, n in sorted(total.items()))
            logging.getLogger("kgroup.requests").debug("requests sent: %s", summary)


def options(ctx: typer.Context) -> GlobalOptions:
    """The GlobalOptions of this invocation."""
    obj = ctx.find_root().obj
    if not isinstance(obj, GlobalOptions):
        obj = GlobalOptions()
        ctx.find_root().obj = obj
    return obj
