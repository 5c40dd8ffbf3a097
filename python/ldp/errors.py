"""Exceptions of ldp: one class per kind of failure, each with the CLI's message.

Every error ldp's binary reports carries a kind (``LDP_ERROR_FORMAT=json``, see
docs/python.md); the package raises the class of that kind, so a caller catches what it can act
on: a bad config (fix it), a data gate (fix the data), a lost commit race (retry).
"""

from __future__ import annotations


class LdpError(Exception):
    """A command of ldp failed.

    Attributes:
        kind: ``config``, ``usage``, ``quality_blocked``, ``conflict``, ``not_found``,
            ``source``, ``query``, ``timeout``, ``interrupted`` or ``error``.
        message: The CLI's message (what failed, where, and what to do).
        exit_code: The exit code of the ``ldp`` command (1, 3 for a data gate, 130).
        retryable: Whether another attempt may succeed (a lost commit race, a file that has
            not landed yet); never for a bad config or a data gate.
        python_type: The exception name the Python tool (local-data-platform 0.1.3) gives
            the same failure, when there is one (``DataQualityError``, ``ConfigError``, ...).
    """

    kind = "error"

    def __init__(
        self,
        message: str,
        *,
        exit_code: int = 1,
        retryable: bool = False,
        python_type: str | None = None,
        stderr: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.retryable = retryable
        self.python_type = python_type
        self.stderr = stderr


class ConfigError(LdpError):
    """The config, a workflow or a request is invalid: fix it; retrying fails again."""

    kind = "config"


class UsageError(ConfigError):
    """An argument is invalid (a window, a snapshot id, an option)."""

    kind = "usage"


class QualityBlocked(LdpError):
    """A quality check or a contract held the data back (exit 3): nothing was written."""

    kind = "quality_blocked"


class CommitConflict(LdpError):
    """Another writer moved the table first; another attempt may succeed."""

    kind = "conflict"


class NotFound(LdpError):
    """A config, table, snapshot, dataset or release does not exist."""

    kind = "not_found"


class SourceError(LdpError):
    """The source could not be read, or a plugin or transform failed."""

    kind = "source"


class QueryError(LdpError):
    """The SQL does not parse or plan, or is not one read-only query."""

    kind = "query"


class QueryTimeout(LdpError):
    """The query ran past its time limit."""

    kind = "timeout"


class Interrupted(LdpError):
    """The command was interrupted (Ctrl-C)."""

    kind = "interrupted"


_BY_KIND = {
    cls.kind: cls
    for cls in (
        LdpError,
        ConfigError,
        UsageError,
        QualityBlocked,
        CommitConflict,
        NotFound,
        SourceError,
        QueryError,
        QueryTimeout,
        Interrupted,
    )
}


def error_class(kind: str) -> type[LdpError]:
    """The exception class of an error kind (``LdpError`` for one this package does not know)."""
    return _BY_KIND.get(kind, LdpError)
