// torch._C.StorageBase (the base of torch.UntypedStorage): a Python view of a core Storage.
// Enough for checkpoints: from_file (mmap, as safetensors' loader uses), byte indexing and
// slicing (a slice shares memory), nbytes/data_ptr/device/_cdata, resize_, and
// Tensor.untyped_storage(), the legacy format's _write_file/_set_from_file (pickle and deepcopy
// of tensors). Shared-memory transport refuses by name for now.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "python/device.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

PyObject* make_builtin(const PyMethodDef& proto, const char* name, PyObject* self);

namespace {

struct StorageObject {
  PyObject_HEAD
  StorageImpl* impl;  // owned reference
  PyObject* dict;
  PyObject* weakrefs;
};

extern PyTypeObject StorageBaseType;

StorageImpl* S(PyObject* self) { return reinterpret_cast<StorageObject*>(self)->impl; }

// The Python class storages come back as (torch.UntypedStorage, once torch has defined it).
PyTypeObject* storage_class() {
  static PyTypeObject* cls = nullptr;
  if (cls) return cls;
  PyObject* torch = PyImport_ImportModule("torch");
  PyObject* c = torch ? PyObject_GetAttrString(torch, "UntypedStorage") : nullptr;
  Py_XDECREF(torch);
  if (!c) {
    PyErr_Clear();
    return &StorageBaseType;
  }
  cls = reinterpret_cast<PyTypeObject*>(c);  // kept for the process
  return cls;
}

PyObject* wrap(Storage s, PyTypeObject* type = nullptr) {
  if (!type) type = storage_class();
  PyObject* o = type->tp_alloc(type, 0);
  if (o) reinterpret_cast<StorageObject*>(o)->impl = s.release();
  return o;
}

// UntypedStorage(), UntypedStorage(nbytes), UntypedStorage([byte values]), device=...
PyObject* storage_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"arg", "device", nullptr};
  PyObject* arg = nullptr;
  PyObject* device = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$O:UntypedStorage", const_cast<char**>(kw),
                                   &arg, &device))
    return nullptr;
  Device d;
  if (device != Py_None && !parse_device(device, &d)) return nullptr;
  TN_PY_TRY
  if (!arg) return wrap(make<StorageImpl>(0, d, true), type);
  if (PyLong_Check(arg)) {
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (n == -1 && PyErr_Occurred()) return nullptr;
    TN_CHECK_KIND(!overflow, Value, "Overflow when unpacking long long");
    // A negative size wraps to a huge one, which cpu_alloc refuses as upstream's allocator.
    return wrap(make<StorageImpl>(static_cast<size_t>(n), d, true), type);
  }
  PyObject* seq = PySequence_Fast(arg, "UntypedStorage(): expected a size or a sequence");
  if (!seq) return nullptr;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  Storage s = make<StorageImpl>(static_cast<size_t>(n), d, true);
  auto* p = static_cast<uint8_t*>(s->data());
  for (Py_ssize_t i = 0; i < n; ++i) {
    long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    if (v == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return nullptr;
    }
    if (p) p[i] = static_cast<uint8_t>(v);
  }
  Py_DECREF(seq);
  return wrap(s, type);
  TN_PY_CATCH(nullptr)
}

void storage_dealloc(PyObject* self) {
  auto* o = reinterpret_cast<StorageObject*>(self);
  PyObject_GC_UnTrack(self);
  if (o->weakrefs) PyObject_ClearWeakRefs(self);
  Py_CLEAR(o->dict);
  if (o->impl) o->impl->decref();
  Py_TYPE(self)->tp_free(self);
}

int storage_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<StorageObject*>(self)->dict);
  return 0;
}

