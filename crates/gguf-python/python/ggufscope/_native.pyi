"""Types of the Rust extension module (crates/gguf-python/src)."""

from typing import Any

DEFAULT_MAX_HEADER_BYTES: int
FIRST_READ: int
SCHEMA_VERSION: int

class Decoder:
    """The sans-IO header decoder: ask ``next_read()``, read those bytes however you like,
    ``feed()`` them (decoded without the GIL), until ``next_read()`` is ``None``; then
    ``report()``. At most ``max_header_bytes`` bytes are asked for or decoded."""

    def __init__(self, file_size: int, *, name: str = "", max_header_bytes: int = ...) -> None: ...
    def next_read(self) -> tuple[int, int] | None:
        """``(offset, length)`` to read next; ``None`` once decoded. Raises ``GgufError``."""
    def feed(self, data: bytes) -> bool:
        """Feeds the bytes from ``bytes_fed`` on; whether the header is decoded. Raises ``GgufError``."""
    def report(self) -> dict[str, Any]:
        """The document ``ggufscope info --json`` prints."""
    @property
    def bytes_fed(self) -> int: ...
    @property
    def done(self) -> bool: ...
    @property
    def file_size(self) -> int: ...
    @property
    def header_size(self) -> int | None: ...

def validate(file: str, decoder: Decoder) -> list[dict[str, Any]]: ...
def error_document(
    file: str, code: str, message: str, offset: int | None = None, context: dict[str, Any] | None = None
) -> dict[str, Any]: ...
def diff(a_name: str, a: Decoder, b_name: str, b: Decoder) -> dict[str, Any]: ...
def tokenize(
    decoder: Decoder,
    text: bytes | None = None,
    *,
    ids: list[int] | None = None,
    add_special: bool = True,
    parse_special: bool = True,
) -> dict[str, Any]: ...
def memory(
    decoder: Decoder,
    *,
    ctx: int | None = None,
    parallel: int | None = None,
    kv_unified: bool | None = None,
    cache_type_k: str | None = None,
    cache_type_v: str | None = None,
    flash_attn: str | None = None,
    ubatch: int | None = None,
    batch: int | None = None,
) -> dict[str, Any]: ...
