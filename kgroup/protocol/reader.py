"""The generic reader: a declaration at a version compiled into Python source, once.

Source of truth: the `read` methods Kafka's `MessageDataGenerator` generates: classic int16/int32
or compact (unsigned varint N+1) lengths, a negative length meaning null ("non-nullable field X
was serialized as null" where null is not allowed), "string field X had invalid length" above
0x7fff, "Tried to allocate a collection of size N, but there are only M bytes remaining." for
arrays, a tag section ending each struct in flexible versions (unknown tags kept), nullable
structs marked by an int8 (or an unsigned varint inside a tagged field).

One function per struct, straight-line code, consecutive fixed-width fields read by one
precompiled `struct.Struct`, every bounds check naming the field and byte position. Options:
uuids as bytes or text, defaults for fields absent from a version or not, the error class and
its `Wording` (the wire client's, or `kgroup decode`'s through `kgroup.offsets.layouts`, which also
wraps these readers in its compiled C fast path).
"""

from __future__ import annotations

import copy
import functools
import struct as _struct
from collections.abc import Callable
from typing import Any

from kgroup.protocol.cache import SourceCompiler
from kgroup.protocol.model import Array, Field, Struct, java_name
from kgroup.protocol.types import (
    FIXED,
    WIRE,
    ErrorClass,
    ProtocolError,
    Wording,
    after_length,
    bulk_fixed,
    default_value,
    is_fixed,
    read_uvarint,
    read_uvarint32,
    truncated,
    uuid_text,
)

StructReader = Callable[[bytes, int, int], tuple[dict[str, Any], int]]

_READERS: dict[tuple[Any, ...], StructReader] = {}


def get_reader(
    struct: Struct,
    version: int,
    flexible: bool,
    *,
    uuid_as_text: bool = False,
    defaults: bool = True,
    error: ErrorClass = ProtocolError,
    wording: Wording = WIRE,
) -> StructReader:
    """The compiled reader `fn(buf, pos, end) -> (dict, pos)` for `struct` at `version`;
    it raises `error(reason, position=, field=)` (ProtocolError, or e.g. the offsets
    decoder's DecodeError) with the texts of `wording`."""
    cache_key = (struct, version, flexible, uuid_as_text, defaults, error, wording)
    fn = _READERS.get(cache_key)
    if fn is None:
        fn = _Compiler(version, uuid_as_text, defaults, error, wording).compile(struct, flexible)
        _READERS[cache_key] = fn
    return fn


