// The profiler's record_function ops (upstream's record_function_ops.cpp): every optimizer step
// and zero_grad enters one (torch.autograd.profiler.record_function). Entering makes a
// _RecordFunction handle, exiting ends it. No profiler runs here (torch.profiler's
// _enable_profiler refuses by name), and upstream's handle records nothing either when no
// profiler is active, so a handle only carries its name and whether it has ended.
#include <string>

#include "dispatch/kernel.h"

namespace tn::autograd {
namespace {

class RecordFunctionHandle final : public CustomObject {
 public:
  RecordFunctionHandle(std::string name, std::string args)
      : name_(std::move(name)), args_(std::move(args)) {}
  const char* qualified_name() const override {
    return "__torch__.torch.classes.profiler._RecordFunction";
  }
  // Upstream's end() is idempotent: exiting twice is not an error.
  void end() { ended_ = true; }

 private:
  std::string name_;
  std::string args_;
  bool ended_ = false;
};

// _record_function_enter_new(str name, str? args=None) -> _RecordFunction
void record_function_enter_new(Call& c) {
  const Value& args = c.arg(1);
  Value v;
  v.tag = Value::Tag::Object;
  v.object = make<RecordFunctionHandle>(c.arg(0).str,
                                        args.tag == Value::Tag::String ? args.str : "");
  c.ret(std::move(v));
}

// _record_function_exit._RecordFunction(_RecordFunction x) -> ()
void record_function_exit(Call& c) {
  // The binder passes only objects of the class the schema names.
  static_cast<RecordFunctionHandle*>(c.arg(0).object.get())->end();
}

TN_REGISTER_KERNEL("profiler::_record_function_enter_new", CompositeExplicit,
                   record_function_enter_new);
TN_REGISTER_KERNEL("profiler::_record_function_exit._RecordFunction", CompositeExplicit,
                   record_function_exit);

}  // namespace
}  // namespace tn::autograd