PyObject* m_nbytes(PyObject* self, PyObject*) { return PyLong_FromSize_t(S(self)->nbytes()); }
PyObject* m_data_ptr(PyObject* self, PyObject*) {
  return PyLong_FromVoidPtr(S(self)->data());
}
PyObject* m_element_size(PyObject*, PyObject*) { return PyLong_FromLong(1); }
PyObject* m_resizable(PyObject* self, PyObject*) { return PyBool_FromLong(S(self)->resizable()); }
PyObject* m_is_shared(PyObject*, PyObject*) { Py_RETURN_FALSE; }
Py_ssize_t m_len(PyObject* self) { return static_cast<Py_ssize_t>(S(self)->nbytes()); }
PyObject* get_device(PyObject* self, void*) { return device_object(S(self)->device()); }
PyObject* get_cdata(PyObject* self, void*) { return PyLong_FromVoidPtr(S(self)); }

PyObject* m_resize(PyObject* self, PyObject* arg) {
  TN_PY_TRY
  int overflow = 0;
  long long n = PyLong_AsLongLongAndOverflow(arg, &overflow);
  if (n == -1 && PyErr_Occurred()) return nullptr;
  TN_CHECK_KIND(!overflow, Value, "Overflow when unpacking long long");  // upstream's text
  S(self)->resize(static_cast<size_t>(n));
  return Py_NewRef(self);
  TN_PY_CATCH(nullptr)
}

// storage[i] -> int byte; storage[a:b] -> a storage over the same bytes (kept alive by this one).
PyObject* storage_getitem(PyObject* self, PyObject* key) {
  StorageImpl* s = S(self);
  if (s->device().type != DeviceType::CPU) {
    PyErr_SetString(PyExc_NotImplementedError, "Not available for 'meta' device type");
    return nullptr;
  }
  Py_ssize_t n = static_cast<Py_ssize_t>(s->nbytes());
  if (PyIndex_Check(key)) {
    Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred()) return nullptr;
    if (i < 0) i += n;
    if (i < 0 || i >= n) {
      PyErr_Format(PyExc_IndexError, "index %zd out of range for storage of size %zd", i, n);
      return nullptr;
    }
    return PyLong_FromLong(static_cast<uint8_t*>(s->data())[i]);
  }
  if (PySlice_Check(key)) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(key, &start, &stop, &step) < 0) return nullptr;
    Py_ssize_t len = PySlice_AdjustIndices(n, &start, &stop, step);
    if (step != 1) {
      PyErr_Format(PyExc_RuntimeError, "Trying to slice with a step of %zd, but only a step of "
                   "1 is supported", step);
      return nullptr;
    }
    s->incref();  // the slice keeps its parent's bytes alive
    Storage view = make<StorageImpl>(static_cast<char*>(s->data()) + start,
                                     static_cast<size_t>(len), s->device(),
                                     [s](void*) { s->decref(); }, false);
    return wrap(view);
  }
  PyErr_Format(PyExc_TypeError, "can't index a torch.UntypedStorage with %s",
               Py_TYPE(key)->tp_name);
  return nullptr;
}

int storage_setitem(PyObject* self, PyObject* key, PyObject* value) {
  StorageImpl* s = S(self);
  if (!value || !PyIndex_Check(key) || !PyLong_Check(value)) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "torchnative: storage assignment supports storage[int] = int only");
    return -1;
  }
  Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
  Py_ssize_t n = static_cast<Py_ssize_t>(s->nbytes());
  if (i < 0) i += n;
  if (i < 0 || i >= n) {
    PyErr_Format(PyExc_IndexError, "index %zd out of range for storage of size %zd", i, n);
    return -1;
  }
  long v = PyLong_AsLong(value);  // wraps into a byte, as upstream (300 -> 44)
  if (v == -1 && PyErr_Occurred()) return -1;
  static_cast<uint8_t*>(s->data())[i] = static_cast<uint8_t>(v);
  return 0;
}

