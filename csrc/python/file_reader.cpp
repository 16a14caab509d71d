// torch._C.PyTorchFileReader: what torch.load reads a torch.save archive through (the zip
// itself is csrc/io/zip_reader.h). Opened on a path (read with pread, on demand) or on a
// file-like object (its bytes read once, from the start). Records come back as bytes, and a
// storage record as a uint8 tensor holding a copy of its bytes, as upstream's reader gives.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "io/zip_reader.h"
#include "python/dtype.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {
namespace {

// An open file the reader reads from; closed with the last reader that uses it.
struct File {
  int fd = -1;
  std::string path;
  ~File() {
    if (fd >= 0) close(fd);
  }
};

struct ReaderObject {
  PyObject_HEAD
  io::ZipReader* zip;
};

io::ZipReader& Z(PyObject* self) { return *reinterpret_cast<ReaderObject*>(self)->zip; }

std::unique_ptr<io::ZipReader> open_path(const char* path) {
  auto file = std::make_shared<File>();
  file->path = path;
  file->fd = open(path, O_RDONLY | O_CLOEXEC);
  TN_CHECK(file->fd >= 0, "open file failed because of errno ", errno, " on fopen: ",
           std::strerror(errno), ", file path: ", path);
  struct stat st;
  TN_CHECK(fstat(file->fd, &st) == 0, "cannot stat ", path, ": ", std::strerror(errno));
  auto read = [file](uint64_t offset, void* dst, uint64_t n) {
    char* p = static_cast<char*>(dst);
    while (n > 0) {
      ssize_t got = pread(file->fd, p, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      TN_CHECK(got > 0, "PytorchStreamReader failed reading file ", file->path, ": ",
               got < 0 ? std::strerror(errno) : "unexpected end of file");
      p += got, offset += static_cast<uint64_t>(got), n -= static_cast<uint64_t>(got);
    }
  };
  return std::make_unique<io::ZipReader>(read, static_cast<uint64_t>(st.st_size));
}

// A file-like object: seek(0) then read() once; the reader keeps the bytes.
std::unique_ptr<io::ZipReader> open_buffer(PyObject* buffer) {
  PyObject* r = PyObject_CallMethod(buffer, "seek", "i", 0);
  if (!r) throw PythonErrorSet();
  Py_DECREF(r);
  PyObject* data = PyObject_CallMethod(buffer, "read", nullptr);
  if (!data) throw PythonErrorSet();
  char* p;
  Py_ssize_t n;
  if (PyBytes_AsStringAndSize(data, &p, &n) != 0) {
    Py_DECREF(data);
    throw PythonErrorSet();
  }
  auto bytes = std::make_shared<std::string>(p, static_cast<size_t>(n));
  Py_DECREF(data);
  auto read = [bytes](uint64_t offset, void* dst, uint64_t len) {
    TN_CHECK(offset + len <= bytes->size(), "PytorchStreamReader failed reading the buffer: "
             "unexpected end of data");
    std::memcpy(dst, bytes->data() + offset, len);
  };
  return std::make_unique<io::ZipReader>(read, bytes->size());
}

PyObject* reader_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* src;
  if (kwargs && PyDict_Size(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "PyTorchFileReader() takes no keyword arguments");
    return nullptr;
  }
  if (!PyArg_ParseTuple(args, "O", &src)) return nullptr;
  TN_PY_TRY
  std::unique_ptr<io::ZipReader> zip;
  if (PyUnicode_Check(src)) {
    zip = open_path(PyUnicode_AsUTF8(src));
  } else if (PyObject_HasAttrString(src, "read") && PyObject_HasAttrString(src, "seek")) {
    zip = open_buffer(src);
  } else {
    PyErr_Format(PyExc_TypeError, "PyTorchFileReader(): expected a file name (str) or a "
                 "file-like object with read() and seek(), got %s", Py_TYPE(src)->tp_name);
    return nullptr;
  }
  PyObject* self = type->tp_alloc(type, 0);
  if (!self) return nullptr;
  reinterpret_cast<ReaderObject*>(self)->zip = zip.release();
  return self;
  TN_PY_CATCH(nullptr)
}

void reader_dealloc(PyObject* self) {
  delete reinterpret_cast<ReaderObject*>(self)->zip;
  Py_TYPE(self)->tp_free(self);
}

bool name_arg(PyObject* o, std::string* out) {
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "record name must be str, not %s", Py_TYPE(o)->tp_name);
    return false;
  }
  *out = PyUnicode_AsUTF8(o);
  return true;
}

PyObject* get_record(PyObject* self, PyObject* arg) {
  std::string name;
  if (!name_arg(arg, &name)) return nullptr;
  TN_PY_TRY
  uint64_t n = Z(self).size_of(name);
  PyObject* b = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(n));
  if (!b) return nullptr;
  try {
    Z(self).read(name, PyBytes_AS_STRING(b));
  } catch (...) {
    Py_DECREF(b);
    throw;
  }
  return b;
  TN_PY_CATCH(nullptr)
}

