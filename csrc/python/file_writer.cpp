// torch._C.PyTorchFileWriter: what torch.save writes its archive through (the zip itself is
// csrc/io/zip_writer.h). Opened on a path (the top-level folder is the file's name without its
// folder and extension, as upstream's) or on an object with write() (folder "archive"). Records
// come as bytes, str or a CPU torch.UntypedStorage; a raw address is refused.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>

#include "io/zip_writer.h"
#include "python/errors.h"
#include "python/init.h"
#include "python/tensor.h"

namespace tn::py {

bool is_storage(PyObject* o);     // storage.cpp
Storage storage_of(PyObject* o);  // storage.cpp

namespace {

struct WriterObject {
  PyObject_HEAD
  io::ZipWriter* zip;
  std::FILE* file;    // when opened on a path; closed at the end of the archive
  PyObject* buffer;   // when opened on an object with write()
};

WriterObject* W(PyObject* self) { return reinterpret_cast<WriterObject*>(self); }

// upstream's basename: no folder, no extension ("/a/b.pt" -> "b").
std::string archive_of(const std::string& path) {
  size_t start = 0;
  for (size_t i = 0; i < path.size(); ++i)
    if (path[i] == '/' || path[i] == '\\') start = i + 1;
  if (start >= path.size()) return "";
  size_t end = path.size();
  for (size_t i = end; i > start; --i)
    if (path[i - 1] == '.') {
      end = i - 1;
      break;
    }
  return path.substr(start, end - start);
}

std::string parent_of(const std::string& path) {
  size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

PyObject* writer_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"file", "compute_crc32", "storage_alignment", nullptr};
  PyObject* target;
  int crc = 1;
  unsigned long long alignment = 64;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|pK:PyTorchFileWriter",
                                   const_cast<char**>(kw), &target, &crc, &alignment))
    return nullptr;
  TN_PY_TRY
  PyObject* self = type->tp_alloc(type, 0);
  if (!self) return nullptr;
  WriterObject* w = W(self);
  w->zip = nullptr, w->file = nullptr, w->buffer = nullptr;
  io::WriteFn write;
  std::string archive = "archive";
  if (PyUnicode_Check(target)) {
    std::string path = PyUnicode_AsUTF8(target);
    archive = archive_of(path);
    TN_CHECK(!archive.empty(), "invalid file name: ", path);
    w->file = std::fopen(path.c_str(), "wb");
    std::string dir = parent_of(path);
    struct stat st;
    if (!dir.empty())
      TN_CHECK(stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode), "Parent directory ", dir,
               " does not exist.");
    TN_CHECK(w->file != nullptr, "File ", path, " cannot be opened.");
    std::FILE* f = w->file;
    write = [f](const void* p, size_t n) { return std::fwrite(p, 1, n, f); };
  } else if (PyObject_HasAttrString(target, "write")) {
    w->buffer = Py_NewRef(target);
    PyObject* buffer = target;
    write = [buffer](const void* p, size_t n) -> size_t {
      PyObject* r = PyObject_CallMethod(buffer, "write", "y#", static_cast<const char*>(p),
                                        static_cast<Py_ssize_t>(n));
      if (!r) throw PythonErrorSet();
      Py_DECREF(r);
      return n;
    };
  } else {
    Py_DECREF(self);
    PyErr_Format(PyExc_TypeError, "PyTorchFileWriter(): expected a file name (str) or an object "
                 "with write(), got %s", Py_TYPE(target)->tp_name);
    return nullptr;
  }
  try {
    w->zip = new io::ZipWriter(std::move(write), archive, crc != 0, alignment);
  } catch (...) {
    Py_DECREF(self);
    throw;
  }
  return self;
  TN_PY_CATCH(nullptr)
}

void writer_dealloc(PyObject* self) {
  WriterObject* w = W(self);
  delete w->zip;
  if (w->file) std::fclose(w->file);
  Py_XDECREF(w->buffer);
  Py_TYPE(self)->tp_free(self);
}

io::ZipWriter& Z(PyObject* self) {
  TN_CHECK(W(self)->zip, "PyTorchFileWriter: not initialised");
  return *W(self)->zip;
}