// from_file(filename, shared=False, nbytes=0): the file's bytes through mmap (MAP_SHARED when
// shared, else copy-on-write). nbytes=0 maps the whole file.
PyObject* m_from_file(PyObject* cls, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"filename", "shared", "nbytes", nullptr};
  const char* filename;
  int shared = 0;
  Py_ssize_t nbytes = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|pn:from_file", const_cast<char**>(kw),
                                   &filename, &shared, &nbytes))
    return nullptr;
  int fd = open(filename, shared ? O_RDWR : O_RDONLY);
  if (fd < 0) return PyErr_SetFromErrnoWithFilename(PyExc_OSError, filename);
  struct stat st;
  fstat(fd, &st);
  size_t size = nbytes > 0 ? static_cast<size_t>(nbytes) : static_cast<size_t>(st.st_size);
  if (static_cast<off_t>(size) > st.st_size) {
    close(fd);
    PyErr_Format(PyExc_RuntimeError, "unexpected file size %lld, expected at least %zu",
                 static_cast<long long>(st.st_size), size);
    return nullptr;
  }
  void* p = nullptr;
  if (size > 0) {
    p = mmap(nullptr, size, PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      close(fd);
      return PyErr_SetFromErrnoWithFilename(PyExc_OSError, filename);
    }
  }
  close(fd);
  Storage s = make<StorageImpl>(p, size, Device{}, [size](void* q) {
    if (q) munmap(q, size);
  }, false);
  PyTypeObject* type = PyType_Check(cls) ? reinterpret_cast<PyTypeObject*>(cls) : nullptr;
  return wrap(s, type);
}

// The legacy (pre-zip) format's storage records, which pickle.dumps of a tensor and
// copy.deepcopy of a module go through: an int64 element count (little-endian), then the bytes.
// A "real file" is written and read through its descriptor, as upstream's; anything else
// through write() and read().
bool write_all_fd(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= static_cast<size_t>(w);
  }
  return true;
}
bool write_py(PyObject* file, const char* p, size_t n) {
  PyObject* r = PyObject_CallMethod(file, "write", "y#", p, static_cast<Py_ssize_t>(n));
  Py_XDECREF(r);
  return r != nullptr;
}

// _write_file(file, is_real_file, save_size, element_size)
PyObject* m_write_file(PyObject* self, PyObject* args) {
  PyObject *file, *real, *save_size;
  unsigned long long element_size;
  if (!PyArg_ParseTuple(args, "OOOK:_write_file", &file, &real, &save_size, &element_size))
    return nullptr;
  StorageImpl* st = S(self);
  if (st->device().type != DeviceType::CPU) {
    PyErr_Format(PyExc_NotImplementedError, "torchnative: _write_file of a storage on %s",
                 st->device().str().c_str());
    return nullptr;
  }
  if (element_size == 0) {
    PyErr_SetString(PyExc_RuntimeError, "_write_file: element size must be positive");
    return nullptr;
  }
  const size_t nbytes = st->nbytes();
  if (!st->data() && nbytes != 0) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Attempted to call _write_file() on an invalid python storage.");
    return nullptr;
  }
  int64_t numel = static_cast<int64_t>(nbytes / element_size);
  const char* data = static_cast<const char*>(st->data());
  if (real == Py_True) {
    int fd = PyObject_AsFileDescriptor(file);
    if (fd < 0) return nullptr;
    bool ok = true;
    Py_BEGIN_ALLOW_THREADS
    ok = (save_size != Py_True || write_all_fd(fd, reinterpret_cast<const char*>(&numel), 8)) &&
         write_all_fd(fd, data, nbytes);
    Py_END_ALLOW_THREADS
    if (!ok) return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
  }
  if (save_size == Py_True && !write_py(file, reinterpret_cast<const char*>(&numel), 8))
    return nullptr;
  if (nbytes > 0 && !write_py(file, data, nbytes)) return nullptr;
  Py_RETURN_NONE;
}

