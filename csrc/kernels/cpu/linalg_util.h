// Shared by the CPU linear algebra kernels (linalg_lu.cpp, linalg_triangular.cpp): batch shapes,
// upstream's batched matrix strides, and its argument checks with its messages.
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor_impl.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn::linalg {

// x.shape[:-2].
inline Dims batch_of(const Tensor& x) { return Dims(x->sizes().begin(), x->sizes().end() - 2); }

// Upstream's batched_matrix_contiguous_strides: contiguous strides, with the last two dims
// made column-major when f_contig (C-contiguous batches of F-contiguous matrices).
Dims matrix_strides(const Dims& sizes, bool f_contig);

// The number of matrices in x (the product of its batch dims; 1 for a matrix).
int64_t batch_count(const Tensor& x);

// upstream's checkIsMatrix / squareCheckInputs / checkFloatingOrComplex, `what` naming the
// function ("linalg.solve") and `arg` the argument ("A").
void check_matrix(const Tensor& t, const char* what, const char* arg = "A");
void check_square(const Tensor& t, const char* what, const char* arg = "A");
void check_floating_or_complex(const Tensor& t, const char* what, bool low_precision = true);
// upstream's checkLinalgCompatibleDtype for an out= argument `name` ("result") of api.
void check_out_castable(const char* api, const Tensor& out, ScalarType expected,
                        const char* name);
// checkInputsSolver: A square, B a matrix whose rows (left) or columns match A.
void check_solver_inputs(const Tensor& A, const Tensor& B, bool left, const char* what);

// upstream's _linalg_check_errors over LAPACK's info codes (int32, contiguous, CPU): the
// first nonzero one raises as upstream raises it, naming the batch element unless is_matrix.
// The CPU kernels call it; composites call the op aten::_linalg_check_errors (a no-op on Meta).
void check_errors(const Tensor& info, const std::string& api_name, bool is_matrix);

// Calls f(T{}) for the dtypes LAPACK computes (float, double, complex64, complex128); others
// refuse as upstream's AT_DISPATCH does, naming its kernel.
template <typename F>
void dispatch_lapack(ScalarType dt, const char* name, F&& f) {
  switch (dt) {
    case ScalarType::Float: f(float{}); return;
    case ScalarType::Double: f(double{}); return;
    case ScalarType::ComplexFloat: f(std::complex<float>{}); return;
    case ScalarType::ComplexDouble: f(std::complex<double>{}); return;
    default:
      TN_FAIL(NotImplemented, "\"", name, "\" not implemented for '", c10_dtype_name(dt), "'");
  }
}

// x.mT and x.mH, views through the door (composite/ops.h).
using ops::mH;
using ops::mT;
// x when its matrices are already column-major, else such a copy (upstream's
// borrow_else_clone / cloneBatchedColumnMajor).
Tensor f_contiguous(const Tensor& x);
// A new tensor with x's values, its matrices column-major (cloneBatchedColumnMajor).
Tensor f_clone(const Tensor& x);
// An uninitialised tensor of shape whose matrices are column-major.
Tensor f_empty(const Dims& shape, ScalarType dtype, Device device);

// For each batch index of out_batch (row-major), the index into in_batch that broadcasts to it
// (dims aligned on the right; size-1 dims repeat): upstream's BroadcastLinearIndices.
std::vector<int64_t> broadcast_index(const Dims& in_batch, const Dims& out_batch);

}  // namespace tn::linalg
