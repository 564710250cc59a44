"""`sasl.jaas.config` values parsed as Kafka's `org.apache.kafka.common.security.JaasConfig`
does (java.io.StreamTokenizer rules; one login module per client, as
`JaasContext.loadClientContext` requires)."""

from __future__ import annotations

import re

# JaasConfig runs java.io.StreamTokenizer over the value: `Module flag key=value ... ;`, values
# quoted ("..." or '...', backslash escapes) or bare words, `//` and `/* */` comments; a missing
# flag, `=`, value or `;` is refused, and a client takes exactly one login module
# (JaasContext.loadClientContext). Errors say where (a character position), never what: the text
# around a broken quote is usually part of the password.

JAAS_FLAGS = ("required", "requisite", "sufficient", "optional")  # LoginModuleControlFlag
_JAAS_WORD = re.compile(r"[A-Za-z0-9_$.\-]+")
_JAAS_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class JaasSyntaxError(ValueError):
    """A `sasl.jaas.config` value Kafka would refuse: what is wrong and at which character."""

    def __init__(self, problem: str, position: int) -> None:
        super().__init__(f"{problem} (character {position + 1} of the value)")
        self.problem = problem
        self.position = position


def _jaas_quoted(text: str, start: int) -> tuple[str, int]:
    """The unescaped text of the quoted value opening at `start`, and the index after it.
    StreamTokenizer ends an unclosed quote at the line's end; Kafka then fails on what follows,
    so an unclosed quote is refused here directly."""
    quote = text[start]
    out: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch in "\r\n":
            break
        if ch == "\\" and i + 1 < len(text):
            octal = re.match(r"[0-3][0-7]{0,2}|[4-7][0-7]?", text[i + 1 : i + 4])
            if octal:
                out.append(chr(int(octal.group(), 8)))
                i += 1 + len(octal.group())
                continue
            out.append(_JAAS_ESCAPES.get(text[i + 1], text[i + 1]))
            i += 2
            continue
        out.append(ch)
        i += 1
    raise JaasSyntaxError("a quoted value is not closed", start)


def _jaas_tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, position) tokens: kind is `word`, `quoted`, `=` or `;`."""
    tokens: list[tuple[str, str, int]] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise JaasSyntaxError("a /* comment is not closed", i)
            i = end + 2
        elif ch in "\"'":
            value, end = _jaas_quoted(text, i)
            if end < len(text) and not (text[end].isspace() or text[end] in ";/"):
                raise JaasSyntaxError(
                    'a quoted value runs into more text (unbalanced quotes? write \\" for a '
                    "quote inside a value)",
                    end,
                )
            tokens.append(("quoted", value, i))
            i = end
        elif ch in "=;":
            tokens.append((ch, ch, i))
            i += 1
        elif match := _JAAS_WORD.match(text, i):
            tokens.append(("word", match.group(), i))
            i = match.end()
        else:
            raise JaasSyntaxError("unexpected character", i)
    return tokens


def parse_jaas(value: str) -> tuple[str, dict[str, str]]:
    """Split a `sasl.jaas.config` value into (login module class, options), as strictly as
    Kafka's JaasConfig; raises JaasSyntaxError."""
    tokens = _jaas_tokens(value)
    end = len(value.rstrip())
    entries: list[tuple[str, dict[str, str]]] = []
    i = 0
    while i < len(tokens):
        kind, module, at = tokens[i]
        if kind != "word":
            raise JaasSyntaxError("expected a login module class name", at)
        if i + 1 >= len(tokens) or tokens[i + 1][0] != "word":
            where = tokens[i + 1][2] if i + 1 < len(tokens) else end
            raise JaasSyntaxError("the login module has no control flag (e.g. required)", where)
        if tokens[i + 1][1].lower() not in JAAS_FLAGS:
            raise JaasSyntaxError(
                f"the control flag must be one of {', '.join(JAAS_FLAGS)}", tokens[i + 1][2]
            )
        i += 2
        options: dict[str, str] = {}
        while i < len(tokens) and tokens[i][0] != ";":
            kind, key, at = tokens[i]
            if kind != "word":
                raise JaasSyntaxError("expected an option name", at)
            if i + 1 >= len(tokens) or tokens[i + 1][0] != "=":
                raise JaasSyntaxError("an option has no `=` after its name", at)
            if i + 2 >= len(tokens) or tokens[i + 2][0] not in ("word", "quoted"):
                raise JaasSyntaxError("an option has no value after `=`", tokens[i + 1][2])
            options[key] = tokens[i + 2][1]
            i += 3
        if i >= len(tokens):
            raise JaasSyntaxError("the login module line does not end with `;`", end)
        i += 1  # the `;`
        entries.append((module, options))
    if not entries:
        raise JaasSyntaxError("no login module is given", 0)
    if len(entries) > 1:
        raise JaasSyntaxError(
            f"{len(entries)} login modules are given; a client takes exactly one",
            tokens[-1][2],
        )
    return entries[0]
