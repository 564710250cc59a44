/* The DecodedRecord slots the compiled paths read and write (_speedups.c's Scanner,
 * scan/_arrow_rows.c's Columns), and the check that finds their offsets.
 *
 * Source of truth: DecodedRecord.__slots__ (kgroup/offsets/decode.py); decode._SCANNER_SLOTS
 * lists the names in this enum's order and both types are built with that tuple.
 */
#ifndef KGROUP_RECORD_SLOTS_H
#define KGROUP_RECORD_SLOTS_H

#include <Python.h>
#include <structmember.h>

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

#endif
