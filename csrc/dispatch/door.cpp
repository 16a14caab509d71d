// The door: per-op kernel tables by dispatch key, and dispatch (see kernel.h, keys.h and
// docs/ARCHITECTURE.md, "The life of one call"). Every operator call, whatever its Python
// spelling, arrives at dispatch() with bound arguments.
#include <array>
#include <atomic>
#include <cstring>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "core/backend.h"
#include "dispatch/kernel.h"

namespace tn {

LocalKeys& local_keys() {
  static thread_local LocalKeys keys;
  return keys;
}

const char* dispatch_key_name(DispatchKey k) {
  switch (k) {
#define TN_KEY_NAME(e, name, rep_name) \
  case DispatchKey::e: return #e;
    TN_FORALL_BACKENDS(TN_KEY_NAME)
#undef TN_KEY_NAME
    case DispatchKey::Python: return "Python";
    case DispatchKey::Negative: return "Negative";
    case DispatchKey::Conjugate: return "Conjugate";
    case DispatchKey::ADInplaceOrView: return "ADInplaceOrView";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::Capture: return "Capture";
  }
  return "?";
}

namespace {

// One op's kernels: what was registered per slot, and the table computed from it (Note
// [Computing an op's table] below). Read lock-free on the per-call path; rewritten under the
// door's mutex when a registration changes it.
struct OpTable {
  std::array<Kernel, kNumKernelSlots> registered{};
  KernelFn rule = nullptr;  // a structured op's shared rule
  std::array<bool, kNumDeviceTypes> computes{};  // which back-end slots hold its computes
  std::array<std::string, kNumKernelSlots> sources{};  // where each registration came from
  std::array<Kernel, kNumDispatchKeys> table{};
  KeySet mask = 0;  // the keys whose table slot holds a kernel
  bool any = false;  // some kernel of its own was registered (implemented_ops)
};

// Dense storage by op index, in chunks that never move (ops are added at run time).
constexpr int kChunkBits = 10;
constexpr int kChunkSize = 1 << kChunkBits;
constexpr int kMaxChunks = 256;

struct Pending {
  const char* key;
  KernelSlot slot;
  KernelFn fn;
  KernelFn rule;      // structured: the rule, registered with the CPU compute
  bool compute;       // a structured op's compute (for the back end `slot`)
};

std::vector<Pending>& pending() {
  static auto* p = new std::vector<Pending>;
  return *p;
}

struct Fallback {
  Kernel kernel;
  bool (*applies)(int) = nullptr;
};

// A slot's run-time registrations (torch.library's), newest last; the newest is the slot's
// kernel, and removing it brings back the one it hid (handle 0: the kernel the slot held before
// its first override).
struct Registration {
  int handle;
  Kernel kernel;
  std::string source;
};

struct Door {
  std::atomic<OpTable*> chunks[kMaxChunks]{};
  std::map<std::pair<int, int>, std::vector<Registration>> overrides;
  int next_handle = 1;
  std::array<Fallback, kNumDispatchKeys> fallbacks{};
  std::atomic<bool> all_resolved{false};
  size_t resolved = 0;  // how many of pending() are in the tables
  std::recursive_mutex mutex;
  std::vector<std::string> errors;
};

Door& door() {
  static auto* d = new Door;
  return *d;
}

// "aten::add.Tensor" -> op index, or -1.
int resolve_key(const std::string& key) { return find_op_key(key); }

// The table of op i, made on first need (under the mutex).
OpTable& table_locked(int op) {
  Door& d = door();
  int c = op >> kChunkBits;
  TN_ASSERT(c < kMaxChunks);
  OpTable* chunk = d.chunks[c].load(std::memory_order_acquire);
  if (!chunk) {
    chunk = new OpTable[kChunkSize];
    d.chunks[c].store(chunk, std::memory_order_release);
  }
  return chunk[op & (kChunkSize - 1)];
}

bool is_backend_slot(int s) { return s < static_cast<int>(KernelSlot::CompositeImplicit); }

int slot_of_key(DispatchKey k) {
  switch (k) {
    case DispatchKey::Python: return static_cast<int>(KernelSlot::Python);
    case DispatchKey::Negative: return static_cast<int>(KernelSlot::Negative);
    case DispatchKey::Conjugate: return static_cast<int>(KernelSlot::Conjugate);
    case DispatchKey::ADInplaceOrView: return static_cast<int>(KernelSlot::ADInplaceOrView);
    case DispatchKey::Autograd: return static_cast<int>(KernelSlot::Autograd);
    case DispatchKey::Capture: return static_cast<int>(KernelSlot::Capture);
    default: return static_cast<int>(k);  // back ends: slot number = key number
  }
}

// Note [Computing an op's table]
// Each key's kernel, in upstream's order of preference:
// - a back end's key: the back end's own kernel; for a structured op, its rule with the back
//   end's compute (Meta: the rule alone); else CompositeExplicit; else CompositeImplicit.
// - Autograd: its own kernel; else CompositeImplicit (it decomposes here, so every layer below
//   sees the pieces); else the Autograd layer's fallback where it applies (differentiable ops).
// - ADInplaceOrView and Python: their own kernel; nothing for CompositeImplicit ops (their
//   pieces pass through these layers); else the layer's fallback where it applies.
// - Capture: its own kernel, else the fallback.
// An empty slot is skipped (its bit is clear in the mask), so a layer costs nothing on ops it
// has nothing to do for.
void compute_table(int op, OpTable& t) {
  Door& d = door();
  const Kernel& implicit = t.registered[static_cast<int>(KernelSlot::CompositeImplicit)];
  const Kernel& explicit_ = t.registered[static_cast<int>(KernelSlot::CompositeExplicit)];
  KeySet mask = 0;
  for (int k = 0; k < kNumDispatchKeys; ++k) {
    auto key = static_cast<DispatchKey>(k);
    Kernel chosen;
    if (k < kNumDeviceTypes) {
      if (t.rule && !t.sources[k].empty()) {
        // A run-time kernel (torch.library's) replaces the op there, rule and compute alike.
        chosen = t.registered[k];
      } else if (t.rule) {
        // Structured: the rule, then this back end's compute; Meta's compute is nothing. A back
        // end without a compute keeps an empty slot and is refused by name.
        if (t.computes[k]) chosen = Kernel{t.registered[k].fn, t.rule, nullptr};
        else if (key == DispatchKey::Meta) chosen = Kernel{nullptr, t.rule, nullptr};
      } else {
        chosen = t.registered[k];
        if (chosen.empty()) chosen = explicit_.empty() ? implicit : explicit_;
      }
      // A CompositeImplicit kernel is a decomposition: its pieces see every layer.
      chosen.below_layers = !chosen.empty() && chosen.fn != implicit.fn;
      chosen.composite = !t.rule && t.registered[k].empty() && !chosen.empty();
    } else if (k < static_cast<int>(DispatchKey::Python)) {
      continue;  // back-end keys the device table does not use
    } else {
      chosen = t.registered[slot_of_key(key)];
      if (chosen.empty() && key == DispatchKey::Autograd) chosen = implicit;
      // A CompositeImplicit op's pieces pass through the layers below Autograd themselves.
      bool pieces_do_it = !implicit.empty() && key != DispatchKey::Capture;
      const Fallback& f = d.fallbacks[k];
      if (chosen.empty() && !pieces_do_it && f.applies && f.applies(op)) chosen = f.kernel;
    }
    t.table[k] = chosen;
    if (!chosen.empty()) mask |= key_bit(key);
  }
  t.mask = mask;
}

// Where a registration for `slot` goes: Composite is placed where upstream places the op's
// composite (CompositeImplicit for its CompositeImplicitAutograd ops, else CompositeExplicit).
KernelSlot placed(int op, KernelSlot slot) {
  if (slot != KernelSlot::Composite) return slot;
  return all_ops()[op].composite_implicit ? KernelSlot::CompositeImplicit
                                          : KernelSlot::CompositeExplicit;
}

void resolve_pending_locked() {
  Door& d = door();
  auto& p = pending();
  for (; d.resolved < p.size(); ++d.resolved) {
    const Pending& r = p[d.resolved];
    int i = resolve_key(r.key);
    if (i < 0) {
      d.errors.push_back(std::string("kernel registered for unknown op ") + r.key);
      continue;
    }
    KernelSlot slot = r.slot;
    slot = placed(i, slot);
    OpTable& t = table_locked(i);
    int s = static_cast<int>(slot);
    if (!t.registered[s].empty() || (r.rule && t.rule)) {
      d.errors.push_back(std::string("two kernels registered for ") + r.key + " at slot " +
                         std::to_string(s));
      continue;
    }
    t.registered[s].fn = r.fn;
    if (r.rule) t.rule = r.rule;
    if (r.rule || r.compute) t.computes[s] = true;
    t.any = true;
  }
  // Every op's table is computed once here (fallbacks apply to ops without registrations too):
  // a few thousand small loops at the first call.
  for (int i = 0; i < static_cast<int>(all_ops().size()); ++i) compute_table(i, table_locked(i));
}

// The op's table, lock-free once the static registrations are resolved.
const OpTable& op_table(int op) {
  Door& d = door();
  if (!d.all_resolved.load(std::memory_order_acquire)) {
    std::lock_guard<std::recursive_mutex> lock(d.mutex);
    if (!d.all_resolved.load(std::memory_order_relaxed)) {
      resolve_pending_locked();
      d.all_resolved.store(true, std::memory_order_release);
    }
  }
  OpTable* chunk = d.chunks[op >> kChunkBits].load(std::memory_order_acquire);
  if (!chunk) {
    std::lock_guard<std::recursive_mutex> lock(d.mutex);
    OpTable& t = table_locked(op);
    compute_table(op, t);
    return t;
  }
  return chunk[op & (kChunkSize - 1)];
}

// Ops defined at run time get a table on first dispatch (their chunk may exist already, with
// an entry never computed): fallbacks apply from then on.
const OpTable& op_table_checked(int op) {
  const OpTable& t = op_table(op);
  if (t.mask == 0 && !t.any) {
    Door& d = door();
    std::lock_guard<std::recursive_mutex> lock(d.mutex);
    OpTable& w = table_locked(op);
    compute_table(op, w);
    return w;
  }
  return t;
}

[[noreturn]] void refuse(const Call& call, Representation rep, const Tensor* first) {
  std::ostringstream os;
  if (call.op->library >= 0 && rep == Representation::Meta) {
    // An op a torch.library defined: the gap is its author's, told in upstream's words.
    os << call.op->ns << "::" << call.op->name << (call.op->overload[0] ? "." : "")
       << call.op->overload << ": attempted to run this operator with Meta tensors, but there "
       << "was no fake impl or Meta kernel registered. You may have run into this message while "
       << "using an operator with PT2 compilation APIs (torch.compile/torch.export); in order "
       << "to use this operator with those APIs you'll need to add a fake impl. Please see the "
       << "following for next steps:  "
       << "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html";
    throw Error(ErrorKind::NotImplemented, os.str());
  }
  os << call.key() << " has no kernel in torchnative for " << representation_name(rep)
     << " tensors";
  if (first) os << " of dtype " << name((*first)->dtype());
  throw Error(ErrorKind::NotImplemented, os.str());
}

[[noreturn]] void mixed_devices(const Call& call, const Tensor& a, const Tensor& b) {
  TN_FAIL(Runtime, "Expected all tensors to be on the same device, but found at least two "
          "devices, ", a->device().str(), " and ", b->device().str(), "! (when calling ",
          call.key(), ")");
}

// A CPU 0-dim tensor (a Python number the binder wrapped, or torch.tensor(2.)) combines with
// tensors of any device, as upstream allows.
bool is_cpu_scalar(const Tensor& t) {
  return t->dim() == 0 && t->representation() == Representation::DenseCPU;
}

// Chooses the back end and the call's device, and gathers the layers its tensors ask for.
// Returns the first tensor of the chosen back end (null when the call has none).
const Tensor* choose_backend(Call& call) {
  const Tensor* first = nullptr;       // first tensor that is not a CPU scalar
  const Tensor* first_scalar = nullptr;
  KeySet layers = 0;
  KeySet backends = 0;
  bool check = !call.op->no_device_check;
  call.mixed[0] = call.mixed[1] = nullptr;
  auto consider = [&](const Tensor& t) {
    if (!t) return;
    layers |= t->key_set();
    if (is_cpu_scalar(t)) {
      if (!first_scalar) first_scalar = &t;
      return;
    }
    backends |= key_bit(backend_key(t->device().type));
    if (!first) {
      first = &t;
    } else if (check && !call.mixed[0] && t->device().type != (*first)->device().type) {
      call.mixed[0] = first;  // refused when a back end's own kernel is chosen (run_key)
      call.mixed[1] = &t;
    }
  };
  for (const Value& v : call.args) {
    if (v.tag == Value::Tag::Tensor) {
      consider(v.tensor);
    } else if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList) {
      for (const Tensor& t : v.tensors) consider(t);
    }
  }
  if (!first) first = first_scalar;
  if (!first) {
    call.device = Device{};
    for (const Value& v : call.args)
      if (v.tag == Value::Tag::Device) {
        call.device = v.device;
        break;
      }
    backends = key_bit(backend_key(call.device.type));
  } else {
    if (backends == 0) backends = key_bit(DispatchKey::CPU);
    // Several back ends meet only in ops without a device check: the highest row's runs.
    DispatchKey top = highest_key(backends);
    if (top != backend_key((*first)->device().type)) {
      for (const Value& v : call.args)
        if (v.tag == Value::Tag::Tensor && v.tensor &&
            backend_key(v.tensor->device().type) == top) {
          first = &v.tensor;
          break;
        }
    }
    backends = key_bit(top);
    call.device = (*first)->device();
  }
  const LocalKeys& local = local_keys();
  call.keys = static_cast<KeySet>(((layers & ~kBackendKeys) | backends | local.included) &
                                  ~local.excluded);
  return first;
}

// Tensors of several devices meet only in composites (whose pieces check), in ops without a
// device check (copy_ between devices, TensorIterator ops whose rule checks) and on Meta (no
// bytes are read; upstream's meta kernels do not check either).
void check_mixed(const Call& call, DispatchKey k, const Kernel* kernel) {
  if (kernel && kernel->composite) return;
  if (!backend(static_cast<DeviceType>(k)).holds_bytes) return;
  mixed_devices(call, *call.mixed[0], *call.mixed[1]);
}

void run_key(Call& call, const OpTable& t, KeySet ks, const Tensor* first) {
  ks &= t.mask;
  if (ks == 0) {  // the call's back end has no kernel (every layer above ends there too)
    KeySet b = call.keys & kBackendKeys;
    DispatchKey k = highest_key(b ? b : 1);
    if (call.mixed[0]) check_mixed(call, k, nullptr);
    refuse(call, representation_of(static_cast<DeviceType>(k)), first);
  }
  DispatchKey k = highest_key(ks);
  const Kernel& kernel = t.table[static_cast<int>(k)];
  if (call.mixed[0] && k < DispatchKey::Python) check_mixed(call, k, &kernel);
  DispatchKey saved = call.running;
  const void* saved_context = call.context;
  call.running = k;
  call.context = kernel.context;
  {
    LocalKeys& local = local_keys();
    KeySet excluded = local.excluded;
    constexpr KeySet kLayers = key_bit(DispatchKey::Autograd) | key_bit(DispatchKey::ADInplaceOrView);
    if (kernel.below_layers) local.excluded |= kLayers;
    struct Restore {
      LocalKeys& local;
      KeySet excluded;
      ~Restore() { local.excluded = excluded; }
    } restore{local, excluded};
    if (kernel.rule) kernel.rule(call);
    if (kernel.fn) kernel.fn(call);
  }
  call.running = saved;
  call.context = saved_context;
}

void run(Call& call, const KeySet* keys = nullptr) {
  call.results.reserve(call.schema->returns.size());  // once, not a regrowth per result
  const Tensor* first = choose_backend(call);
  if (keys) call.keys = *keys;  // a redispatch: the caller's key set, not the thread's
  run_key(call, op_table_checked(call.op_index), call.keys, first);
}

}  // namespace

