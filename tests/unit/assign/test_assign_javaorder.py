"""Java hash-table order emulation against orders a real JVM produced.

`data/java_hash_order.tsv` was written by `data/JavaHashOrder.java` on OpenJDK 17 (command in
its header): each line is the construction mode, the initial capacity, the keys in insertion
order and the JVM's iteration order.
"""

from __future__ import annotations

from pathlib import Path

from kgroup.assign.javaorder import (
    derived_topic_id,
    hashmap_order,
    java_string_key,
    presize_for_copy,
    string_hash,
    topic_partition_hash,
    uuid_from_base64,
    uuid_hash,
    uuid_to_base64,
)

DATA = Path(__file__).parent / "data" / "java_hash_order.tsv"


def test_hashmap_iteration_order_matches_the_jvm() -> None:
    lines = DATA.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 60
    for line in lines:
        mode, cap, keys_text, order_text = line.split("\t")
        keys = keys_text.split(" ") if keys_text else []
        expected = order_text.split(" ") if order_text else []
        unique = list(dict.fromkeys(keys))
        hashes = [string_hash(k) for k in unique]
        if mode == "0":
            got = hashmap_order(unique, hashes)
        elif mode == "1":
            got = hashmap_order(unique, hashes, int(cap))
        elif mode == "2":
            got = hashmap_order(unique, hashes, presize_for_copy(len(keys)))
        else:
            got = hashmap_order(unique, hashes, None, presize=len(unique))
        assert got == expected, line


def test_string_hash_code() -> None:
    # values of "".hashCode(), "a".hashCode(), ... printed by a JVM
    assert string_hash("") == 0
    assert string_hash("a") == 97
    assert string_hash("orders") == -1008770331
    assert string_hash("tü") == 3848
    assert string_hash("\U0001f600") == 1772899


def test_topic_partition_hash_and_java_string_order() -> None:
    assert topic_partition_hash("a", 0) == 31 * 31 + 97
    # U+1F600 is a surrogate pair in Java, so it sorts before U+FFFD
    assert sorted(["\ufffd", "\U0001f600"], key=java_string_key) == ["\U0001f600", "\ufffd"]


def test_uuid_round_trip_hash_and_derived_ids() -> None:
    msb, lsb = uuid_from_base64("AAAAAAAAAAEAAAAAAAAAAg")
    assert (msb, lsb) == (1, 2)
    assert uuid_to_base64(msb, lsb) == "AAAAAAAAAAEAAAAAAAAAAg"
    assert uuid_hash(1, 2) == 3
    ident = derived_topic_id("orders")
    assert ident == derived_topic_id("orders") and len(ident) == 22
    assert not ident.startswith("-")


OPS = Path(__file__).parent / "data" / "java_hash_ops.tsv"


def test_put_compute_if_absent_and_remove_match_the_jvm() -> None:
    # data/JavaHashOps.java: computeIfAbsent resizes before inserting and links the new key at
    # the head of its bucket; put appends and resizes after (what the uniform builders rely on)
    from kgroup.assign.javaorder import JavaHashTable

    lines = OPS.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 80
    heads = 0
    for line in lines:
        cap, ops_text, order_text = line.split("\t")
        table = JavaHashTable(string_hash, None if cap == "-1" else int(cap))
        for op in ops_text.split(",") if ops_text else []:
            kind, key = op.split(" ")
            if kind == "P":
                table.put(key)
            elif kind == "C":
                heads += 1
                table.compute_if_absent(key)
            else:
                table.remove(key)
        expected = order_text.split(" ") if order_text else []
        got = table.order() if len(table) else []
        assert got == expected, line
    assert heads > 500


def test_compute_if_absent_puts_a_colliding_key_first() -> None:
    # issue 17 case 2: two topic ids in one bucket; the copy `new HashMap<>(1)` of {t0} then
    # computeIfAbsent(t1) iterates t1, t0 (put would give t0, t1)
    from kgroup.assign.javaorder import JavaHashTable

    t0 = uuid_hash(*uuid_from_base64("Ai5BngzmkRnsRx5kXfjBlw"))
    t1 = uuid_hash(*uuid_from_base64("iOZRTS6ozwE5GTxk-12VcQ"))
    hashes = {"t0": t0, "t1": t1}
    table = JavaHashTable(hashes.__getitem__, 1)
    table.put("t0")
    table.compute_if_absent("t1")
    assert table.order() == ["t1", "t0"]
    assert hashmap_order(["t1", "t0"], [t1, t0]) == ["t1", "t0"]  # replayed in that order
    table = JavaHashTable(hashes.__getitem__, 1)
    table.put("t0")
    table.put("t1")
    assert table.order() == ["t0", "t1"]