// Reads exactly n bytes into dst from file's read() (false with a Python error set otherwise).
bool read_py(PyObject* file, char* dst, size_t n) {
  PyObject* b = PyObject_CallMethod(file, "read", "n", static_cast<Py_ssize_t>(n));
  if (!b) return false;
  char* p;
  Py_ssize_t got;
  if (PyBytes_AsStringAndSize(b, &p, &got) != 0) {
    Py_DECREF(b);
    return false;
  }
  bool ok = static_cast<size_t>(got) == n;
  if (ok) std::memcpy(dst, p, n);
  Py_DECREF(b);
  if (!ok) PyErr_SetString(PyExc_RuntimeError, "unexpected EOF, expected more bytes. The file "
                           "might be corrupted.");
  return ok;
}
bool read_all_fd(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= static_cast<size_t>(r);
  }
  return true;
}

// _set_from_file(file, offset, is_real_file, element_size): fills this storage from a record
// (its element count must give this storage's size); returns self.
PyObject* m_set_from_file(PyObject* self, PyObject* args) {
  PyObject *file, *offset, *real;
  unsigned long long element_size;
  if (!PyArg_ParseTuple(args, "OOOK:_set_from_file", &file, &offset, &real, &element_size))
    return nullptr;
  StorageImpl* st = S(self);
  if (st->device().type != DeviceType::CPU) {
    PyErr_Format(PyExc_NotImplementedError, "torchnative: _set_from_file into a storage on %s",
                 st->device().str().c_str());
    return nullptr;
  }
  char* data = static_cast<char*>(st->data());
  int64_t numel = 0;
  auto check_size = [&]() {
    unsigned long long want = 0;
    if (numel < 0 || __builtin_mul_overflow(static_cast<unsigned long long>(numel), element_size,
                                            &want) || want != st->nbytes()) {
      PyErr_Format(PyExc_RuntimeError, "storage has wrong byte size: expected %lld got %zu",
                   static_cast<long long>(numel) * static_cast<long long>(element_size),
                   st->nbytes());
      return false;
    }
    return true;
  };
  if (real != Py_True) {
    if (offset != Py_None) {
      PyErr_SetString(PyExc_RuntimeError, "_set_from_file: offset is NYI for filelike objects");
      return nullptr;
    }
    if (!read_py(file, reinterpret_cast<char*>(&numel), 8) || !check_size()) return nullptr;
    if (st->nbytes() > 0 && !read_py(file, data, st->nbytes())) return nullptr;
    return Py_NewRef(self);
  }
  int fd = PyObject_AsFileDescriptor(file);
  if (fd < 0) return nullptr;
  const off_t original = lseek(fd, 0, SEEK_CUR);
  if (offset != Py_None) {
    long long at = PyLong_AsLongLong(offset);
    if (at == -1 && PyErr_Occurred()) return nullptr;
    lseek(fd, static_cast<off_t>(at), SEEK_SET);
  }
  bool ok = read_all_fd(fd, reinterpret_cast<char*>(&numel), 8);
  if (ok && !check_size()) return nullptr;
  if (ok) {
    Py_BEGIN_ALLOW_THREADS
    ok = read_all_fd(fd, data, st->nbytes());
    Py_END_ALLOW_THREADS
  }
  if (!ok) {
    PyErr_SetString(PyExc_RuntimeError, "unexpected EOF, expected more bytes. The file might be "
                    "corrupted.");
    return nullptr;
  }
  const off_t now = lseek(fd, 0, SEEK_CUR);
  lseek(fd, original, SEEK_SET);
  PyObject* r = PyObject_CallMethod(file, "seek", "Li", static_cast<long long>(now), 0);
  if (!r) return nullptr;
  Py_DECREF(r);
  return Py_NewRef(self);
}