void redispatch_below(Call& call, DispatchKey below) {
  const Tensor* first = nullptr;
  for (const Value& v : call.args)
    if (v.tag == Value::Tag::Tensor && v.tensor) {
      first = &v.tensor;
      break;
    }
  run_key(call, op_table_checked(call.op_index),
          static_cast<KeySet>(call.keys & keys_below(below)), first);
}

KernelRegistrar::KernelRegistrar(const char* op_key, KernelSlot slot, KernelFn fn) {
  pending().push_back({op_key, slot, fn, nullptr, false});
}

KernelRegistrar::KernelRegistrar(const char* op_key, KernelFn rule, KernelFn cpu) {
  pending().push_back({op_key, KernelSlot::CPU, cpu, rule, true});
}

KernelRegistrar::KernelRegistrar(const char* op_key, KernelFn compute, KernelSlot backend,
                                 bool) {
  pending().push_back({op_key, backend, compute, nullptr, true});
}

void register_kernel(int op, KernelSlot slot, Kernel k, const std::string& source) {
  Door& d = door();
  op_table(op);  // static registrations first
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  slot = placed(op, slot);
  OpTable& t = table_locked(op);
  int s = static_cast<int>(slot);
  if (!t.registered[s].empty()) {
    std::string before = t.sources[s].empty() ? "torchnative's own kernels" : t.sources[s];
    TN_FAIL(Runtime, "Registering a kernel for ", op_key_ref(op), " at slot ", s,
            " failed: one was already registered from ", before, "; the new one comes from ",
            source);
  }
  t.registered[s] = k;
  t.sources[s] = source;
  t.any = true;
  compute_table(op, t);
}

