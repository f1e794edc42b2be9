//===- Bytecode.h - A CUDA Tile IR bytecode writer --------------*- C++ -*-===//
//
// Writes the binary format `tileiras` reads, from the public definition in
// NVIDIA/cuda-tile (lib/Bytecode, the *Opcodes.td files) and cuTile
// Python's encoder: the header (magic "\x7FTileIR\0", major, minor, tag
// u16), then sections (id byte with bit 7 = aligned, varint length,
// optional varint alignment + 0xCB padding): functions, constants, types,
// strings, end. Integers are LEB128 varints; signed ones zigzag-encoded.
//
// The builder is structured like the format: types and strings are
// interned into tables, an entry function is a flat instruction stream,
// and ops with regions (for, reduce) open nested blocks whose values are
// numbered after the enclosing ones and released when the block closes.
// Every op records the registry feature it needs (Requirements.h), so the
// caller can check the module against the chosen version and target before
// anything is assembled; an op or type the chosen version cannot encode is
// an error here too (never silently dropped).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tileir/Requirements.h"

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kina::tileir {

/// A dynamic extent or stride in a tensor_view type (MLIR's kDynamic).
inline constexpr std::int64_t kDynamic = INT64_MIN;

/// The versions this writer can encode (a subset of the registry's).
std::span<const Version> writerVersions();

struct TypeId {
  std::uint64_t id = 0;
};
struct ValueId {
  std::uint64_t id = 0;
};

enum class Scalar : std::uint8_t {
  I1,
  I8,
  I16,
  I32,
  I64,
  F16,
  BF16,
  F32,
  TF32,
  F64,
  F8E4M3FN,
  F8E5M2
};

enum class Rounding : std::uint8_t {
  NearestEven = 0,
  Zero = 1,
  NegativeInf = 2,
  PositiveInf = 3,
  Approx = 4,
  Full = 5
};

enum class Padding : std::uint8_t { Zero = 0, NegZero = 1, Nan = 2, PosInf = 3, NegInf = 4 };

class BytecodeWriter {
public:
  /// `version` must be one of writerVersions().
  explicit BytecodeWriter(Version version);

  Version version() const { return version_; }
  /// The first error (an op the version cannot encode, a misuse of the
  /// builder), or empty.
  const std::string &error() const { return error_; }
  /// Features the module uses so far (Baseline included).
  const ModuleRequirements &requirements() const { return req_; }

  // ---- types ----
  TypeId scalar(Scalar s);
  TypeId pointer(TypeId pointee);
  TypeId tile(TypeId element, const std::vector<std::int64_t> &shape);
  TypeId tensorView(TypeId element, const std::vector<std::int64_t> &shape,
                    const std::vector<std::int64_t> &strides);
  TypeId partitionView(const std::vector<std::int32_t> &tileShape, TypeId tensorView,
                       const std::vector<std::int32_t> &dimMap, std::optional<Padding> padding);
  TypeId function(const std::vector<TypeId> &params, const std::vector<TypeId> &results);
  TypeId token();

  // ---- functions ----
  /// Starts a kernel entry point; returns its parameters' values.
  std::vector<ValueId> beginEntry(const std::string &name, const std::vector<TypeId> &params);
  void endEntry();

  // ---- ops (each checks the version and records its feature) ----
  /// A splat constant: `bits` is the element's little-endian bit pattern
  /// (e.g. the f32 bits of 1.0f) of `byteWidth` bytes.
  ValueId constantSplat(TypeId tileType, std::uint64_t bits, unsigned byteWidth);
  ValueId constantI32(std::int32_t v);
  std::vector<ValueId> tileBlockId(); ///< x, y, z as tile<i32>
  ValueId makeTensorView(TypeId tvType, ValueId base);
  /// A view whose kDynamic extents/strides (in order) come from scalar
  /// tile<i32>/tile<i64> values, e.g. a kernel's dims.
  ValueId makeTensorView(TypeId tvType, ValueId base, const std::vector<ValueId> &dynShape,
                         const std::vector<ValueId> &dynStrides);
  ValueId makePartitionView(TypeId pvType, ValueId tensorView);
  /// Returns {tile, token}.
  std::pair<ValueId, ValueId> loadView(TypeId tileType, ValueId view,
                                       const std::vector<ValueId> &index);
  ValueId storeView(ValueId tile, ValueId view, const std::vector<ValueId> &index);
  enum class FBin : std::uint8_t { Add, Sub, Mul, Div };
  ValueId binaryF(FBin op, TypeId type, ValueId lhs, ValueId rhs);
  ValueId maxF(TypeId type, ValueId lhs, ValueId rhs);
  /// Integer arithmetic on (scalar) i32/i64 tiles, for index expressions:
  /// signed; DivTrunc/DivFloor/DivCeil round toward zero / -inf / +inf.
  enum class IBin : std::uint8_t { Add, Sub, Mul, DivTrunc, DivFloor, DivCeil, Rem };
  ValueId binaryI(IBin op, TypeId type, ValueId lhs, ValueId rhs);
  ValueId exp(TypeId type, ValueId x);
  /// fastAcc (`mmaf.fast_acc`, fp8 inputs) needs Tile IR 13.3.
  ValueId mmaF(TypeId type, ValueId a, ValueId b, ValueId acc, bool fastAcc = false);
  ValueId ftof(TypeId toType, ValueId x);
  ValueId broadcast(TypeId type, ValueId x);
  ValueId reshape(TypeId type, ValueId x);
  void ret();

  /// `for %iv in (lb to ub, step s) iter_values(init...)`: opens the body
  /// block, whose values are {iv, iter...}; close it with endFor(yielded),
  /// which emits the `continue` and returns the loop's results.
  std::vector<ValueId> beginFor(ValueId lb, ValueId ub, ValueId step,
                                const std::vector<ValueId> &init,
                                const std::vector<TypeId> &iterTypes, TypeId ivType);
  std::vector<ValueId> endFor(const std::vector<ValueId> &yielded);

  enum class Combine : std::uint8_t { AddF, MaxF };
  /// A single-operand reduce along `dim` with a scalar identity (f32 bits).
  ValueId reduce(TypeId resultType, ValueId x, std::int64_t dim, Combine combine, TypeId scalarTile,
                 TypeId scalarElem, std::uint32_t identityBits);

  /// The whole file. Fails (empty) when error() is set or an entry is open.
  std::vector<std::uint8_t> finish();

private:
  struct Block {
    std::vector<std::uint8_t> buf;
    std::uint64_t numOps = 0;
    std::uint64_t firstValue = 0;
    // for `for`: what to emit into the parent once closed
    std::size_t parentResults = 0;
  };
  using Bytes = std::vector<std::uint8_t>;
  TypeId intern(Bytes encoded);
  std::uint64_t str(const std::string &s);
  std::uint64_t constant(Bytes data);
  Bytes &out();
  ValueId op(std::uint64_t numResults = 1);
  void fail(std::string message);
  bool need(Feature f, const char *what);
  std::vector<ValueId> values(std::uint64_t first, std::uint64_t n) const;

  Version version_;
  std::string error_;
  ModuleRequirements req_;
  std::vector<Bytes> types_;
  std::map<Bytes, std::uint64_t> typeIndex_;
  std::vector<std::string> strings_;
  std::map<std::string, std::uint64_t> stringIndex_;
  std::vector<Bytes> constants_;
  std::map<Bytes, std::uint64_t> constantIndex_;
  Bytes functions_;
  std::uint64_t numFunctions_ = 0;
  bool inEntry_ = false;
  std::string entryName_;
  TypeId entrySig_;
  std::vector<Block> blocks_; ///< [0] = the entry body
  std::uint64_t nextValue_ = 0;
};

// Encoding helpers (exposed for the tests).
void appendVarint(std::vector<std::uint8_t> &buf, std::uint64_t v);
void appendSignedVarint(std::vector<std::uint8_t> &buf, std::int64_t v);

} // namespace kina::tileir
