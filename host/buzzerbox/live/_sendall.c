/* The fanout's fast path (fanout.py, Fanout.send_steady): one non-blocking send() of
 * the same bytes to each of a list of sockets, the whole loop run with the GIL let go
 * once, as tests/bench/limit.c (the one-send limit) does. The Python loop beside it,
 * map(os.write) in fanout.py, is the reference and the fallback where this is not
 * built (a machine without a C compiler or Python's headers: pyproject marks the
 * extension optional). tests/live/test_fanout_send.py holds both to the same results.
 *
 *   send_all(fds: list[int], data: bytes) -> list[tuple[int, int]]
 *
 * Which of `fds` (by place) did not take all of `data`, with what each took: 0 if its
 * buffer was full (EAGAIN), -1 on any other error (a reset, a closed socket: the
 * phone is gone). An empty list when every socket took every byte. No signal is
 * raised for a socket the phone closed (MSG_NOSIGNAL); EINTR sends again.
 *
 * The caller keeps the numbers open for the call: the fanout holds its shard's lock,
 * which every close of a copy takes (shard.py, Shard.leave). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/types.h>

static PyObject *send_all(PyObject *self, PyObject *args) {
    PyObject *fds;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "O!y*:send_all", &PyList_Type, &fds, &data)) {
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(fds);
    int *numbers = PyMem_Malloc((n ? n : 1) * sizeof(int));
    Py_ssize_t *took = PyMem_Malloc((n ? n : 1) * sizeof(Py_ssize_t));
    PyObject *out = NULL;
    if (numbers == NULL || took == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long fd = PyLong_AsLong(PyList_GET_ITEM(fds, i));
        if (fd == -1 && PyErr_Occurred()) {
            goto done;
        }
        if (fd < 0 || fd > INT_MAX) {
            PyErr_Format(PyExc_ValueError,
                         "send_all: fds[%zd] is %ld: a file number is 0 to %d", i, fd, INT_MAX);
            goto done;
        }
        numbers[i] = (int)fd;
    }
    const char *buf = data.buf;
    size_t len = (size_t)data.len;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        ssize_t r;
        do {
            r = send(numbers[i], buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        } while (r < 0 && errno == EINTR);
        if (r < 0) {
            r = (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
        }
        took[i] = r;
    }
    Py_END_ALLOW_THREADS
    out = PyList_New(0);
    if (out == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (took[i] == (Py_ssize_t)len) {
            continue;
        }
        PyObject *item = Py_BuildValue("(nn)", i, took[i]);
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(out);
            goto done;
        }
        Py_DECREF(item);
    }
done:
    PyMem_Free(numbers);
    PyMem_Free(took);
    PyBuffer_Release(&data);
    return out;
}

static PyMethodDef methods[] = {
    {"send_all", send_all, METH_VARARGS,
     "send_all(fds, data) -> [(place, took)]: one non-blocking send() of data to each of\n"
     "fds, the GIL let go once for them all; the places that did not take it all."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "buzzerbox.live._sendall",
    "The fanout's one-send loop in C (fanout.py, Fanout.send_steady).", -1, methods,
};

PyMODINIT_FUNC PyInit__sendall(void) { return PyModule_Create(&module); }
