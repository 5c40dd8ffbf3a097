"""The smallest FlatBuffers reader and writer that Arrow IPC metadata needs.

Arrow IPC messages carry their metadata (a Schema, a RecordBatch header) as FlatBuffers
(https://flatbuffers.dev/internals/). Only four things are needed, so they are written here by
hand instead of pulling in the `flatbuffers` package and generated code:

- a *table*: at its position a signed 32-bit offset back to its *vtable*; the vtable holds its
  own size (u16), the table's inline size (u16), then one u16 per field: where the field sits
  inside the table, or 0 when it is absent (the reader then uses the field's default);
- a *vector*: a u32 element count followed by the elements (scalars, inline structs, or u32
  offsets to tables);
- a *string*: a u32 byte count, the UTF-8 bytes and a NUL;
- an *offset* to a table, vector or string: a u32 stored at position p that points forward to
  p + value. The buffer starts with such an offset to its root table.

Every scalar sits at a position that is a multiple of its size (counted from the buffer's
start), which Arrow's readers verify.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

__all__ = ["Reader", "Table", "String", "TableVector", "StructVector", "ScalarVector", "build"]


class Reader:
    """Reads one table of a FlatBuffer; fields are addressed by their slot (0, 1, 2, ...)."""

    __slots__ = ("buf", "pos", "_vtable", "_vtable_len")

    def __init__(self, buf: bytes | memoryview, pos: int):
        self.buf = buf
        self.pos = pos
        self._vtable = pos - _I32.unpack_from(buf, pos)[0]
        self._vtable_len = _U16.unpack_from(buf, self._vtable)[0]

    @classmethod
    def root(cls, buf: bytes | memoryview) -> "Reader":
        """The root table of a buffer."""
        if len(buf) < 8:
            raise ValueError("a flatbuffer is at least 8 bytes")
        return cls(buf, _U32.unpack_from(buf, 0)[0])

    def _offset(self, slot: int) -> int:
        """Where field `slot` sits inside the table, 0 when absent."""
        entry = 4 + 2 * slot
        if entry >= self._vtable_len:
            return 0
        return _U16.unpack_from(self.buf, self._vtable + entry)[0]

    def has(self, slot: int) -> bool:
        return self._offset(slot) != 0

    def scalar(self, slot: int, fmt: str, default):
        """A scalar field: `fmt` is a `struct` format letter (b B h H i I q Q ?)."""
        off = self._offset(slot)
        if not off:
            return default
        return struct.unpack_from("<" + fmt, self.buf, self.pos + off)[0]

    def _deref(self, slot: int) -> Optional[int]:
        off = self._offset(slot)
        if not off:
            return None
        at = self.pos + off
        return at + _U32.unpack_from(self.buf, at)[0]

    def table(self, slot: int) -> Optional["Reader"]:
        at = self._deref(slot)
        return None if at is None else Reader(self.buf, at)

    def string(self, slot: int) -> Optional[str]:
        at = self._deref(slot)
        if at is None:
            return None
        n = _U32.unpack_from(self.buf, at)[0]
        return bytes(self.buf[at + 4 : at + 4 + n]).decode("utf-8")

    def vector(self, slot: int) -> tuple[int, int]:
        """(position of the first element, element count); (0, 0) when absent."""
        at = self._deref(slot)
        if at is None:
            return 0, 0
        return at + 4, _U32.unpack_from(self.buf, at)[0]

    def tables(self, slot: int) -> list["Reader"]:
        """A vector of tables."""
        start, n = self.vector(slot)
        out = []
        for i in range(n):
            at = start + 4 * i
            out.append(Reader(self.buf, at + _U32.unpack_from(self.buf, at)[0]))
        return out

    def structs(self, slot: int, fmt: str) -> list[tuple]:
        """A vector of inline structs, each laid out as the `struct` format `fmt` (little-endian)."""
        start, n = self.vector(slot)
        layout = struct.Struct("<" + fmt)
        return [layout.unpack_from(self.buf, start + i * layout.size) for i in range(n)]


# ---------------------------------------------------------------------------------------------
# Writing. Objects are described as plain values (Table, String, vectors) and serialised front
# to back: a table is written, then the objects it points to after it, so that every offset
# points forward as the format requires.


@dataclass
class String:
    value: str


@dataclass
class TableVector:
    tables: Sequence["Table"]


@dataclass
class StructVector:
    """Inline structs: `fmt` is the `struct` format of one element, `items` their field tuples."""

    fmt: str
    items: Sequence[tuple]
    align: int = 8


@dataclass
class ScalarVector:
    fmt: str
    items: Sequence


Child = Union["Table", String, TableVector, StructVector, ScalarVector]


@dataclass
class Table:
    """A table: `fields` maps a slot to ("scalar", fmt, value) or ("child", object)."""

    fields: dict[int, tuple] = field(default_factory=dict)

    def scalar(self, slot: int, fmt: str, value) -> "Table":
        self.fields[slot] = ("scalar", fmt, value)
        return self

    def child(self, slot: int, value: Optional[Child]) -> "Table":
        if value is not None:
            self.fields[slot] = ("child", value)
        return self


class _Writer:
    def __init__(self) -> None:
        self.buf = bytearray()

    def align(self, n: int, extra: int = 0) -> None:
        """Pads so that `len(buf) + extra` is a multiple of `n`."""
        self.buf.extend(b"\0" * (-(len(self.buf) + extra) % n))

    def patch_offset(self, at: int, target: int) -> None:
        _U32.pack_into(self.buf, at, target - at)

    def write(self, obj: Child) -> int:
        """Writes `obj` and everything it points to; returns where an offset to it points."""
        if isinstance(obj, Table):
            return self._table(obj)
        if isinstance(obj, String):
            data = obj.value.encode("utf-8")
            self.align(4)
            at = len(self.buf)
            self.buf += _U32.pack(len(data)) + data + b"\0"
            return at
        if isinstance(obj, TableVector):
            self.align(4)
            at = len(self.buf)
            self.buf += _U32.pack(len(obj.tables)) + b"\0" * (4 * len(obj.tables))
            for i, table in enumerate(obj.tables):
                self.patch_offset(at + 4 + 4 * i, self.write(table))
            return at
        if isinstance(obj, StructVector):
            self.align(max(obj.align, 4), extra=4)  # the elements, after the count, are aligned
            at = len(self.buf)
            layout = struct.Struct("<" + obj.fmt)
            self.buf += _U32.pack(len(obj.items))
            for item in obj.items:
                self.buf += layout.pack(*item)
            return at
        if isinstance(obj, ScalarVector):
            size = struct.calcsize("<" + obj.fmt)
            self.align(max(size, 4), extra=4)
            at = len(self.buf)
            self.buf += _U32.pack(len(obj.items))
            self.buf += struct.pack(f"<{len(obj.items)}{obj.fmt}", *obj.items)
            return at
        raise TypeError(f"cannot write {type(obj).__name__} into a flatbuffer")

    def _table(self, table: Table) -> int:
        # Inline layout: the soffset to the vtable, then the fields, largest first so that each
        # one is aligned once the table itself is aligned to the largest.
        sizes = {
            slot: (struct.calcsize("<" + f[1]) if f[0] == "scalar" else 4)
            for slot, f in table.fields.items()
        }
        order = sorted(table.fields, key=lambda s: (-sizes[s], s))
        inline_at: dict[int, int] = {}
        size = 4
        for slot in order:
            size += -size % sizes[slot]
            inline_at[slot] = size
            size += sizes[slot]
        table_align = max([4, *sizes.values()])
        size += -size % table_align

        # The vtable, written just before the table.
        n_slots = max(table.fields, default=-1) + 1
        self.align(2)
        vtable_at = len(self.buf)
        vtable = [4 + 2 * n_slots, size] + [inline_at.get(s, 0) for s in range(n_slots)]
        self.buf += struct.pack(f"<{len(vtable)}H", *vtable)

        self.align(table_align)
        at = len(self.buf)
        self.buf += b"\0" * size
        _I32.pack_into(self.buf, at, at - vtable_at)
        children = []
        for slot, f in table.fields.items():
            if f[0] == "scalar":
                struct.pack_into("<" + f[1], self.buf, at + inline_at[slot], f[2])
            else:
                children.append((at + inline_at[slot], f[1]))
        for where, child in children:
            self.patch_offset(where, self.write(child))
        return at


def build(root: Table) -> bytes:
    """Serialises a root table into a FlatBuffer."""
    w = _Writer()
    w.buf += b"\0" * 4  # the root offset, patched below
    w.patch_offset(0, w.write(root))
    return bytes(w.buf)


_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
_U16 = struct.Struct("<H")

