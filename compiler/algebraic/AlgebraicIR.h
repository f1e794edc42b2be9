//===- AlgebraicIR.h - The algebraic IR of host functions -------*- C++ -*-===//
//
// Seed 003 §2.2/§4.3: the top of the three typed levels. A host function
// (`fn`) becomes a straight-line list of placement-typed tensor operations
// in SSA form; lowering pass A (PassA.h) picks a kernel for each (a Kina
// stdlib kernel, cuBLASLt, a CPU reference on the host) and fuses chains.
// Types carry the placement (host | cuda:global): an operation's operands
// share one, and only copy_to_device / copy_to_host change it (the checker's
// K0405; the verifier checks it again on the IR).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diag/Source.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kina::algebraic {

enum class Placement : uint8_t { Host, Device };

/// `host` or `cuda:global`.
const char *placementName(Placement p);

/// How a device value lies over a mesh (sema::ShardKind; issue 19).
enum class Shard : uint8_t { None, Replicated, Sharded, Partial };

/// A tensor type: element type name (`BF16`), shape as dimension
/// expressions over the function's dims (`M`, `2 * H`, `128`), placement;
/// on cuda:global, the device (one device) or the mesh and sharding. The
/// shape is always the whole (logical) tensor's.
struct TensorType {
  std::string dtype;
  std::vector<std::string> shape;
  Placement on = Placement::Host;
  int64_t device = 0;        ///< cuda:global(d), when shard is None
  Shard shard = Shard::None; ///< None: one device
  int shardDim = -1;         ///< Sharded: the axis split
  std::vector<int64_t> mesh; ///< the devices, block i on mesh[i]
  bool operator==(const TensorType &) const = default;
  bool onMesh() const { return shard != Shard::None; }
  /// Same device or mesh (placement, device, mesh; not the sharding).
  bool samePlace(const TensorType &o) const {
    return on == o.on && onMesh() == o.onMesh() &&
           (onMesh() ? mesh == o.mesh : on == Placement::Host || device == o.device);
  }
};

/// `Sharded(dim=1, mesh=[0, 1])` ("" for a single device).
std::string shardName(const TensorType &t);

/// The extent of axis `axis` on one device: the logical extent, divided by
/// the mesh size on the sharded axis.
int64_t localExtent(const TensorType &t, size_t axis, int64_t logical);

/// `Tensor[BF16, [M, H], on=cuda:global]`.
std::string printType(const TensorType &t);

enum class OpKind : uint8_t {
  Param,        ///< a parameter of the function
  CopyToDevice, ///< host -> cuda:global
  CopyToHost,   ///< cuda:global -> host
  MatMul,       ///< [M, K] x [K, N] -> [M, N]
  Transpose,    ///< [M, N] -> [N, M]
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min, ///< elementwise; the second operand may broadcast
  Relu,
  Exp,
  Neg,
  Gelu,
  GeluTanh,
  Silu,      ///< elementwise unary
  Softmax,   ///< over the last axis of a 2-D tensor
  LayerNorm, ///< x gamma beta, over the last axis (eps 1e-5)
  RmsNorm,   ///< x gamma, over the last axis (eps 1e-6)
  Call,      ///< a Kina kernel launched from the host function
  // Collectives over a mesh (issue 19; NCCL on GPUs).
  AllReduce,     ///< Partial -> Replicated: the sum
  AllGather,     ///< Sharded(d) -> Replicated: the blocks concatenated along d
  ReduceScatter, ///< Partial -> Sharded(0): the sum, each device its rows
};

/// The spelling in the printed IR (`matmul`, `copy_to_device`, ...).
const char *opName(OpKind k);
bool isElementwiseUnary(OpKind k);
bool isElementwiseBinary(OpKind k);

/// How the second operand of an elementwise binary is broadcast.
enum class Broadcast : uint8_t { None, Row, Column, Scalar };

struct Op {
  OpKind kind = OpKind::Param;
  std::vector<int> operands; ///< result indices of earlier ops
  TensorType type;           ///< the result's type
  std::string name;          ///< Param: its name; Call: the kernel; a `let` name when bound
  double scalar = 0;         ///< Broadcast::Scalar: the value
  Broadcast broadcast = Broadcast::None;
  /// AllReduce: inserted by the builder where the types sum partial sums
  /// (sema::keepsPartialSums), not written; `insertedFor` names the use.
  bool inserted = false;
  std::string insertedFor;
  Span span;
};

/// One host function: dims, requirements (source text), ops (params first,
/// in declaration order), the returned value.
struct Function {
  std::string name;
  std::vector<std::string> dims;
  std::vector<std::string> requirements; ///< `M mod 128 = 0`
  std::vector<Op> ops;
  std::vector<int> params; ///< op indices of the Param ops
  int result = -1;
  Span span;
};

/// Readable text, one op per line (`--emit=algebraic-ir`).
std::string print(const Function &f);

/// Structural and type errors (empty when the function is well formed):
/// operands defined before use, placements shared, shapes consistent.
std::vector<std::string> verify(const Function &f);

/// Evaluates a printed dimension expression (`M`, `2 * H + 1`, `N / 4`)
/// with `dims`; nullopt when a name is unbound or the form is unknown.
std::optional<int64_t> evalDim(const std::string &text, const std::map<std::string, int64_t> &dims);

} // namespace kina::algebraic
