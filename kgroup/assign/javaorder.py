"""Java hash-table iteration order, reproduced without a JVM.

Source of truth: OpenJDK 17 `java.util.HashMap` (`hash()`, `tableSizeFor()`, `resize()`,
`putMapEntries()`), `java.util.HashSet(Collection)`, `String.hashCode`, and Kafka's
`org.apache.kafka.common.Uuid.hashCode` / `compareTo` and `TopicPartition.hashCode`.

Kafka's assignors iterate `HashMap`/`HashSet`s whose order is deterministic given the keys, the
table capacity and the insertion order: a key lives in bucket `spread(hash) & (capacity - 1)`;
buckets are walked in index order and, inside a bucket, nodes keep insertion order (a resize
splits a bucket into two and keeps the relative order; a removal just unlinks). So the order is
"sort live keys by (bucket under the final capacity, insertion sequence)".

Not reproduced: tree bins (a bucket with 8+ nodes in a table of 64+ buckets is turned into a
red-black tree whose node order differs). With String member ids and the 0.75 load factor that
needs a pathological pile-up of equal low hash bits; we ignore it and say so.
The capacities follow Java 17 (`HashSet(Collection)` sizes with `size/.75f + 1`; Java 19+ sizes
some copies differently).
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

MAXIMUM_CAPACITY = 1 << 30
_MASK32 = 0xFFFFFFFF


def to_int32(value: int) -> int:
    """Wrap an integer to a signed 32-bit Java int."""
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


@functools.lru_cache(maxsize=65536)
def string_hash(text: str) -> int:
    """Java `String.hashCode` (over UTF-16 code units), as a signed int (cached: member ids and
    topic names are hashed again at every rebalance round)."""
    h = 0
    if text.isascii():
        for ch in text.encode("ascii"):
            h = (31 * h + ch) & _MASK32
    else:
        data = text.encode("utf-16-be")
        for i in range(0, len(data), 2):
            h = (31 * h + ((data[i] << 8) | data[i + 1])) & _MASK32
    return to_int32(h)


def java_string_key(text: str) -> str:
    """Sort key that orders strings like Java `String.compareTo` (UTF-16 code units).

    Characters beyond the BMP are replaced by their surrogate pair, so they sort where Java puts
    them (below U+E000); BMP-only text is returned unchanged.
    """
    if text.isascii() or all(ord(c) < 0x10000 for c in text):
        return text
    out = []
    for c in text:
        cp = ord(c)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append(chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF)))
        else:
            out.append(c)
    return "".join(out)


def topic_partition_hash(topic: str, partition: int) -> int:
    """Kafka `TopicPartition.hashCode`: `31 * (31 + partition) + topic.hashCode()`."""
    return to_int32(31 * (31 + partition) + string_hash(topic))


def spread(h: int) -> int:
    """`HashMap.hash()`: the hash with its high half folded into the low half (unsigned)."""
    h &= _MASK32
    return h ^ (h >> 16)


def table_size_for(cap: int) -> int:
    """`HashMap.tableSizeFor`: the next power of two >= cap (1 for cap <= 1)."""
    if cap <= 1:
        return 1
    n = 1 << (cap - 1).bit_length()
    return min(n, MAXIMUM_CAPACITY)


def float32(value: float) -> float:
    """Round a Python float to the nearest IEEE-754 single (Java `float` arithmetic)."""
    import struct

    return struct.unpack("f", struct.pack("f", value))[0]


def presize_for_copy(size: int) -> int:
    """Initial capacity `HashSet(Collection)` asks for: `max((int)(size / .75f) + 1, 16)`."""
    return max(int(float32(size / float32(0.75))) + 1, 16)


class JavaHashTable:
    """Emulates the bucket layout of one `java.util.HashMap` (or the map inside a `HashSet`).

    Only what decides iteration order is tracked: capacity, threshold, the live keys and their
    insertion sequence. `initial_capacity=None` is the no-arg constructor.
    """

    __slots__ = ("_hash", "_head", "_seq", "capacity", "keys", "threshold")

    def __init__(self, hash_fn: Callable[[K], int], initial_capacity: int | None = None) -> None:
        self._hash = hash_fn
        self.capacity = 0  # table not allocated yet
        self.threshold = 0 if initial_capacity is None else table_size_for(initial_capacity)
        self.keys: dict = {}
        self._seq = 0  # next tail position (put)
        self._head = 0  # last head position (computeIfAbsent), counts down

    def _resize(self) -> None:
        old_cap, old_thr = self.capacity, self.threshold
        new_thr = 0
        if old_cap > 0:
            if old_cap >= MAXIMUM_CAPACITY:
                self.threshold = 0x7FFFFFFF
                return
            new_cap = old_cap << 1
            if new_cap < MAXIMUM_CAPACITY and old_cap >= 16:
                new_thr = old_thr << 1
        elif old_thr > 0:
            new_cap = old_thr
        else:
            new_cap, new_thr = 16, 12
        if new_thr == 0:
            ft = float32(new_cap * 0.75)
            new_thr = (
                int(ft) if new_cap < MAXIMUM_CAPACITY and ft < MAXIMUM_CAPACITY else 0x7FFFFFFF
            )
        self.capacity, self.threshold = new_cap, new_thr

    def presize(self, size: int) -> None:
        """`putMapEntries` pre-sizing done by `new HashMap<>(otherMap)` / `putAll` on a new map."""
        if size <= 0:
            return
        if self.capacity == 0:
            ft = float32(float32(size / float32(0.75)) + 1.0)
            t = int(ft) if ft < MAXIMUM_CAPACITY else MAXIMUM_CAPACITY
            if t > self.threshold:
                self.threshold = table_size_for(t)
        else:
            while size > self.threshold and self.capacity < MAXIMUM_CAPACITY:
                self._resize()

    def put(self, key: Hashable) -> None:
        """`put` / `add`: a new key goes to the tail of its bucket; an existing key stays."""
        if self.capacity == 0:
            self._resize()
        if key in self.keys:
            return
        self.keys[key] = self._seq
        self._seq += 1
        if len(self.keys) > self.threshold:
            self._resize()

    def compute_if_absent(self, key: Hashable) -> None:
        """`HashMap.computeIfAbsent` adding a key: unlike `put` it resizes *before* inserting
        (when `size > threshold` or no table yet) and links the new node at the *head* of its
        bucket (`tab[i] = newNode(hash, key, value, first)`), with no resize afterwards."""
        if key in self.keys:
            return
        if self.capacity == 0 or len(self.keys) > self.threshold:
            self._resize()
        self._head -= 1
        self.keys[key] = self._head

    def put_all(self, keys: Iterable[Hashable]) -> None:
        for key in keys:
            self.put(key)

    def remove(self, key: Hashable) -> None:
        self.keys.pop(key, None)

    def __contains__(self, key: Hashable) -> bool:
        return key in self.keys

    def __len__(self) -> int:
        return len(self.keys)

    def order(self) -> list:
        """The keys in Java iteration order."""
        mask = self.capacity - 1
        h = self._hash
        keys = self.keys
        return sorted(keys, key=lambda k: (spread(h(k)) & mask, keys[k]))

    def first(self) -> Hashable:
        """`iterator().next()`: the first key in iteration order."""
        mask = self.capacity - 1
        h = self._hash
        keys = self.keys
        return min(keys, key=lambda k: (spread(h(k)) & mask, keys[k]))


@functools.lru_cache(maxsize=4096)
def final_capacity(
    count: int, initial_capacity: int | None = None, presize: int | None = None
) -> int:
    """Capacity of a fresh map after `count` distinct puts (no removals)."""
    table = JavaHashTable(hash, initial_capacity)
    if presize is not None:
        table.presize(presize)
    for i in range(count):
        table.put(i)
    return max(table.capacity, 1)


def hashmap_order(
    keys: Sequence[K],
    hashes: Sequence[int],
    initial_capacity: int | None = None,
    presize: int | None = None,
) -> list[K]:
    """Iteration order of a fresh `HashMap` after putting distinct `keys` in the given order.

    `presize` is the source size when the map is built as `new HashMap<>(otherMap)`.
    """
    if not keys:
        return []
    mask = final_capacity(len(keys), initial_capacity, presize) - 1
    buckets = [((h & _MASK32) ^ ((h & _MASK32) >> 16)) & mask for h in hashes]  # spread(h)
    return [keys[i] for _, i in sorted(zip(buckets, range(len(keys)), strict=True))]


def string_hashmap_order(keys: Sequence[str], initial_capacity: int | None = None) -> list[str]:
    """`hashmap_order` for String keys."""
    return hashmap_order(keys, [string_hash(k) for k in keys], initial_capacity)


# --- Kafka Uuid -------------------------------------------------------------------------------


def uuid_from_base64(text: str) -> tuple[int, int]:
    """Kafka `Uuid.fromString`: base64url (no padding) of 16 bytes -> (msb, lsb) signed longs."""
    padded = text + "=" * (-len(text) % 4)
    raw = base64.urlsafe_b64decode(padded)
    if len(raw) != 16:
        raise ValueError(f"not a Kafka topic id (16 bytes base64url): {text!r}")
    msb = int.from_bytes(raw[:8], "big", signed=True)
    lsb = int.from_bytes(raw[8:], "big", signed=True)
    return msb, lsb


def uuid_to_base64(msb: int, lsb: int) -> str:
    raw = (msb & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big") + (lsb & 0xFFFFFFFFFFFFFFFF).to_bytes(
        8, "big"
    )
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def uuid_hash(msb: int, lsb: int) -> int:
    """Kafka `Uuid.hashCode`: fold `msb ^ lsb` to 32 bits."""
    hilo = (msb ^ lsb) & 0xFFFFFFFFFFFFFFFF
    return to_int32((hilo >> 32) ^ (hilo & _MASK32))


def derived_topic_id(name: str) -> str:
    """Deterministic topic id for a scenario topic without one.

    The first 16 bytes of SHA-256 over `"kgroup-topic:" + name`, in Kafka's base64url form; a
    candidate whose text starts with "-" (Kafka never generates those) or that is one of Kafka's
    reserved ids is re-hashed with a counter suffix.
    """
    counter = 0
    while True:
        seed = f"kgroup-topic:{name}" if counter == 0 else f"kgroup-topic:{name}#{counter}"
        raw = hashlib.sha256(seed.encode("utf-8")).digest()[:16]
        text = base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
        msb = int.from_bytes(raw[:8], "big")
        lsb = int.from_bytes(raw[8:], "big")
        if not text.startswith("-") and not (msb == 0 and lsb in (0, 1)):
            return text
        counter += 1
