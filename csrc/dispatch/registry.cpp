// The operator registry (see registry.h).
#include "dispatch/registry.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/error.h"
#include "dispatch/schema.h"

namespace tn {
namespace {

const OpInfo kBuiltinOps[] = {
#include "ops_table.inc"
};

// Operators upstream's C++ registers outside native_functions.yaml (JIT builtins, profiler::,
// quantized::, ...), listed at build time from upstream's registry (tools/gen_extra_schemas.py).
const char* const kExtraSchemas[][2] = {
#include "extra_schemas.inc"
};

struct Registry {
  std::deque<OpInfo> ops;
  std::unordered_map<std::string, std::vector<int>> by_name;  // "ns::name"
  // Parsed lazily; read without the lock on the per-call path once set (never freed: the
  // registry lives for the process).
  std::deque<std::atomic<FunctionSchema*>> schemas;
  std::deque<std::atomic<const std::string*>> keys;  // op_key_ref's, as schemas
  std::deque<std::string> strings;  // owns the text of run-time ops
  std::mutex mutex;
  std::vector<std::string> errors;  // problems found while loading the built-in tables

  const char* keep(const std::string& s) { return strings.emplace_back(s).c_str(); }
  void index(int i) { by_name[std::string(ops[i].ns) + "::" + ops[i].name].push_back(i); }
};

int add_locked(Registry& r, const std::string& ns, const std::string& text,
               const std::string& tags, int library) {
  FunctionSchema parsed = parse_schema(text, ns);
  std::string base = parsed.name.substr(parsed.name.find("::") + 2);
  for (int i : r.by_name[ns + "::" + base]) {
    if (!r.ops[i].removed && parsed.overload == r.ops[i].overload)
      TN_FAIL(Runtime, "Tried to register an operator (", parsed.name,
              parsed.overload.empty() ? "" : "." + parsed.overload,
              ") with the same name and overload name multiple times.");
  }
  OpInfo op{};
  op.name = r.keep(base);
  op.overload = r.keep(parsed.overload);
  op.schema = r.keep(text.find("::") == std::string::npos ? text : text.substr(text.find("::") + 2));
  op.is_function = false;
  op.is_method = false;
  op.python_module = "";
  op.tags = r.keep(tags);
  op.ns = r.keep(ns);
  op.library = library;
  r.ops.push_back(op);
  r.schemas.emplace_back(new FunctionSchema(std::move(parsed)));
  r.keys.emplace_back(nullptr);
  int i = static_cast<int>(r.ops.size()) - 1;
  r.index(i);
  return i;
}

Registry& registry() {
  static Registry* r = [] {
    auto* x = new Registry;  // lives for the process
    for (const OpInfo& op : kBuiltinOps) {
      x->ops.push_back(op);
      x->schemas.emplace_back(nullptr);
      x->keys.emplace_back(nullptr);
      x->index(static_cast<int>(x->ops.size()) - 1);
    }
    // A bad or duplicate row is our bug: kept, not thrown (this runs inside arbitrary callers),
    // and the C++ tests fail on it (registry_errors()).
    for (const auto& extra : kExtraSchemas) {
      try {
        add_locked(*x, extra[0], extra[1], "", -1);
      } catch (const Error& e) {
        x->errors.emplace_back(e.what());
      }
    }
    return x;
  }();
  return *r;
}

}  // namespace

const std::deque<OpInfo>& all_ops() { return registry().ops; }

const std::vector<std::string>& registry_errors() { return registry().errors; }

const FunctionSchema& schema_of(size_t i) {
  Registry& r = registry();
  FunctionSchema* s = r.schemas[i].load(std::memory_order_acquire);
  if (s) return *s;
  std::lock_guard<std::mutex> lock(r.mutex);
  s = r.schemas[i].load(std::memory_order_relaxed);
  if (!s) {
    s = new FunctionSchema(parse_schema(r.ops[i].schema, r.ops[i].ns));
    r.schemas[i].store(s, std::memory_order_release);
  }
  return *s;
}

std::vector<int> overloads_of(const std::string& ns, const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<int> out;
  auto it = r.by_name.find(ns + "::" + name);
  if (it == r.by_name.end()) return out;
  for (int i : it->second)
    if (!r.ops[i].removed) out.push_back(i);
  return out;
}

int find_op_key(const std::string& key) {
  size_t sep = key.find("::");
  if (sep == std::string::npos) return -1;
  std::string rest = key.substr(sep + 2);
  size_t dot = rest.find('.');
  return find_op(key.substr(0, sep), rest.substr(0, dot),
                 dot == std::string::npos ? "" : rest.substr(dot + 1));
}

int find_op(const std::string& ns, const std::string& name, const std::string& overload) {
  for (int i : overloads_of(ns, name))
    if (overload == all_ops()[i].overload) return i;
  return -1;
}

int define_op(const std::string& ns, const std::string& schema_text, const std::string& tags,
              int library) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return add_locked(r, ns, schema_text, tags, library);
}

void remove_library_ops(int library) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (OpInfo& op : r.ops)
    if (op.library == library) op.removed = true;
}

std::string op_key(const OpInfo& op) {
  return std::string(op.ns) + "." + op.name + "." + (op.overload[0] ? op.overload : "default");
}

const std::string& op_key_ref(int i) {
  Registry& r = registry();
  const std::string* k = r.keys[i].load(std::memory_order_acquire);
  if (k) return *k;
  std::lock_guard<std::mutex> lock(r.mutex);
  k = r.keys[i].load(std::memory_order_relaxed);
  if (!k) {
    k = new std::string(op_key(r.ops[i]));  // lives for the process, as the registry
    r.keys[i].store(k, std::memory_order_release);
  }
  return *k;
}

}  // namespace tn
