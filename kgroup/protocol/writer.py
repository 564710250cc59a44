"""The generic writer: a declaration at a version compiled into Python source, once.

Source of truth: the `write` methods Kafka's `MessageDataGenerator` generates: a field the
version lacks may only hold its default unless it is `ignorable` ("Attempted to write a
non-default X at version V"), null only where the version allows it, classic or compact lengths,
tagged fields written only when not their default, in tag order, with unknown tags (`_tag<N>`)
written back, nullable structs marked by an int8 -1/1 (an unsigned varint 0/1 inside a tagged
field).

Values are dicts with snake_case keys, as the reader returns them; a missing key is the field's
default. One function per struct; consecutive fixed-width fields packed by one `struct.Struct`.
"""

from __future__ import annotations

import struct as _struct
from collections.abc import Callable
from typing import Any

from kgroup.protocol.cache import SourceCompiler
from kgroup.protocol.model import Array, Field, Struct
from kgroup.protocol.runtime import w_tags
from kgroup.protocol.types import (
    FIXED,
    ProtocolWriteError,
    bulk_fixed,
    default_value,
    encode_uvarint,
    uuid_bytes,
)

StructWriter = Callable[[dict[str, Any], bytearray], None]

_WRITERS: dict[tuple[Any, ...], StructWriter] = {}
_MISSING = object()


def get_writer(
    struct: Struct, version: int, flexible: bool, *, lenient: bool = False
) -> StructWriter:
    """The compiled writer `fn(values, out)` for `struct` at `version` (cached).

    `lenient` (the `__consumer_offsets` encoder, which builds test data Kafka would reject):
    values of fields the version lacks are dropped whatever they are, a None is written as
    null in any string, bytes or array, and a non-nullable struct given None is written with
    its defaults."""
    cache_key = (struct, version, flexible, lenient)
    fn = _WRITERS.get(cache_key)
    if fn is None:
        fn = _Compiler(version, lenient).compile(struct, flexible)
        _WRITERS[cache_key] = fn
    return fn


def _unknown_tags(values: dict[str, Any], known: frozenset[str], tags: list) -> None:
    for key in values.keys() - known:
        if key.startswith("_tag") and key[4:].isdigit():
            tags.append((int(key[4:]), bytes(values[key])))


def _fail(text: str) -> ProtocolWriteError:
    return ProtocolWriteError(text)


