/* What the extension types of the compiled modules (_speedups.c, scan/_arrow_rows.c) share:
 * one traverse, clear and dealloc driven by each type's list of the references it owns, the
 * fields every type sets alike, interned names, and the module made with its types.
 *
 * Source of truth: the CPython C API, "Supporting Cyclic Garbage Collection" (tp_traverse,
 * tp_clear, tp_dealloc of a Py_TPFLAGS_HAVE_GC type) and PyModule_AddType.
 */
#ifndef KGROUP_EXT_TYPES_H
#define KGROUP_EXT_TYPES_H

#include <Python.h>
#include <stddef.h>

/* A static type with what ext_traverse, ext_clear and ext_dealloc need. No type here is
 * subclassable (no Py_TPFLAGS_BASETYPE), so Py_TYPE(self) of an instance is its ExtType. */
typedef struct {
    PyTypeObject type;
    const Py_ssize_t *refs;          /* offsets of the object references it owns, ended by 0 */
    void (*release)(PyObject *self); /* frees its other memory in dealloc, or NULL */
} ExtType;

#define EXT_REFS(self) (((const ExtType *)Py_TYPE(self))->refs)
#define EXT_REF(self, off) (*(PyObject **)((char *)(self) + (off)))

static int ext_traverse(PyObject *self, visitproc visit, void *arg)
{
    for (const Py_ssize_t *off = EXT_REFS(self); *off; off++) Py_VISIT(EXT_REF(self, *off));
    return 0;
}

static int ext_clear(PyObject *self)
{
    for (const Py_ssize_t *off = EXT_REFS(self); *off; off++) Py_CLEAR(EXT_REF(self, *off));
    return 0;
}

static void ext_dealloc(PyObject *self)
{
    void (*release)(PyObject *) = ((const ExtType *)Py_TYPE(self))->release;
    PyObject_GC_UnTrack(self);
    ext_clear(self);
    if (release != NULL) release(self);
    Py_TYPE(self)->tp_free(self);
}

/* The PyTypeObject fields of type `Name` of module EXT_MODULE (defined by the including
 * file): a garbage-collected object made by PyType_GenericNew, set up by Name_init. */
#define EXT_TYPE(Name, doc)                                                                  \
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = EXT_MODULE "." #Name,                           \
    .tp_basicsize = sizeof(Name), .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,       \
    .tp_doc = doc, .tp_new = PyType_GenericNew, .tp_init = (initproc)Name##_init,            \
    .tp_dealloc = ext_dealloc, .tp_traverse = ext_traverse

/* A module-level str made once: *ref = the interned text. */
typedef struct {
    PyObject **ref;
    const char *text;
} InternedName;

/* Interns every name of a table ended by {NULL, NULL}; -1 with an error set. */
static inline int intern_names(const InternedName *names)
{
    for (; names->ref != NULL; names++) {
        *names->ref = PyUnicode_InternFromString(names->text);
        if (*names->ref == NULL) return -1;
    }
    return 0;
}

/* The module of `def` with the n `types` added under their short names, or NULL. */
static inline PyObject *ext_module(PyModuleDef *def, ExtType *const *types, int n)
{
    PyObject *m = PyModule_Create(def);
    for (int i = 0; m != NULL && i < n; i++) {
        if (PyModule_AddType(m, &types[i]->type) < 0) Py_CLEAR(m);
    }
    return m;
}

#endif
