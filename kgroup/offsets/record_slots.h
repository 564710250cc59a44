/* The DecodedRecord slots the compiled paths read and write (_speedups.c's Scanner,
 * LineWriter and CsvWriter, scan/_arrow_rows.c's Columns), the check that finds their
 * offsets, and what the writers derive from them as the Python code does.
 *
 * Source of truth: DecodedRecord.__slots__ (kgroup/offsets/decode.py); decode._SCANNER_SLOTS
 * lists the names in this enum's order and all these types are built with that tuple.
 * DecodedRecord.group and .tombstone, and the offset commit columns of kgroup/scan/rows.py
 * (RowBuilder.add), for the derived fields.
 */
#ifndef KGROUP_RECORD_SLOTS_H
#define KGROUP_RECORD_SLOTS_H

#include <Python.h>
#include <structmember.h>

#include "ext_types.h"

enum {
    S_SOURCE, S_PARTITION, S_POSITION, S_OFFSET, S_TIMESTAMP, S_PRODUCER_ID, S_PRODUCER_EPOCH,
    S_TRANSACTIONAL, S_CONTROL, S_KEY_TYPE, S_RECORD_TYPE, S_KEY, S_VALUE_VERSION, S_VALUE,
    S_ERROR, S_KEY_RAW, S_VALUE_RAW, S_LAYOUT, S_PENDING, NSLOTS
};

/* off[i] = byte offset of slot names[i] of `cls`; each must be a plain, writable object slot
 * of `cls` itself (a __slots__ member). -1 with a ValueError naming `who` otherwise. */
static int record_slot_offsets(PyTypeObject *type, PyObject *names, Py_ssize_t *off,
                               const char *who)
{
    if (!PyTuple_Check(names) || PyTuple_GET_SIZE(names) != NSLOTS) {
        PyErr_Format(PyExc_ValueError, "%s: %d slot names expected", who, NSLOTS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < NSLOTS; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        PyObject *descr = PyDict_GetItemWithError(type->tp_dict, name);
        if (descr == NULL || Py_TYPE(descr) != &PyMemberDescr_Type) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%s: %R is not a slot of %R", who, name, type);
            return -1;
        }
        PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READONLY) || m->offset <= 0 ||
            m->offset + (Py_ssize_t)sizeof(PyObject *) > type->tp_basicsize) {
            PyErr_Format(PyExc_ValueError, "%s: %R is not an object slot", who, name);
            return -1;
        }
        off[i] = m->offset;
    }
    return 0;
}

/* slot[i] = slot i of `rec` (borrowed), off[] as record_slot_offsets found them; -1 (no error
 * set) when one is unset, where Python would raise AttributeError. */
static inline int record_slots_read(PyObject *rec, const Py_ssize_t *off, PyObject **slot)
{
    for (int i = 0; i < NSLOTS; i++) {
        slot[i] = *(PyObject **)((char *)rec + off[i]);
        if (slot[i] == NULL) return -1;
    }
    return 0;
}

/* The raw bytes (borrowed) of a pending value in the form DecodedRecord.to_json writes
 * straight from its bytes, (record type, raw bytes); NULL for any other. */
static inline PyObject *pending_raw(PyObject *pending)
{
    if (!PyTuple_CheckExact(pending) || PyTuple_GET_SIZE(pending) != 2) return NULL;
    PyObject *raw = PyTuple_GET_ITEM(pending, 1);
    return PyBytes_CheckExact(raw) ? raw : NULL;
}

/* Whether records of this key type are offset commits (OffsetCommitKey versions 0 and 1). */
static inline int is_offset_commit(long key_type)
{
    return key_type == 0 || key_type == 1;
}

/* DecodedRecord.tombstone: a record that is not a control record, with no value (none
 * decoded, none pending, no raw bytes). */
static inline int record_tombstone(PyObject *const *slot)
{
    return slot[S_CONTROL] != Py_True && slot[S_PENDING] == Py_None && slot[S_VALUE] == Py_None &&
           slot[S_VALUE_RAW] == Py_None;
}

/* The key and value fields read below; F_TOPIC to F_EXPIRE_TIMESTAMP in the order of the
 * offset commit columns. */
enum {
    F_GROUP, F_GROUP_ID, F_TOPIC, F_PARTITION, F_OFFSET, F_LEADER_EPOCH, F_METADATA,
    F_COMMIT_TIMESTAMP, F_EXPIRE_TIMESTAMP, NFIELDS
};
#define OFFSET_COMMIT_COLUMNS (NFIELDS - F_TOPIC)

static PyObject *RECORD_FIELD[NFIELDS];

/* Interns the field names (at module init); -1 with an error set. */
static inline int record_fields_init(void)
{
    static const InternedName names[] = {
        {&RECORD_FIELD[F_GROUP], "group"},
        {&RECORD_FIELD[F_GROUP_ID], "group_id"},
        {&RECORD_FIELD[F_TOPIC], "topic"},
        {&RECORD_FIELD[F_PARTITION], "partition"},
        {&RECORD_FIELD[F_OFFSET], "offset"},
        {&RECORD_FIELD[F_LEADER_EPOCH], "leader_epoch"},
        {&RECORD_FIELD[F_METADATA], "metadata"},
        {&RECORD_FIELD[F_COMMIT_TIMESTAMP], "commit_timestamp"},
        {&RECORD_FIELD[F_EXPIRE_TIMESTAMP], "expire_timestamp"},
        {NULL, NULL},
    };
    return intern_names(names);
}

/* d.get(field) of a dict (borrowed): Py_None when missing, NULL with an error set. */
static inline PyObject *field_get(PyObject *d, int field)
{
    PyObject *v = PyDict_GetItemWithError(d, RECORD_FIELD[field]);
    return v != NULL ? v : (PyErr_Occurred() ? NULL : Py_None);
}

/* DecodedRecord.group of a key dict: key["group"], else key.get("group_id"); borrowed,
 * Py_None when neither is there, NULL with an error set. */
static inline PyObject *key_group(PyObject *key)
{
    PyObject *g = field_get(key, F_GROUP);
    return g == Py_None ? field_get(key, F_GROUP_ID) : g;
}

/* The offset commit columns of a record (rows.py): the key's topic and partition, then the
 * value's offset, leader_epoch, metadata, commit_timestamp and expire_timestamp (all None
 * without a value dict); borrowed, Py_None where missing. -1 with an error set. */
static inline int offset_commit_columns(PyObject *key, PyObject *value, PyObject **out)
{
    for (int i = 0; i < OFFSET_COMMIT_COLUMNS; i++) {
        int field = F_TOPIC + i;
        PyObject *d = field <= F_PARTITION ? key : value;
        out[i] = d == Py_None ? Py_None : field_get(d, field);
        if (out[i] == NULL) return -1;
    }
    return 0;
}

#endif