class _Compiler(SourceCompiler):
    """Turns a Struct at one version into the source of its writer functions."""

    kind = "writer"

    def __init__(self, version: int, lenient: bool = False) -> None:
        self.lenient = lenient
        ns: dict[str, Any] = {
            "_MISSING": _MISSING,
            "_fail": _fail,
            "_uvb": encode_uvarint,
            "_uuidb": uuid_bytes,
            "_pack": _struct.pack,
            "_H": _struct.Struct(">h").pack,
            "_I": _struct.Struct(">i").pack,
            "_tags": w_tags,
            "_unknown": _unknown_tags,
        }
        super().__init__(version, ns)

    def _function(self, struct: Struct, flexible: bool, path: str) -> str:
        fname = self._name(f"w_{struct.name}_")
        body: list[str] = []
        version = self.version
        plain: list[Field] = []
        tagged: list[Field] = []
        for fd in struct.fields:
            label = path + fd.name
            if not fd.present(version):
                if not (fd.ignorable or self.lenient):
                    default = self._const(default_value(fd))
                    text = f"Attempted to write a non-default {label} at version {version}"
                    got = self._canonical(fd, f"d.get({fd.key!r}, {default})")
                    body.append(f"    if {got} != {default}: raise _fail({text!r})")
                continue
            (tagged if fd.tagged_in(version, flexible) else plain).append(fd)
        i = 0
        while i < len(plain):
            fd = plain[i]
            if bulk_fixed(fd.type):
                group = [fd]
                while i + len(group) < len(plain) and bulk_fixed(plain[i + len(group)].type):
                    group.append(plain[i + len(group)])
                i += len(group)
                fmt = ">" + "".join(FIXED[g.type][0] for g in group)  # type: ignore[index]
                packer = self._const(_struct.Struct(fmt).pack)
                args = ", ".join(
                    f"d.get({g.key!r}, {self._const(default_value(g))})" for g in group
                )
                body.append(f"    out += {packer}({args})")
                continue
            var = self._name("v")
            body.append(f"    {var} = d.get({fd.key!r}, {self._const(default_value(fd))})")
            self._write_value(
                body,
                fd.type,
                var,
                "out",
                "    ",
                fd.nullable_in(version),
                fd.flexible_in(version, flexible),
                path + fd.name,
                tagged=False,
            )
            i += 1
        if flexible:
            body.append("    tags = []")
            for fd in sorted(tagged, key=lambda x: x.tag or 0):
                var = self._name("v")
                default = self._const(default_value(fd))
                body.append(f"    {var} = d.get({fd.key!r}, _MISSING)")
                got = self._canonical(fd, var)
                body.append(f"    if {var} is not _MISSING and {got} != {default}:")
                body.append("        t = bytearray()")
                self._write_value(
                    body,
                    fd.type,
                    var,
                    "t",
                    "        ",
                    fd.nullable_in(version),
                    True,
                    path + fd.name,
                    tagged=True,
                )
                body.append(f"        tags.append(({fd.tag}, bytes(t)))")
            known = self._const(frozenset(fd.key for fd in struct.fields))
            body.append(f"    if not d.keys() <= {known}: _unknown(d, {known}, tags)")
            body.append("    if tags: _tags(out, tags)")
            body.append("    else: out.append(0)")
        if not body:
            body.append("    pass")
        self.lines.append(f"def {fname}(d, out):")
        self.lines.extend(body)
        self.lines.append("")
        return fname

    @staticmethod
    def _canonical(fd: Field, expr: str) -> str:
        """`expr` comparable with the field's default: a uuid given as text becomes its bytes."""
        return f"_uuidb({expr})" if fd.type == "uuid" else expr

    def _length(self, body: list[str], n: str, out: str, ind: str, compact: bool, wide: bool):
        if compact:
            body.append(f"{ind}if {n} < 127: {out}.append({n} + 1)")
            body.append(f"{ind}else: {out} += _uvb({n} + 1)")
        else:
            body.append(f"{ind}{out} += {'_I' if wide else '_H'}({n})")

    def _null(
        self, body: list[str], out: str, ind: str, compact: bool, wide: bool, ok: bool, label: str
    ) -> None:
        if not ok and not self.lenient:
            text = f"non-nullable field {label} cannot be null"
            body.append(f"{ind}raise _fail({text!r})")
        elif compact:
            body.append(f"{ind}{out}.append(0)")
        else:
            body.append(f"{ind}{out} += {'_I' if wide else '_H'}(-1)")

    def _write_value(
        self,
        body: list[str],
        typ: Any,
        var: str,
        out: str,
        ind: str,
        nullable: bool,
        compact: bool,
        label: str,
        *,
        tagged: bool,
    ) -> None:
        if isinstance(typ, str):
            if typ == "uuid":
                body.append(f"{ind}{out} += _uuidb({var})")
                return
            if typ in FIXED:
                packer = self._const(_struct.Struct(">" + FIXED[typ][0]).pack)
                body.append(f"{ind}{out} += {packer}({var})")
                return
            wide = typ == "bytes"
            body.append(f"{ind}if {var} is None:")
            self._null(body, out, ind + "    ", compact, wide, nullable, label)
            body.append(f"{ind}else:")
            inner = ind + "    "
            raw = self._name("r")
            n = self._name("n")
            if typ == "string":
                body.append(f"{inner}{raw} = {var}.encode()")
            else:
                body.append(f"{inner}{raw} = {var}")
            body.append(f"{inner}{n} = len({raw})")
            if typ == "string":
                text = f"{label}: a string of %d bytes is longer than 0x7fff"
                body.append(f"{inner}if {n} > 0x7FFF: raise _fail({text!r} % {n})")
            self._length(body, n, out, inner, compact, wide)
            body.append(f"{inner}{out} += {raw}")
            return
        if isinstance(typ, Array):
            body.append(f"{ind}if {var} is None:")
            self._null(body, out, ind + "    ", compact, True, nullable, label)
            body.append(f"{ind}else:")
            inner = ind + "    "
            n = self._name("n")
            body.append(f"{inner}{n} = len({var})")
            self._length(body, n, out, inner, compact, True)
            el = typ.of
            if bulk_fixed(el):
                body.append(f"{inner}if {n}: {out} += _pack('>%d{FIXED[el][0]}' % {n}, *{var})")
                return
            item = self._name("x")
            body.append(f"{inner}for {item} in {var}:")
            if isinstance(el, Struct):
                sub = self._function(el, compact, label + ".")
                body.append(f"{inner}    {sub}({item}, {out})")
            else:
                self._write_value(
                    body, el, item, out, inner + "    ", False, compact, label, tagged=False
                )
            return
        if isinstance(typ, Struct):
            sub = self._function(typ, compact, label + ".")
            if nullable:
                body.append(f"{ind}if {var} is None: {out}.append({0 if tagged else 0xFF})")
                body.append(f"{ind}else:")
                body.append(f"{ind}    {out}.append(1)")
                body.append(f"{ind}    {sub}({var}, {out})")
            else:
                if self.lenient:
                    body.append(f"{ind}{sub}({var} or {{}}, {out})")
                else:
                    body.append(f"{ind}if {var} is None:")
                    self._null(body, out, ind + "    ", compact, False, False, label)
                    body.append(f"{ind}{sub}({var}, {out})")
            return
        raise TypeError(f"unsupported type {typ!r}")