// copy_(src, non_blocking=False): src's bytes into this storage, of the same size (CPU).
PyObject* m_copy(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"src", "non_blocking", nullptr};
  PyObject* src;
  int non_blocking = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:copy_", const_cast<char**>(kw), &src,
                                   &non_blocking))
    return nullptr;
  if (!PyObject_TypeCheck(src, &StorageBaseType)) {
    PyErr_Format(PyExc_TypeError, "copy_(): expected a storage, got %s", Py_TYPE(src)->tp_name);
    return nullptr;
  }
  StorageImpl *dst = S(self), *from = S(src);
  if (dst->nbytes() != from->nbytes()) {
    PyErr_Format(PyExc_RuntimeError, "size does not match, self was %zu bytes but src was %zu "
                 "bytes", dst->nbytes(), from->nbytes());
    return nullptr;
  }
  if (dst->device().type != DeviceType::CPU || from->device().type != DeviceType::CPU) {
    PyErr_SetString(PyExc_NotImplementedError,
                    "torchnative: storage copy_ between devices other than the CPU");
    return nullptr;
  }
  if (dst->nbytes() > 0 && dst->data() != from->data())
    std::memmove(dst->data(), from->data(), dst->nbytes());
  return Py_NewRef(self);
}

PyObject* m_refuse(PyObject*, PyObject*) {
  PyErr_SetString(PyExc_NotImplementedError,
                  "this storage method (shared memory) is not implemented by "
                  "torchnative yet");
  return nullptr;
}

PyMethodDef storage_methods[] = {
    {"nbytes", m_nbytes, METH_NOARGS, nullptr},
    {"data_ptr", m_data_ptr, METH_NOARGS, nullptr},
    {"element_size", m_element_size, METH_NOARGS, nullptr},
    {"resizable", m_resizable, METH_NOARGS, nullptr},
    {"is_shared", m_is_shared, METH_NOARGS, nullptr},
    {"resize_", m_resize, METH_O, nullptr},
    {"from_file", reinterpret_cast<PyCFunction>(m_from_file),
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, nullptr},
    {"_write_file", m_write_file, METH_VARARGS, nullptr},
    {"_set_from_file", m_set_from_file, METH_VARARGS, nullptr},
    {"copy_", reinterpret_cast<PyCFunction>(m_copy), METH_VARARGS | METH_KEYWORDS, nullptr},
    {"_share_filename_cpu_", m_refuse, METH_VARARGS, nullptr},
    {"_share_fd_cpu_", m_refuse, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef storage_getset[] = {{"device", get_device, nullptr, nullptr, nullptr},
                                {"_cdata", get_cdata, nullptr, nullptr, nullptr},
                                {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMappingMethods storage_mapping = {m_len, storage_getitem, storage_setitem};

PyTypeObject StorageBaseType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch._C.StorageBase";
  t.tp_basicsize = sizeof(StorageObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
  t.tp_new = storage_new;
  t.tp_dealloc = storage_dealloc;
  t.tp_traverse = storage_traverse;
  t.tp_dictoffset = offsetof(StorageObject, dict);
  t.tp_weaklistoffset = offsetof(StorageObject, weakrefs);
  t.tp_methods = storage_methods;
  t.tp_getset = storage_getset;
  t.tp_as_mapping = &storage_mapping;
  return t;
}();

// Tensor.untyped_storage()
PyObject* tensor_untyped_storage(PyObject* self, PyObject*) {
  return wrap(impl_of(self)->storage());
}
PyMethodDef untyped_storage_def = {"untyped_storage", tensor_untyped_storage, METH_NOARGS,
                                   nullptr};

}  // namespace

bool is_storage(PyObject* o) { return PyObject_TypeCheck(o, &StorageBaseType); }
Storage storage_of(PyObject* o) { return Storage(S(o)); }

bool init_storage() {
  if (PyType_Ready(&StorageBaseType) != 0) return false;
  if (!add("torch._C", "StorageBase", Py_NewRef(reinterpret_cast<PyObject*>(&StorageBaseType))))
    return false;
  PyObject* m = PyDescr_NewMethod(&TensorBaseType, &untyped_storage_def);
  int rc = PyDict_SetItemString(TensorBaseType.tp_dict, "untyped_storage", m);
  Py_DECREF(m);
  PyType_Modified(&TensorBaseType);
  return rc == 0;
}

// A new torch.UntypedStorage object over s (a dispatch mode's arguments, the binder's results).
PyObject* storage_object(const Storage& s) { return wrap(s); }

}  // namespace tn::py