int override_kernel(int op, KernelSlot slot, Kernel k, const std::string& source,
                    std::string* hidden) {
  Door& d = door();
  op_table(op);
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  slot = placed(op, slot);
  OpTable& t = table_locked(op);
  int s = static_cast<int>(slot);
  auto& stack = d.overrides[{op, s}];
  bool had = !t.registered[s].empty() || (is_backend_slot(s) && t.computes[s]);
  if (stack.empty() && had) stack.push_back({0, t.registered[s], t.sources[s]});
  if (hidden) {
    hidden->clear();
    if (!stack.empty())
      *hidden = stack.back().source.empty() ? "torchnative's own kernels" : stack.back().source;
  }
  int handle = d.next_handle++;
  stack.push_back({handle, k, source});
  t.registered[s] = k;
  t.sources[s] = source;
  t.any = true;
  compute_table(op, t);
  return handle;
}

void remove_kernel(int op, KernelSlot slot, int handle) {
  Door& d = door();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  slot = placed(op, slot);
  int s = static_cast<int>(slot);
  auto it = d.overrides.find({op, s});
  if (it == d.overrides.end()) return;
  auto& stack = it->second;
  for (size_t i = 0; i < stack.size(); ++i)
    if (stack[i].handle == handle) {
      stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  OpTable& t = table_locked(op);
  if (stack.empty() || (stack.size() == 1 && stack[0].handle == 0)) {
    t.registered[s] = stack.empty() ? Kernel{} : stack[0].kernel;
    t.sources[s] = stack.empty() ? std::string() : stack[0].source;
    d.overrides.erase(it);
  } else {
    t.registered[s] = stack.back().kernel;
    t.sources[s] = stack.back().source;
  }
  compute_table(op, t);
}

void deregister_kernel(int op, KernelSlot slot) {
  Door& d = door();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  OpTable& t = table_locked(op);
  int s = static_cast<int>(slot);
  t.registered[s] = Kernel{};
  t.sources[s].clear();
  compute_table(op, t);
}

void set_key_fallback(DispatchKey key, Kernel k, bool (*applies)(int)) {
  Door& d = door();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  d.fallbacks[static_cast<int>(key)] = Fallback{k, applies};
  if (d.all_resolved.load()) {
    for (int i = 0; i < static_cast<int>(all_ops().size()); ++i) compute_table(i, table_locked(i));
  }
}

bool has_kernel_for_key(int op, KernelSlot slot) {
  const OpTable& t = op_table(op);
  int s = static_cast<int>(slot);
  if (slot == KernelSlot::Composite)
    return !t.registered[static_cast<int>(KernelSlot::CompositeImplicit)].empty() ||
           !t.registered[static_cast<int>(KernelSlot::CompositeExplicit)].empty();
  // A structured op has its rule on Meta and a kernel wherever it has a compute.
  if (t.rule && is_backend_slot(s) && (t.computes[s] || slot == KernelSlot::Meta)) return true;
  return !t.registered[s].empty();
}

bool has_kernel(int op, Representation rep) {
  return !op_table(op).table[static_cast<int>(rep)].empty();
}

std::vector<std::string> implemented_ops() {
  std::vector<std::string> out;
  for (int i = 0; i < static_cast<int>(all_ops().size()); ++i) {
    if (all_ops()[i].removed) continue;
    const OpTable& t = op_table(i);
    bool own = false;
    for (int s = 0; s < kNumKernelSlots && !own; ++s)
      own = (is_backend_slot(s) || s == static_cast<int>(KernelSlot::CompositeImplicit) ||
             s == static_cast<int>(KernelSlot::CompositeExplicit)) &&
            !t.registered[s].empty() && t.sources[s].empty();
    if (own) out.push_back(op_key(all_ops()[i]));
  }
  return out;
}

const std::vector<std::string>& kernel_registration_errors() {
  op_table(0);
  return door().errors;
}

std::vector<Value> dispatch(int op_index, std::vector<Value> args) {
  Call call;
  call.op_index = op_index;
  call.op = &all_ops()[op_index];
  call.schema = &schema_of(op_index);
  call.args = std::move(args);
  run(call);
  return std::move(call.results);
}

void dispatch_lent(int op_index, std::vector<Value>& args, std::vector<Value>& results,
                   const KeySet* keys) {
  Call call;
  call.op_index = op_index;
  call.op = &all_ops()[op_index];
  call.schema = &schema_of(op_index);
  call.args.swap(args);
  results.clear();
  call.results.swap(results);
  struct GiveBack {  // also when the kernel throws
    Call& call;
    std::vector<Value>& args;
    std::vector<Value>& results;
    ~GiveBack() {
      for (Value& v : call.args) v.reset();  // nothing held past the call; capacity kept
      args.swap(call.args);
      results.swap(call.results);
    }
  } give_back{call, args, results};
  run(call, keys);
}

// resolve_key for call(): remembered per key pointer (composites pass string literals), checked
// against the text so that a reused pointer to other text is resolved afresh.
int resolve_call_key(const char* key) {
  struct Known {
    std::string text;
    int op = -1;
  };
  static thread_local std::unordered_map<const char*, Known> known;
  Known& k = known[key];
  if (k.op >= 0 && k.text == key && !all_ops()[k.op].removed) return k.op;
  k.text = key;
  k.op = resolve_key(key);
  return k.op;
}

std::vector<Value> call(const char* key, std::vector<Value> args) {
  int i = resolve_call_key(key);
  TN_CHECK_KIND(i >= 0, Internal, "torchnative: no operator ", key);
  fill_defaults(schema_of(i), args);
  return dispatch(i, std::move(args));
}

Tensor call_tensor(const char* key, std::vector<Value> args) {
  std::vector<Value> r = call(key, std::move(args));
  TN_CHECK_KIND(!r.empty() && r[0].tag == Value::Tag::Tensor, Internal, key,
                " did not return a tensor");
  return r[0].tensor;
}

// --- Call accessors ----------------------------------------------------------------------

namespace {
[[noreturn]] void wrong(const Call& c, size_t i, const char* want) {
  TN_FAIL(Internal, "torchnative internal error: ", c.key(), " argument ", i, " is not ", want);
}
}  // namespace

const Tensor& Call::tensor(size_t i) const {
  if (args[i].tag != Value::Tag::Tensor || !args[i].tensor) wrong(*this, i, "a tensor");
  return args[i].tensor;
}
const Tensor* Call::optional_tensor(size_t i) const {
  if (args[i].tag == Value::Tag::None) return nullptr;
  return &tensor(i);
}
int64_t Call::to_int(size_t i) const {
  const Value& v = args[i];
  if (v.tag == Value::Tag::Int) return v.i;
  if (v.tag == Value::Tag::Bool) return v.b;
  if (v.tag == Value::Tag::Scalar) return v.scalar.to_int();
  wrong(*this, i, "an int");
}
double Call::to_double(size_t i) const {
  const Value& v = args[i];
  if (v.tag == Value::Tag::Double) return v.d;
  if (v.tag == Value::Tag::Int) return static_cast<double>(v.i);
  if (v.tag == Value::Tag::Scalar) return v.scalar.to_double();
  wrong(*this, i, "a float");
}
bool Call::to_bool(size_t i) const {
  const Value& v = args[i];
  if (v.tag == Value::Tag::Bool) return v.b;
  if (v.tag == Value::Tag::Int) return v.i != 0;
  wrong(*this, i, "a bool");
}
Scalar Call::scalar(size_t i) const {
  const Value& v = args[i];
  if (v.tag == Value::Tag::Scalar) return v.scalar;
  if (v.tag == Value::Tag::Int) return Scalar::from_int(v.i);
  if (v.tag == Value::Tag::Double) return Scalar::from_double(v.d);
  if (v.tag == Value::Tag::Bool) return Scalar::from_bool(v.b);
  wrong(*this, i, "a Scalar");
}
const Dims& Call::int_list(size_t i) const {
  if (args[i].tag != Value::Tag::IntList) wrong(*this, i, "an int list");
  return args[i].ints;
}
const std::vector<Tensor>& Call::tensor_list(size_t i) const {
  if (args[i].tag != Value::Tag::TensorList && args[i].tag != Value::Tag::OptTensorList)
    wrong(*this, i, "a tensor list");
  return args[i].tensors;
}
std::optional<ScalarType> Call::optional_dtype(size_t i) const {
  if (args[i].tag == Value::Tag::None) return std::nullopt;
  if (args[i].tag != Value::Tag::Dtype) wrong(*this, i, "a dtype");
  return args[i].dtype;
}

// --- defaults ------------------------------------------------------------------------------

namespace {

std::vector<std::string> split_list(const std::string& text) {  // "[1, 2]" -> {"1", "2"}
  std::vector<std::string> out;
  std::string inner = text.substr(1, text.size() - 2);
  size_t start = 0;
  while (start < inner.size()) {
    size_t comma = inner.find(',', start);
    std::string item = inner.substr(start, comma == std::string::npos ? std::string::npos
                                                                      : comma - start);
    while (!item.empty() && item[0] == ' ') item.erase(0, 1);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

Value default_value(const Argument& a) {
  const std::string& t = *a.default_text;
  const std::string& base = a.type.base;
  if (t == "None") return Value{};
  if (a.type.is_list) {
    Value v;
    auto items = split_list(t);
    if (base == "float") {
      v.tag = Value::Tag::DoubleList;
      for (auto& s : items) v.doubles.push_back(std::strtod(s.c_str(), nullptr));
    } else if (base == "bool") {
      v.tag = Value::Tag::BoolList;
      for (auto& s : items) v.bools.push_back(s == "True");
    } else if (base == "Tensor") {
      v.tag = Value::Tag::TensorList;
    } else {
      v.tag = Value::Tag::IntList;
      for (auto& s : items) v.ints.push_back(std::strtoll(s.c_str(), nullptr, 10));
    }
    return v;
  }
  if (t == "True" || t == "False") return Value::of_bool(t == "True");
  if (base == "str") return Value::of_string(t.substr(1, t.size() - 2));
  bool is_float_text = t.find_first_of(".e") != std::string::npos && t.find("inf") == std::string::npos;
  if (base == "float") return Value::of_double(std::strtod(t.c_str(), nullptr));
  if (base == "Scalar")
    return Value::of_scalar(is_float_text ? Scalar::from_double(std::strtod(t.c_str(), nullptr))
                                          : Scalar::from_int(std::strtoll(t.c_str(), nullptr, 10)));
  if (base == "ScalarType") return Value::of_dtype(static_cast<ScalarType>(std::atoi(t.c_str())));
  if (base == "MemoryFormat") {
    Value v;
    v.tag = Value::Tag::MemoryFormat;
    int code = std::atoi(t.c_str());  // upstream's enum: 0 contiguous, 1 preserve, 2 channels_last
    v.memory_format = code == 1 ? MemoryFormatKind::Preserve
                      : code == 2 ? MemoryFormatKind::ChannelsLast : MemoryFormatKind::Contiguous;
    return v;
  }
  return Value::of_int(std::strtoll(t.c_str(), nullptr, 10));
}

void fill_defaults(const FunctionSchema& schema, std::vector<Value>& args) {
  if (args.size() >= schema.arguments.size()) return;
  // Each schema's defaults are parsed once (per thread) and copied from then on.
  static thread_local std::unordered_map<const FunctionSchema*, std::vector<Value>> parsed;
  std::vector<Value>& defaults = parsed[&schema];
  if (defaults.empty()) {
    defaults.resize(schema.arguments.size());
    for (size_t i = 0; i < schema.arguments.size(); ++i)
      if (schema.arguments[i].default_text) defaults[i] = default_value(schema.arguments[i]);
  }
  args.reserve(schema.arguments.size());
  for (size_t i = args.size(); i < schema.arguments.size(); ++i) {
    const Argument& a = schema.arguments[i];
    TN_CHECK_KIND(a.default_text.has_value(), Type, schema.str(), " missing required argument '",
                  a.name, "' (position ", i, ")");
    args.push_back(defaults[i]);
  }
}

}  // namespace tn
