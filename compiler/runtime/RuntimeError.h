//===- RuntimeError.h - Errors and results of the runtime -------*- C++ -*-===//
//
// The runtime never throws. Every fallible operation returns a Result<T>
// holding either a value or a RuntimeError. A RuntimeError has a kind (what
// the CLI branches on: NoDevice becomes `SKIP: no CUDA device (<reason>)` and
// exit status 77), the catalogue entry it corresponds to (K13xx in
// diag/Diagnostics.def), a message that names the kernel where one is
// involved, and the raw CUresult when the driver produced it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Diagnostic.h"

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace kina::runtime {

/// Exit status of `kina run` (and tests/gpu/smoke_runtime) when there is no
/// usable CUDA device. 77 is the automake/ctest SKIP convention. A SKIP is
/// never a pass.
inline constexpr int kSkipExitCode = 77;

enum class ErrorKind {
  NoDevice,          ///< no libcuda, no GPU, stub library: the run is SKIPPED
  DriverTooOld,      ///< the driver cannot load this cubin/PTX (too new)
  NoBinaryForDevice, ///< the cubin was built for another architecture
  OutOfMemory,       ///< device memory exhausted
  LaunchFailed,      ///< the launch was rejected or the kernel faulted
  RequiresFailed,    ///< launch guard: a `requires` clause is false for the dims
  TargetMismatch,    ///< launch guard: the device cannot run the cubin's target
  ResourceLimit,     ///< launch guard: grid/block/shared memory beyond device limits
  InvalidDims,       ///< dims missing, unknown, non-positive, or a formula fails
  InvalidMetadata,   ///< malformed launch metadata (<kernel>.launch.json)
  InvalidNpy,        ///< malformed or mismatching .npy input
  KernelNotFound,    ///< the module has no such kernel symbol
  Io,                ///< a file could not be read or written
  Cuda,              ///< any other CUDA driver error
  InvalidArgument,   ///< API misuse by the caller (bad ordinal, size mismatch)
  TensorMapInvalid,  ///< a tensor cannot be described by a TMA tensor map (K1325)
  TensorMapEncode,   ///< cuTensorMapEncodeTiled rejected a checked map (K1326)
  ClusterInvalid,    ///< launch guard: the cluster shape does not fit the grid (K1327)
};

std::string_view errorKindName(ErrorKind kind);
/// The catalogue entry (K13xx) for a kind.
DiagId diagIdFor(ErrorKind kind);

struct RuntimeError {
  ErrorKind kind;
  std::string message;
  /// The CUresult when the driver reported the error, else 0.
  int cudaCode = 0;

  DiagId diagId() const { return diagIdFor(kind); }
  bool isNoDevice() const { return kind == ErrorKind::NoDevice; }
};

inline RuntimeError makeError(ErrorKind kind, std::string message, int cudaCode = 0) {
  return RuntimeError{kind, std::move(message), cudaCode};
}

/// A value or a RuntimeError. Check with `if (!r)` before dereferencing.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(RuntimeError error) : v_(std::in_place_index<1>, std::move(error)) {}

  explicit operator bool() const { return v_.index() == 0; }
  bool ok() const { return v_.index() == 0; }

  T &operator*() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T &operator*() const & {
    assert(ok());
    return std::get<0>(v_);
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }
  /// Moves the value out; only valid when ok().
  T take() {
    assert(ok());
    return std::move(std::get<0>(v_));
  }

  const RuntimeError &error() const {
    assert(!ok());
    return std::get<1>(v_);
  }
  RuntimeError takeError() {
    assert(!ok());
    return std::move(std::get<1>(v_));
  }

private:
  std::variant<T, RuntimeError> v_;
};

/// Success or a RuntimeError.
template <> class [[nodiscard]] Result<void> {
public:
  Result() = default;
  Result(RuntimeError error) : err_(std::move(error)) {}
  static Result success() { return Result(); }

  explicit operator bool() const { return !err_; }
  bool ok() const { return !err_; }
  const RuntimeError &error() const {
    assert(err_);
    return *err_;
  }
  RuntimeError takeError() {
    assert(err_);
    return std::move(*err_);
  }

private:
  std::optional<RuntimeError> err_;
};

using Status = Result<void>;

} // namespace kina::runtime
