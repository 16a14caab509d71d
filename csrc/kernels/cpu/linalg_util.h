// Shared by the CPU linear algebra kernels (linalg_lu.cpp, linalg_triangular.cpp): batch shapes,
// upstream's batched matrix strides, and its argument checks with its messages.
#pragma once

#include <string>

#include "core/tensor_impl.h"

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
// checkInputsSolver: A square, B a matrix whose rows (left) or columns match A.
void check_solver_inputs(const Tensor& A, const Tensor& B, bool left, const char* what);

// upstream's _linalg_check_errors over LAPACK's info codes (int32, contiguous, CPU): the
// first nonzero one raises as upstream raises it, naming the batch element unless is_matrix.
void check_errors(const Tensor& info, const std::string& api_name, bool is_matrix);

}  // namespace tn::linalg