class _Compiler(SourceCompiler):
    """Turns a Struct at one version into the source of its reader functions."""

    kind = "reader"

    def __init__(
        self,
        version: int,
        uuid_as_text: bool,
        defaults: bool,
        error: ErrorClass,
        wording: Wording,
    ) -> None:
        self.uuid_as_text = uuid_as_text
        self.defaults = defaults
        self.wording = wording
        self.label = wording.label

        def bind(fn: Callable[..., Any]) -> Callable[..., Any]:
            return fn if error is ProtocolError else functools.partial(fn, error=error)

        ns: dict[str, Any] = {
            "ProtocolError": error,
            "_trunc": functools.partial(truncated, error=error, words=wording.truncated),
            "_tlen": functools.partial(truncated, error=error, words=wording.truncated_length),
            "_tdata": functools.partial(truncated, error=error, words=wording.truncated_data),
            "_after": functools.partial(after_length, error=error, wording=wording),
            "_utf8": functools.partial(wording.bad_utf8, error=error),
            "_uv": bind(read_uvarint),
            "_uv32": bind(read_uvarint32),
            "_uuid": uuid_text,
            "_I16": _struct.Struct(">h").unpack_from,
            "_I32": _struct.Struct(">i").unpack_from,
            "_unpack": _struct.unpack_from,
            "UnicodeDecodeError": UnicodeDecodeError,
            "_deepcopy": copy.deepcopy,
        }
        super().__init__(version, ns)

    def _default_expr(self, fd: Field) -> str:
        value = default_value(fd, uuid_as_text=self.uuid_as_text)
        if value is None or isinstance(value, bool | int | float | str | bytes):
            return repr(value)
        if value == []:
            return "[]"
        return f"_deepcopy({self._const(value)})"

    # Each struct becomes one function `name(b, p, e) -> (dict, p)`.
    def _function(self, struct: Struct, flexible: bool, path: str) -> str:
        fname = self._name(f"r_{struct.name}_")
        body: list[str] = []
        items: list[str] = []  # "'key': expr" for the result dict, in declaration order
        fields = [fd for fd in struct.fields if fd.present(self.version)]
        tagged = [fd for fd in fields if fd.tagged_in(self.version, flexible)]
        plain = [fd for fd in fields if not fd.tagged_in(self.version, flexible)]
        targets: dict[str, str] = {}
        i = 0
        while i < len(plain):
            fd = plain[i]
            if is_fixed(fd):
                group = [fd]
                while i + len(group) < len(plain) and is_fixed(plain[i + len(group)]):
                    group.append(plain[i + len(group)])
                i += len(group)
                nxt = plain[i] if i < len(plain) else None
                if nxt is None or nxt.type not in ("string", "bytes"):
                    nxt = None
                elif nxt.flexible_in(self.version, flexible):
                    nxt = None  # compact lengths are varints: no fixed width to fold
                names, length = self._fixed_group(body, group, path, nxt)
                for gfd, var in zip(group, names, strict=True):
                    targets[gfd.key] = var
                if nxt is not None:
                    # the next field's length prefix was read with the group
                    var = self._name("v")
                    self._read_value(body, nxt, var, "    ", False, path, length_var=length)
                    targets[nxt.key] = var
                    i += 1
                continue
            var = self._name("v")
            self._read_value(body, fd, var, "    ", fd.flexible_in(self.version, flexible), path)
            targets[fd.key] = var
            i += 1
        for fd in struct.fields:
            if fd.key in targets:
                items.append(f"{fd.key!r}: {targets[fd.key]}")
            elif self.defaults:
                items.append(f"{fd.key!r}: {self._default_expr(fd)}")
        body.append(f"    d = {{{', '.join(items)}}}")
        if flexible:
            self._tag_section(body, tagged, path)
        body.append("    return d, p")
        self.lines.append(f"def {fname}(b, p, e):")
        self.lines.extend(body)
        self.lines.append("")
        return fname

    def _fixed_group(
        self, body: list[str], group: list[Field], path: str, prefix_of: Field | None
    ) -> tuple[list[str], str | None]:
        """One unpack for consecutive fixed-width fields, plus the classic length prefix of
        `prefix_of` (a string or bytes field right after them) when given; returns their
        variables and the length's."""
        parts = [(fd.name, *FIXED[fd.type]) for fd in group]  # type: ignore[index]
        if prefix_of is not None:
            parts.append((prefix_of.name, *(("i", 4) if prefix_of.type == "bytes" else ("h", 2))))
        fmt = ">" + "".join(code for _, code, _ in parts)
        size = sum(width for _, _, width in parts)
        names = [self._name("v") for _ in parts]
        sname = self._const(_struct.Struct(fmt).unpack_from)
        whole = self.wording.group_label(path, parts[0][0], parts[-1][0])
        if len(parts) == 1 or whole is not None:
            label = self.label(path, parts[0][0]) if len(parts) == 1 else whole
            body.append(f"    if p + {size} > e: raise _trunc(p, e, {size}, {label!r})")
        else:
            # a short read names the field that does not fit
            body.append(f"    if p + {size} > e:")
            at = 0
            for name, _, width in parts:
                body.append(
                    f"        if p + {at + width} > e: raise _trunc(p + {at}, e, {width}, "
                    f"{self.label(path, name)!r})"
                )
                at += width
        body.append(f"    {', '.join(names)}, = {sname}(b, p)")
        body.append(f"    p += {size}")
        if self.uuid_as_text:
            for fd, nm in zip(group, names, strict=False):
                if fd.type == "uuid":
                    body.append(f"    {nm} = _uuid({nm})")
        if prefix_of is None:
            return names, None
        return names[:-1], names[-1]

    def _length(
        self, body: list[str], var: str, ind: str, label: str, wide: bool, compact: bool
    ) -> None:
        """Read a length into `var`: classic int16/int32, or compact N+1 -> N as a Java int."""
        if compact:
            body.append(f"{ind}if p >= e: raise _tlen(p, e, 1, {label!r})")
            body.append(f"{ind}{var} = b[p]")
            body.append(f"{ind}if {var} < 128: p += 1; {var} -= 1")
            body.append(f"{ind}else: {var}, p = _uv32(b, p, e, {label!r}, 1)")
        else:
            size, reader = (4, "_I32") if wide else (2, "_I16")
            body.append(f"{ind}if p + {size} > e: raise _tlen(p, e, {size}, {label!r})")
            body.append(f"{ind}{var}, = {reader}(b, p)")
            body.append(f"{ind}p += {size}")

    def _unless_null(
        self,
        body: list[str],
        ind: str,
        keyword: str,
        n: str,
        target: str,
        nullable: bool,
        name: str,
        start: str,
        label: str,
    ) -> str:
        """The `keyword` ("if" or "elif") branch of a negative length or count `n` (read at
        `start`): null where the field is nullable, else Kafka's error; then the `else:` for
        the value, whose indent is returned."""
        body.append(f"{ind}{keyword} {n} < 0:")
        if nullable:
            body.append(f"{ind}    {target} = None")
        else:
            text = f"non-nullable field {name} was serialized as null"
            body.append(f"{ind}    raise _after({text!r}, {start}, p, {label!r}, True)")
        body.append(f"{ind}else:")
        return ind + "    "

    def _read_value(
        self,
        body: list[str],
        fd: Field,
        target: str,
        ind: str,
        compact: bool,
        path: str,
        *,
        typ: Any = None,
        nullable: bool | None = None,
        tagged: bool = False,
        name: str | None = None,
        length_var: str | None = None,
    ) -> None:
        """Read a value of field `fd` into `target`: by default the field itself (its type,
        nullable as declared at this version), else `typ` (an array's element type)."""
        if typ is None:
            typ = fd.type
        if nullable is None:
            nullable = fd.nullable_in(self.version)
        label = self.label(path, fd.name)
        name = name or java_name(fd.name)
        if isinstance(typ, str):
            if typ in FIXED:
                fmt, size = FIXED[typ]
                sname = self._const(_struct.Struct(">" + fmt).unpack_from)
                body.append(f"{ind}if p + {size} > e: raise _trunc(p, e, {size}, {label!r})")
                conv = "_uuid(" if typ == "uuid" and self.uuid_as_text else "("
                body.append(f"{ind}{target} = {conv}{sname}(b, p)[0])")
                body.append(f"{ind}p += {size}")
                return
            if compact:  # a varint length: remember where it started
                s = self._name("s")
                body.append(f"{ind}{s} = p")
            else:  # where the fixed-width length started
                s = f"p - {4 if typ == 'bytes' else 2}"
            if length_var is None:
                n = self._name("n")
                self._length(body, n, ind, label, wide=(typ == "bytes"), compact=compact)
            else:
                n = length_var
            body.append(f"{ind}if {n} == 0:")
            body.append(f"{ind}    {target} = {'' if typ == 'string' else b''!r}")
            inner = self._unless_null(body, ind, "elif", n, target, nullable, name, s, label)
            if typ == "string":
                text = f"string field {name} had invalid length "
                body.append(
                    f"{inner}if {n} > 0x7FFF: raise _after({text!r} + str({n}), {s}, p, "
                    f"{label!r}, True)"
                )
            body.append(f"{inner}q = p + {n}")
            body.append(f"{inner}if q > e: raise _tdata(p, e, {n}, {label!r})")
            if typ == "string":
                body.append(f"{inner}try: {target} = b[p:q].decode()")
                body.append(
                    f"{inner}except UnicodeDecodeError as x: raise _utf8(x, {s}, {label!r})"
                )
            else:
                body.append(f"{inner}{target} = b[p:q]")
            body.append(f"{inner}p = q")
            return
        if isinstance(typ, Array):
            n = self._name("n")
            s = self._name("s")
            body.append(f"{ind}{s} = p")
            self._length(body, n, ind, label, wide=True, compact=compact)
            inner = self._unless_null(body, ind, "if", n, target, nullable, name, s, label)
            text = (
                "Tried to allocate a collection of size %d, but there are only %d bytes remaining."
            )
            body.append(
                f"{inner}if {n} > e - p: raise _after({text!r} % ({n}, e - p), {s}, p, "
                f"{label!r}, False)"
            )
            el = typ.of
            if bulk_fixed(el):
                fmt, size = FIXED[el]
                body.append(f"{inner}q = p + {n} * {size}")
                body.append(f"{inner}if q > e: raise _tdata(p, e, {n} * {size}, {label!r})")
                body.append(f"{inner}{target} = list(_unpack('>%d{fmt}' % {n}, b, p))")
                body.append(f"{inner}p = q")
                return
            lst = self._name("a")
            body.append(f"{inner}{lst} = []")
            body.append(f"{inner}for _ in range({n}):")
            if isinstance(el, Struct):
                sub = self._function(el, compact, label + ".")
                body.append(f"{inner}    x, p = {sub}(b, p, e)")
            else:
                # elements are never nullable (Kafka: "<name> element" in its errors)
                self._read_value(
                    body,
                    fd,
                    "x",
                    inner + "    ",
                    compact,
                    path,
                    typ=el,
                    nullable=False,
                    name=f"{name} element",
                )
            body.append(f"{inner}    {lst}.append(x)")
            body.append(f"{inner}{target} = {lst}")
            return
        if isinstance(typ, Struct):
            sub = self._function(typ, compact, label + ".")
            if nullable and tagged:
                # inside a tagged field: an unsigned varint, 0 null, else present
                # (MessageDataGenerator.generateStructReader: `readUnsignedVarint() <= 0`)
                m = self._name("m")
                body.append(f"{ind}if p >= e: raise _trunc(p, e, 1, {label!r})")
                body.append(f"{ind}{m} = b[p]")
                body.append(f"{ind}if {m} < 128: p += 1")
                body.append(f"{ind}else: {m}, p = _uv(b, p, e, {label!r})")
                body.append(f"{ind}if {m} == 0: {target} = None")
                body.append(f"{ind}else: {target}, p = {sub}(b, p, e)")
            elif nullable:
                # an int8: negative null, else present (`readByte() < 0`)
                body.append(f"{ind}if p >= e: raise _trunc(p, e, 1, {label!r})")
                body.append(f"{ind}if b[p] >= 128: p += 1; {target} = None")
                body.append(f"{ind}else: {target}, p = {sub}(b, p + 1, e)")
            else:
                body.append(f"{ind}{target}, p = {sub}(b, p, e)")
            return
        raise TypeError(f"unsupported type {typ!r}")

    def _tag_section(self, body: list[str], tagged: list[Field], path: str) -> None:
        label = self.label(path, "_tagged_fields")
        body.append(f"    if p >= e: raise _trunc(p, e, 1, {label!r})")
        body.append("    nt = b[p]")
        body.append("    if nt < 128: p += 1")
        # a Java int: a count of 2**31 or more is negative, and Kafka's loop reads no field
        body.append(f"    else: nt, p = _uv32(b, p, e, {label!r})")
        body.append("    if nt > 0:")
        body.append("        for _ in range(nt):")
        body.append(f"            tag, p = _uv(b, p, e, {label!r})")
        body.append(f"            size, p = _uv(b, p, e, {label!r})")
        body.append("            qt = p + size")
        body.append(f"            if qt > e: raise _trunc(p, e, size, {label!r} + '.' + str(tag))")
        first = True
        for fd in sorted(tagged, key=lambda x: x.tag or 0):
            kw = "if" if first else "elif"
            first = False
            var = self._name("t")
            body.append(f"            {kw} tag == {fd.tag}:")
            body.append("                e0 = e")
            body.append("                e = qt")
            self._read_value(body, fd, var, "                ", True, path, tagged=True)
            body.append("                e = e0")
            body.append(f"                d[{fd.key!r}] = {var}")
            body.append(
                "                if p != qt: raise ProtocolError('tagged field of %d bytes read "
                f"as %d' % (size, p + size - qt), position=p, field={self.label(path, fd.name)!r})"
            )
        if first:
            body.append("            d['_tag%d' % tag] = b[p:qt]")
        else:
            body.append("            else:")
            body.append("                d['_tag%d' % tag] = b[p:qt]")
        body.append("            p = qt")