// write_record(name, data, size): data bytes, str or a CPU UntypedStorage holding >= size bytes.
PyObject* write_record(PyObject* self, PyObject* args) {
  const char* name;
  PyObject* data;
  unsigned long long size;
  if (!PyArg_ParseTuple(args, "sOK:write_record", &name, &data, &size)) return nullptr;
  TN_PY_TRY
  const void* p = nullptr;
  uint64_t have = 0;
  Storage keep;
  if (PyBytes_Check(data)) {
    p = PyBytes_AS_STRING(data);
    have = static_cast<uint64_t>(PyBytes_GET_SIZE(data));
  } else if (PyUnicode_Check(data)) {
    Py_ssize_t n;
    p = PyUnicode_AsUTF8AndSize(data, &n);
    if (!p) return nullptr;
    have = static_cast<uint64_t>(n);
  } else if (is_storage(data)) {
    keep = storage_of(data);
    TN_CHECK_KIND(keep->device().type == DeviceType::CPU, NotImplemented, "torchnative: "
                  "PyTorchFileWriter.write_record of a storage on ", keep->device().str(),
                  " (copy it to the CPU first)");
    p = keep->data();
    have = keep->nbytes();
  } else if (PyLong_Check(data)) {
    TN_FAIL(NotImplemented, "torchnative: PyTorchFileWriter.write_record from a raw address is "
            "not implemented (pass bytes, str or a storage)");
  } else {
    PyErr_Format(PyExc_TypeError, "write_record(): data must be bytes, str or a storage, not %s",
                 Py_TYPE(data)->tp_name);
    return nullptr;
  }
  TN_CHECK(size <= have, "write_record(): record ", name, " of ", size, " bytes, but the data "
           "holds ", have);
  TN_CHECK(p != nullptr || size == 0, "write_record(): record ", name, " has no data");
  Z(self).write_record(name, p, size);
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}

PyObject* write_record_metadata(PyObject*, PyObject*) {
  TN_PY_TRY
  TN_FAIL(NotImplemented, "torchnative: PyTorchFileWriter.write_record_metadata "
          "(torch.serialization.skip_data) is not implemented");
  TN_PY_CATCH(nullptr)
}

PyObject* write_end_of_file(PyObject* self, PyObject*) {
  TN_PY_TRY
  WriterObject* w = W(self);
  Z(self).write_end();
  if (w->file) {
    int rc = std::fclose(w->file);
    w->file = nullptr;
    TN_CHECK(rc == 0, "PytorchStreamWriter failed writing file ", Z(self).archive_name(), ": ",
             std::strerror(errno));
  }
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}

PyObject* set_min_version(PyObject* self, PyObject* arg) {
  unsigned long long v = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return nullptr;
  TN_PY_TRY
  Z(self).set_min_version(v);
  Py_RETURN_NONE;
  TN_PY_CATCH(nullptr)
}

PyObject* archive_name(PyObject* self, PyObject*) {
  TN_PY_TRY
  const std::string& n = Z(self).archive_name();
  return PyUnicode_FromStringAndSize(n.data(), static_cast<Py_ssize_t>(n.size()));
  TN_PY_CATCH(nullptr)
}

PyObject* serialization_id(PyObject* self, PyObject*) {
  TN_PY_TRY
  const std::string& n = Z(self).serialization_id();
  return PyUnicode_FromStringAndSize(n.data(), static_cast<Py_ssize_t>(n.size()));
  TN_PY_CATCH(nullptr)
}

PyObject* get_all_written_records(PyObject* self, PyObject*) {
  TN_PY_TRY
  PyObject* s = PySet_New(nullptr);
  if (!s) return nullptr;
  for (const std::string& n : Z(self).written()) {
    PyObject* u = PyUnicode_FromStringAndSize(n.data(), static_cast<Py_ssize_t>(n.size()));
    if (!u || PySet_Add(s, u) != 0) {
      Py_XDECREF(u);
      Py_DECREF(s);
      return nullptr;
    }
    Py_DECREF(u);
  }
  return s;
  TN_PY_CATCH(nullptr)
}

PyMethodDef writer_methods[] = {
    {"write_record", write_record, METH_VARARGS, nullptr},
    {"write_record_metadata", write_record_metadata, METH_VARARGS, nullptr},
    {"write_end_of_file", write_end_of_file, METH_NOARGS, nullptr},
    {"set_min_version", set_min_version, METH_O, nullptr},
    {"archive_name", archive_name, METH_NOARGS, nullptr},
    {"serialization_id", serialization_id, METH_NOARGS, nullptr},
    {"get_all_written_records", get_all_written_records, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject WriterType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch.PyTorchFileWriter";  // __module__ "torch", as torch/__init__.py sets it
  t.tp_basicsize = sizeof(WriterObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_new = writer_new;
  t.tp_dealloc = writer_dealloc;
  t.tp_methods = writer_methods;
  return t;
}();

}  // namespace

bool init_file_writer() {
  if (PyType_Ready(&WriterType) != 0) return false;
  return add("torch._C", "PyTorchFileWriter", Py_NewRef(reinterpret_cast<PyObject*>(&WriterType)));
}

}  // namespace tn::py
