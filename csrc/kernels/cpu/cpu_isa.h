// The instruction set the CPU kernels run at, chosen once per process the way upstream chooses
// its CPU capability, so that each of our kernels takes the build (and so the bits) that
// upstream's takes on the same machine: AVX-512 where the CPU has AVX-512 F, BW, VL and DQ and
// FMA, AVX2 where it has AVX2 and FMA, else the baseline; lowered by ATEN_CPU_CAPABILITY
// ("default", "avx2" or "avx512", the variable upstream reads), so that one machine runs every
// build against upstream's same build (tests/test_cpu_capability.py; Note [The CPU build
// follows upstream's] in docs/DESIGN_NOTES.md).
#pragma once

namespace tn::cpu {

enum class Isa { Base, Avx2, Avx512 };

// The build in use: the CPU's widest, or ATEN_CPU_CAPABILITY's where that is narrower. A wider
// value than the CPU runs is lowered to the CPU's (upstream would take it and fault); an unknown
// one is ignored with a warning on stderr, as upstream ignores it.
Isa isa();

// The build a kernel upstream registers with REGISTER_DISPATCH alone runs at: upstream builds
// such a kernel for AVX-512 too but registers no AVX-512 entry for it, and its dispatch stub
// then takes the AVX2 build on an AVX-512 machine (DispatchStub's choose_cpu_impl). Only kernels
// registered with ALSO_REGISTER_AVX512_DISPATCH (softmax's, some unary ones) run at AVX-512;
// sum, mean, norms, layer_norm, batch_norm and the losses' reductions do not. Measured on an
// AVX-512 machine: upstream's bits of those are the same under ATEN_CPU_CAPABILITY=avx512 and
// avx2 (Note [AVX-512 runs most kernels' AVX2 build] in docs/DESIGN_NOTES.md).
Isa avx2_registered_isa();

// The build oneDNN's kernels run at in upstream's process, for the ops whose upstream results
// come from oneDNN (gelu): oneDNN's own choice, the CPU's widest lowered by ONEDNN_MAX_CPU_ISA
// (or its older name DNNL_MAX_CPU_ISA), not by ATEN_CPU_CAPABILITY. Its SSE4.1 and AVX builds
// count as Base.
Isa onednn_isa();

// Whether this CPU runs isa's build, whatever ATEN_CPU_CAPABILITY says.
bool cpu_runs(Isa isa);

// Upstream's name for isa (torch.backends.cpu.get_cpu_capability()): "DEFAULT", "AVX2", "AVX512".
const char* isa_name(Isa isa);

}  // namespace tn::cpu
