//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// `kina run --inputs FILE.npy` reads kernel inputs from NumPy's .npy format
// (versions 1.0, 2.0, 3.0; little-endian; C order) and outputs can be written
// back. Supported dtype descriptors:
//   '<f2' f16   '<f4' f32   '|i1' i8   '<i4' i32
//   bfloat16: NumPy has no bfloat16, so a bf16 array is stored as its raw
//   16-bit patterns: '<u2' (what Kina writes; `t.view(torch.uint16).numpy()`
//   or `a.view(np.uint16)` for ml_dtypes arrays), and '<i2' and '|V2' / '<V2'
//   are read the same way. Kina has no 16-bit integer dtype, so no 2-byte
//   integer file is ambiguous.
// Anything else (float64, big-endian, Fortran order, object arrays) is an
// InvalidNpy error that says how to convert the file.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/HostTensor.h"
#include "runtime/RuntimeError.h"

#include <span>
#include <string>

namespace kina::runtime {

/// Parses an in-memory .npy image; `label` names it in errors.
Result<HostTensor> parseNpy(std::span<const std::uint8_t> data, const std::string &label);
/// Reads and parses a .npy file.
Result<HostTensor> readNpy(const std::string &path);
/// Reads a .npy file for kernel parameter `param`, which must have `dtype`
/// and `shape`; a difference is an InvalidNpy error naming both.
Result<HostTensor> readNpyFor(const std::string &path, const std::string &param, DType dtype,
                              const std::vector<std::int64_t> &shape);

/// The .npy (version 1.0) image of `t`; bf16 is written as '<u2'.
std::vector<std::uint8_t> encodeNpy(const HostTensor &t);
Status writeNpy(const std::string &path, const HostTensor &t);

} // namespace kina::runtime
