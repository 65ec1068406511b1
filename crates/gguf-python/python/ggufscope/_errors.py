"""The one exception ggufscope raises for a file it cannot read or decode."""

from __future__ import annotations

from typing import Any


class GgufError(Exception):
    """A file that cannot be read or decoded, as the CLI's JSON error document says it.

    ``code`` is the stable code (``truncated``, ``not-gguf``, ``http-status``, ``header-budget``,
    … : the list is ``schema/codes.json``), ``offset`` the absolute byte offset of what is wrong
    (``None`` when no place is known) and ``context`` the part of the header being read (a dict
    with ``section``; ``None`` outside the decoder).
    """

    code: str
    message: str
    offset: int | None
    context: dict[str, Any] | None

    def __init__(
        self,
        message: str,
        code: str,
        offset: int | None = None,
        context: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.offset = offset
        self.context = context

    def __str__(self) -> str:
        where = "" if self.offset is None else f" (at offset {self.offset:#x})"
        return f"{self.code}: {self.message}{where}"

    def __reduce__(self) -> tuple[Any, ...]:
        # Picklable, so that an error crosses a process pool or a Ray task as it was.
        return (GgufError, (self.message, self.code, self.offset, self.context))

    def document(self) -> dict[str, Any]:
        """The error as the CLI's JSON error document: ``{code, message, offset, context}``."""
        return {
            "code": self.code,
            "message": self.message,
            "offset": self.offset,
            "context": self.context,
        }