PyObject* has_record(PyObject* self, PyObject* arg) {
  std::string name;
  if (!name_arg(arg, &name)) return nullptr;
  return PyBool_FromLong(Z(self).has(name));
}

PyObject* get_all_records(PyObject* self, PyObject*) {
  const auto& names = Z(self).records();
  PyObject* l = PyList_New(static_cast<Py_ssize_t>(names.size()));
  if (!l) return nullptr;
  for (size_t k = 0; k < names.size(); ++k)
    PyList_SET_ITEM(l, k, PyUnicode_FromStringAndSize(names[k].data(), names[k].size()));
  return l;
}

template <uint64_t (io::ZipReader::*F)(const std::string&) const>
PyObject* record_number(PyObject* self, PyObject* arg) {
  std::string name;
  if (!name_arg(arg, &name)) return nullptr;
  TN_PY_TRY
  return PyLong_FromUnsignedLongLong((Z(self).*F)(name));
  TN_PY_CATCH(nullptr)
}

// get_storage_from_record(name, numel, dtype): numel elements of dtype (torch.UntypedStorage or
// any non-dtype: bytes) as a new 1-d tensor with a copy of the record's bytes.
PyObject* get_storage_from_record(PyObject* self, PyObject* args) {
  PyObject *name_obj, *dtype_obj;
  unsigned long long numel;
  if (!PyArg_ParseTuple(args, "OKO", &name_obj, &numel, &dtype_obj)) return nullptr;
  std::string name;
  if (!name_arg(name_obj, &name)) return nullptr;
  TN_PY_TRY
  ScalarType dt = is_dtype(dtype_obj) ? dtype_of(dtype_obj) : ScalarType::Byte;
  TN_CHECK_KIND(info(dt).supported, NotImplemented, "get_storage_from_record: torchnative has "
                "no dtype ", tn::name(dt));
  uint64_t have = Z(self).size_of(name);
  uint64_t want = 0;
  TN_CHECK(!__builtin_mul_overflow(numel, static_cast<uint64_t>(itemsize(dt)), &want) &&
               want <= static_cast<uint64_t>(INT64_MAX),
           "PytorchStreamReader: record ", name, ": ", numel, " elements of ", tn::name(dt),
           " overflow a storage size");
  TN_CHECK(have == want, "PytorchStreamReader: record ", name, " holds ", have, " bytes, but ",
           numel, " elements of ", tn::name(dt), " need ", want);
  // Not resizable, as upstream's: a tensor in the pickle that reaches past its record is then
  // refused by set_ instead of growing the storage over uninitialised bytes.
  Storage st = make<StorageImpl>(static_cast<size_t>(want), Device{}, false);
  Tensor t = make<TensorImpl>(st, dt, Dims{static_cast<int64_t>(numel)}, Dims{1}, 0,
                              Representation::DenseCPU);
  {
    PyThreadState* state = PyEval_SaveThread();
    try {
      Z(self).read(name, t->data_unchecked());
    } catch (...) {
      PyEval_RestoreThread(state);
      throw;
    }
    PyEval_RestoreThread(state);
  }
  return wrap_tensor(std::move(t));
  TN_PY_CATCH(nullptr)
}

PyObject* serialization_id(PyObject* self, PyObject*) {
  TN_PY_TRY
  const char* rec = ".data/serialization_id";
  std::string id = Z(self).has(rec) ? Z(self).read_string(rec) : std::string();
  return PyUnicode_FromStringAndSize(id.data(), static_cast<Py_ssize_t>(id.size()));
  TN_PY_CATCH(nullptr)
}

PyMethodDef reader_methods[] = {
    {"get_record", get_record, METH_O, nullptr},
    {"has_record", has_record, METH_O, nullptr},
    {"get_all_records", get_all_records, METH_NOARGS, nullptr},
    {"get_record_size", record_number<&io::ZipReader::size_of>, METH_O, nullptr},
    {"get_record_offset", record_number<&io::ZipReader::data_offset>, METH_O, nullptr},
    {"get_record_header_offset", record_number<&io::ZipReader::header_offset>, METH_O, nullptr},
    {"get_storage_from_record", get_storage_from_record, METH_VARARGS, nullptr},
    {"serialization_id", serialization_id, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject ReaderType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  // __module__ "torch": torch/__init__.py sets it so on every public class of torch._C, which a
  // static type would refuse.
  t.tp_name = "torch.PyTorchFileReader";
  t.tp_basicsize = sizeof(ReaderObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_new = reader_new;
  t.tp_dealloc = reader_dealloc;
  t.tp_methods = reader_methods;
  return t;
}();

}  // namespace

bool init_file_reader() {
  if (PyType_Ready(&ReaderType) != 0) return false;
  return add("torch._C", "PyTorchFileReader", Py_NewRef(reinterpret_cast<PyObject*>(&ReaderType)));
}

}  // namespace tn::py
