//===- Bytecode.cpp - A CUDA Tile IR bytecode writer ----------------------===//
//
// Opcodes, type tags and field orders are the frozen public values of
// NVIDIA/cuda-tile (BytecodeOpcodes.td, BytecodeTypeOpcodes.td,
// BytecodeAttrOpcodes.td, lib/Bytecode/Writer) as cuTile Python encodes
// them. Only the ops the block-level kernels need are here.
//
//===----------------------------------------------------------------------===//
#include "tileir/Bytecode.h"

#include <array>
#include <cstring>

namespace kina::tileir {

namespace {

// Section ids (lib/Bytecode/BytecodeEnums.h).
enum : std::uint8_t { kEnd = 0x00, kStrings = 0x01, kFuncs = 0x02, kConsts = 0x04, kTypes = 0x05 };
constexpr std::uint8_t kPad = 0xCB;

// Type tags (BytecodeTypeOpcodes.td).
enum : std::uint8_t {
  kTI1 = 0,
  kTI8 = 1,
  kTI16 = 2,
  kTI32 = 3,
  kTI64 = 4,
  kTF16 = 5,
  kTBF16 = 6,
  kTF32 = 7,
  kTTF32 = 8,
  kTF64 = 9,
  kTF8E4M3FN = 10,
  kTF8E5M2 = 11,
  kTPointer = 12,
  kTTile = 13,
  kTTensorView = 14,
  kTPartitionView = 15,
  kTFunction = 16,
  kTToken = 17
};

// Opcodes (BytecodeOpcodes.td).
enum : std::uint8_t {
  kOpAddF = 0x02,
  kOpAddI = 0x03,
  kOpDivI = 0x15,
  kOpMulI = 0x4E,
  kOpRemI = 0x5A,
  kOpSubI = 0x68,
  kOpBroadcast = 0x0B,
  kOpConstant = 0x10,
  kOpContinue = 0x11,
  kOpDivF = 0x14,
  kOpExp = 0x17,
  kOpForOp = 0x29,
  kOpFToF = 0x2A,
  kOpGetTileBlockId = 0x30,
  kOpLoadViewTko = 0x3E,
  kOpMakePartitionView = 0x42,
  kOpMakeTensorView = 0x43,
  kOpMaxF = 0x45,
  kOpMmaF = 0x49,
  kOpMulF = 0x4C,
  kOpReduce = 0x58,
  kOpReshape = 0x5B,
  kOpReturn = 0x5C,
  kOpStoreViewTko = 0x66,
  kOpSubF = 0x67,
  kOpYield = 0x6D
};

constexpr std::uint8_t kAttrFloat = 0x02; // BytecodeAttrOpcodes.td

constexpr std::array kWriterVersions = {Version{13, 2}, Version{13, 3}};

using Bytes = std::vector<std::uint8_t>;

void appendLE(Bytes &b, std::uint64_t v, unsigned width) {
  for (unsigned i = 0; i < width; ++i)
    b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void appendI64List(Bytes &b, const std::vector<std::int64_t> &v) {
  appendVarint(b, v.size());
  for (std::int64_t x : v)
    appendLE(b, static_cast<std::uint64_t>(x), 8);
}
void appendI32List(Bytes &b, const std::vector<std::int32_t> &v) {
  appendVarint(b, v.size());
  for (std::int32_t x : v)
    appendLE(b, static_cast<std::uint32_t>(x), 4);
}
void padTo(Bytes &b, std::size_t alignment) {
  while (b.size() % alignment)
    b.push_back(kPad);
}

/// A table section: count, offsets (each `indexWidth` bytes, aligned), data.
Bytes tableSection(const std::vector<Bytes> &items, unsigned indexWidth) {
  Bytes s;
  appendVarint(s, items.size());
  padTo(s, indexWidth);
  std::uint64_t off = 0;
  for (const Bytes &it : items) {
    appendLE(s, off, indexWidth);
    off += it.size();
  }
  for (const Bytes &it : items)
    s.insert(s.end(), it.begin(), it.end());
  return s;
}

void appendSection(Bytes &file, std::uint8_t id, const Bytes &data, std::size_t alignment) {
  file.push_back(static_cast<std::uint8_t>(id | (alignment > 1 ? 0x80 : 0)));
  appendVarint(file, data.size());
  if (alignment > 1) {
    appendVarint(file, alignment);
    padTo(file, alignment);
  }
  file.insert(file.end(), data.begin(), data.end());
}

} // namespace

void appendVarint(std::vector<std::uint8_t> &buf, std::uint64_t v) {
  do {
    std::uint8_t byte = v & 0x7F;
    v >>= 7;
    if (v)
      byte |= 0x80;
    buf.push_back(byte);
  } while (v);
}

void appendSignedVarint(std::vector<std::uint8_t> &buf, std::int64_t v) {
  auto u = static_cast<std::uint64_t>(v);
  appendVarint(buf, (u << 1) ^ static_cast<std::uint64_t>(v >> 63));
}

std::span<const Version> writerVersions() { return kWriterVersions; }

BytecodeWriter::BytecodeWriter(Version version) : version_(version) {
  bool ok = false;
  for (Version v : kWriterVersions)
    ok |= v == version;
  if (!ok)
    fail("the Tile IR bytecode writer cannot encode version " + version.str());
  req_.add(Feature::Baseline);
}

void BytecodeWriter::fail(std::string message) {
  if (error_.empty())
    error_ = std::move(message);
}

bool BytecodeWriter::need(Feature f, const char *what) {
  req_.add(f);
  if (featureInVersion(f, version_))
    return true;
  fail(std::string(what) + " (`" + std::string(featureRow(f).name) + "`) needs Tile IR " +
       featureRow(f).since.str() + "; the writer is emitting " + version_.str());
  return false;
}

TypeId BytecodeWriter::intern(Bytes encoded) {
  auto it = typeIndex_.find(encoded);
  if (it != typeIndex_.end())
    return {it->second};
  std::uint64_t id = types_.size();
  typeIndex_.emplace(encoded, id);
  types_.push_back(std::move(encoded));
  return {id};
}

std::uint64_t BytecodeWriter::str(const std::string &s) {
  auto it = stringIndex_.find(s);
  if (it != stringIndex_.end())
    return it->second;
  std::uint64_t id = strings_.size();
  stringIndex_.emplace(s, id);
  strings_.push_back(s);
  return id;
}

std::uint64_t BytecodeWriter::constant(Bytes data) {
  Bytes enc;
  appendVarint(enc, data.size());
  enc.insert(enc.end(), data.begin(), data.end());
  auto it = constantIndex_.find(enc);
  if (it != constantIndex_.end())
    return it->second;
  std::uint64_t id = constants_.size();
  constantIndex_.emplace(enc, id);
  constants_.push_back(std::move(enc));
  return id;
}

TypeId BytecodeWriter::scalar(Scalar s) {
  static constexpr std::uint8_t tags[] = {kTI1,   kTI8,  kTI16,  kTI32, kTI64,      kTF16,
                                          kTBF16, kTF32, kTTF32, kTF64, kTF8E4M3FN, kTF8E5M2};
  if (s == Scalar::F8E4M3FN || s == Scalar::F8E5M2)
    need(Feature::F8E4M3FNE5M2, "an fp8 element type");
  return intern(Bytes{tags[static_cast<unsigned>(s)]});
}

TypeId BytecodeWriter::token() { return intern(Bytes{kTToken}); }

TypeId BytecodeWriter::pointer(TypeId pointee) {
  Bytes b{kTPointer};
  appendVarint(b, pointee.id);
  return intern(std::move(b));
}

TypeId BytecodeWriter::tile(TypeId element, const std::vector<std::int64_t> &shape) {
  Bytes b{kTTile};
  appendVarint(b, element.id);
  appendI64List(b, shape);
  return intern(std::move(b));
}

TypeId BytecodeWriter::tensorView(TypeId element, const std::vector<std::int64_t> &shape,
                                  const std::vector<std::int64_t> &strides) {
  Bytes b{kTTensorView};
  appendVarint(b, element.id);
  appendI64List(b, shape);
  appendI64List(b, strides);
  return intern(std::move(b));
}

TypeId BytecodeWriter::partitionView(const std::vector<std::int32_t> &tileShape, TypeId tv,
                                     const std::vector<std::int32_t> &dimMap,
                                     std::optional<Padding> padding) {
  Bytes b{kTPartitionView};
  bool unified = version_ >= Version{13, 3}; // the unified optional-field bitfield
  if (unified)
    appendVarint(b, padding ? 1 : 0);
  appendI32List(b, tileShape);
  appendVarint(b, tv.id);
  appendI32List(b, dimMap);
  if (!unified)
    b.push_back(padding ? 1 : 0);
  if (padding)
    b.push_back(static_cast<std::uint8_t>(*padding));
  return intern(std::move(b));
}

TypeId BytecodeWriter::function(const std::vector<TypeId> &params,
                                const std::vector<TypeId> &results) {
  Bytes b{kTFunction};
  appendVarint(b, params.size());
  for (TypeId t : params)
    appendVarint(b, t.id);
  appendVarint(b, results.size());
  for (TypeId t : results)
    appendVarint(b, t.id);
  return intern(std::move(b));
}

std::vector<ValueId> BytecodeWriter::values(std::uint64_t first, std::uint64_t n) const {
  std::vector<ValueId> v;
  for (std::uint64_t i = 0; i < n; ++i)
    v.push_back({first + i});
  return v;
}

std::vector<ValueId> BytecodeWriter::beginEntry(const std::string &name,
                                                const std::vector<TypeId> &params) {
  if (inEntry_)
    fail("beginEntry inside an open entry");
  inEntry_ = true;
  entryName_ = name;
  entrySig_ = function(params, {});
  blocks_.assign(1, Block{});
  nextValue_ = params.size();
  return values(0, params.size());
}

BytecodeWriter::Bytes &BytecodeWriter::out() {
  if (blocks_.empty()) {
    fail("an op outside an entry function");
    blocks_.emplace_back();
  }
  return blocks_.back().buf;
}

ValueId BytecodeWriter::op(std::uint64_t numResults) {
  blocks_.back().numOps++;
  ValueId first{nextValue_};
  nextValue_ += numResults;
  return first;
}

void BytecodeWriter::endEntry() {
  if (!inEntry_ || blocks_.size() != 1) {
    fail("endEntry without a matching beginEntry, or with an open region");
    return;
  }
  Bytes &f = functions_;
  appendVarint(f, str(entryName_));
  appendVarint(f, entrySig_.id);
  f.push_back(0x02);  // kernel entry point, public, no optimization hints
  appendVarint(f, 0); // location: the reserved unknown location
  appendVarint(f, blocks_[0].buf.size());
  f.insert(f.end(), blocks_[0].buf.begin(), blocks_[0].buf.end());
  ++numFunctions_;
  blocks_.clear();
  inEntry_ = false;
}

ValueId BytecodeWriter::constantSplat(TypeId tileType, std::uint64_t bits, unsigned byteWidth) {
  Bytes &b = out();
  appendVarint(b, kOpConstant);
  appendVarint(b, tileType.id);
  Bytes data;
  appendLE(data, bits, byteWidth); // a splat stores one element (MLIR's raw splat form)
  appendVarint(b, constant(std::move(data)));
  return op();
}

ValueId BytecodeWriter::constantI32(std::int32_t v) {
  TypeId t = tile(scalar(Scalar::I32), {});
  return constantSplat(t, static_cast<std::uint32_t>(v), 4);
}

std::vector<ValueId> BytecodeWriter::tileBlockId() {
  TypeId t = tile(scalar(Scalar::I32), {});
  Bytes &b = out();
  appendVarint(b, kOpGetTileBlockId);
  for (int i = 0; i < 3; ++i)
    appendVarint(b, t.id);
  ValueId first = op(3);
  return values(first.id, 3);
}

ValueId BytecodeWriter::makeTensorView(TypeId tvType, ValueId base) {
  return makeTensorView(tvType, base, {}, {});
}

ValueId BytecodeWriter::makeTensorView(TypeId tvType, ValueId base,
                                       const std::vector<ValueId> &dynShape,
                                       const std::vector<ValueId> &dynStrides) {
  Bytes &b = out();
  appendVarint(b, kOpMakeTensorView);
  appendVarint(b, 1);
  appendVarint(b, tvType.id);
  appendVarint(b, base.id);
  for (const auto *vs : {&dynShape, &dynStrides}) {
    appendVarint(b, vs->size());
    for (ValueId v : *vs)
      appendVarint(b, v.id);
  }
  return op();
}

ValueId BytecodeWriter::makePartitionView(TypeId pvType, ValueId tv) {
  Bytes &b = out();
  appendVarint(b, kOpMakePartitionView);
  appendVarint(b, pvType.id);
  appendVarint(b, tv.id);
  return op();
}

std::pair<ValueId, ValueId> BytecodeWriter::loadView(TypeId tileType, ValueId view,
                                                     const std::vector<ValueId> &index) {
  TypeId tok = token();
  Bytes &b = out();
  appendVarint(b, kOpLoadViewTko);
  appendVarint(b, 2);
  appendVarint(b, tileType.id);
  appendVarint(b, tok.id);
  appendVarint(b, 0); // flags: no memory scope, no hints, no input token
  b.push_back(0);     // memory ordering: weak
  appendVarint(b, view.id);
  appendVarint(b, index.size());
  for (ValueId v : index)
    appendVarint(b, v.id);
  ValueId first = op(2);
  return {first, ValueId{first.id + 1}};
}

ValueId BytecodeWriter::storeView(ValueId t, ValueId view, const std::vector<ValueId> &index) {
  TypeId tok = token();
  Bytes &b = out();
  appendVarint(b, kOpStoreViewTko);
  appendVarint(b, 1);
  appendVarint(b, tok.id);
  appendVarint(b, 0); // flags
  b.push_back(0);     // weak
  appendVarint(b, t.id);
  appendVarint(b, view.id);
  appendVarint(b, index.size());
  for (ValueId v : index)
    appendVarint(b, v.id);
  return op();
}

ValueId BytecodeWriter::binaryF(FBin fop, TypeId type, ValueId lhs, ValueId rhs) {
  static constexpr std::uint8_t codes[] = {kOpAddF, kOpSubF, kOpMulF, kOpDivF};
  Bytes &b = out();
  appendVarint(b, codes[static_cast<unsigned>(fop)]);
  appendVarint(b, type.id);
  appendVarint(b, 0); // flags: no flush_to_zero
  b.push_back(static_cast<std::uint8_t>(Rounding::NearestEven));
  appendVarint(b, lhs.id);
  appendVarint(b, rhs.id);
  return op();
}

ValueId BytecodeWriter::maxF(TypeId type, ValueId lhs, ValueId rhs) {
  Bytes &b = out();
  appendVarint(b, kOpMaxF);
  appendVarint(b, type.id);
  appendVarint(b, 0); // flags: no propagate_nan, no flush_to_zero
  appendVarint(b, lhs.id);
  appendVarint(b, rhs.id);
  return op();
}

ValueId BytecodeWriter::binaryI(IBin iop, TypeId type, ValueId lhs, ValueId rhs) {
  Bytes &b = out();
  switch (iop) {
  case IBin::Add:
  case IBin::Sub:
  case IBin::Mul:
    appendVarint(b, iop == IBin::Add ? kOpAddI : iop == IBin::Sub ? kOpSubI : kOpMulI);
    appendVarint(b, type.id);
    b.push_back(0); // overflow: none (wrapping)
    break;
  case IBin::DivTrunc:
  case IBin::DivFloor:
  case IBin::DivCeil:
    appendVarint(b, kOpDivI);
    appendVarint(b, type.id);
    b.push_back(1); // signed
    b.push_back(static_cast<std::uint8_t>(iop == IBin::DivTrunc   ? Rounding::Zero
                                          : iop == IBin::DivFloor ? Rounding::NegativeInf
                                                                  : Rounding::PositiveInf));
    break;
  case IBin::Rem:
    appendVarint(b, kOpRemI);
    appendVarint(b, type.id);
    b.push_back(1); // signed
    break;
  }
  appendVarint(b, lhs.id);
  appendVarint(b, rhs.id);
  return op();
}

ValueId BytecodeWriter::exp(TypeId type, ValueId x) {
  Bytes &b = out();
  appendVarint(b, kOpExp);
  appendVarint(b, type.id);
  // 13.3 added the rounding attribute; `full` is what older versions mean,
  // so writing it needs no newer feature.
  if (version_ >= Version{13, 3})
    b.push_back(static_cast<std::uint8_t>(Rounding::Full));
  appendVarint(b, x.id);
  return op();
}

ValueId BytecodeWriter::mmaF(TypeId type, ValueId a, ValueId bb, ValueId acc, bool fastAcc) {
  if (fastAcc && !need(Feature::MmafFastAcc, "mmaf with fast accumulation"))
    return ValueId{};
  Bytes &b = out();
  appendVarint(b, kOpMmaF);
  appendVarint(b, type.id);
  if (version_ >= Version{13, 3})
    appendVarint(b, fastAcc ? 1 : 0); // flags: fast_acc (the bit 13.3 added)
  appendVarint(b, a.id);
  appendVarint(b, bb.id);
  appendVarint(b, acc.id);
  return op();
}

ValueId BytecodeWriter::ftof(TypeId toType, ValueId x) {
  Bytes &b = out();
  appendVarint(b, kOpFToF);
  appendVarint(b, toType.id);
  b.push_back(static_cast<std::uint8_t>(Rounding::NearestEven));
  appendVarint(b, x.id);
  return op();
}

ValueId BytecodeWriter::broadcast(TypeId type, ValueId x) {
  Bytes &b = out();
  appendVarint(b, kOpBroadcast);
  appendVarint(b, type.id);
  appendVarint(b, x.id);
  return op();
}

ValueId BytecodeWriter::reshape(TypeId type, ValueId x) {
  Bytes &b = out();
  appendVarint(b, kOpReshape);
  appendVarint(b, type.id);
  appendVarint(b, x.id);
  return op();
}

void BytecodeWriter::ret() {
  Bytes &b = out();
  appendVarint(b, kOpReturn);
  appendVarint(b, 0); // no result types
  appendVarint(b, 0); // no operands
  op(0);
}

std::vector<ValueId> BytecodeWriter::beginFor(ValueId lb, ValueId ub, ValueId step,
                                              const std::vector<ValueId> &init,
                                              const std::vector<TypeId> &iterTypes, TypeId ivType) {
  Bytes &b = out();
  appendVarint(b, kOpForOp);
  appendVarint(b, iterTypes.size());
  for (TypeId t : iterTypes)
    appendVarint(b, t.id);
  if (version_ >= Version{13, 2})
    appendVarint(b, 0); // flags: signed comparison
  appendVarint(b, 3 + init.size());
  for (ValueId v : {lb, ub, step})
    appendVarint(b, v.id);
  for (ValueId v : init)
    appendVarint(b, v.id);
  appendVarint(b, 1); // one region
  appendVarint(b, 1); // with one block
  appendVarint(b, 1 + iterTypes.size());
  appendVarint(b, ivType.id);
  for (TypeId t : iterTypes)
    appendVarint(b, t.id);
  Block body;
  body.firstValue = nextValue_;
  body.parentResults = iterTypes.size();
  blocks_.push_back(std::move(body));
  std::uint64_t first = nextValue_;
  nextValue_ += 1 + iterTypes.size();
  return values(first, 1 + iterTypes.size());
}

std::vector<ValueId> BytecodeWriter::endFor(const std::vector<ValueId> &yielded) {
  if (blocks_.size() < 2) {
    fail("endFor without beginFor");
    return {};
  }
  Bytes &cb = out();
  appendVarint(cb, kOpContinue);
  appendVarint(cb, 0);
  appendVarint(cb, yielded.size());
  for (ValueId v : yielded)
    appendVarint(cb, v.id);
  blocks_.back().numOps++;
  Block body = std::move(blocks_.back());
  blocks_.pop_back();
  if (yielded.size() != body.parentResults)
    fail("endFor: the loop carries " + std::to_string(body.parentResults) + " values but " +
         std::to_string(yielded.size()) + " were yielded");
  Bytes &b = out();
  appendVarint(b, body.numOps);
  b.insert(b.end(), body.buf.begin(), body.buf.end());
  nextValue_ = body.firstValue; // the body's values are out of scope
  ValueId first = op(body.parentResults);
  return values(first.id, body.parentResults);
}

ValueId BytecodeWriter::reduce(TypeId resultType, ValueId x, std::int64_t dim, Combine combine,
                               TypeId scalarTile, TypeId scalarElem, std::uint32_t identityBits) {
  Bytes &b = out();
  appendVarint(b, kOpReduce);
  appendVarint(b, 1);
  appendVarint(b, resultType.id);
  appendVarint(b, static_cast<std::uint64_t>(dim));
  appendVarint(b, 1); // identities: one tagged float attribute
  appendVarint(b, kAttrFloat);
  appendVarint(b, scalarElem.id);
  appendSignedVarint(b, static_cast<std::int64_t>(identityBits));
  appendVarint(b, 1); // operands
  appendVarint(b, x.id);
  appendVarint(b, 1); // one region
  appendVarint(b, 1); // one block
  appendVarint(b, 2);
  appendVarint(b, scalarTile.id);
  appendVarint(b, scalarTile.id);
  // The combiner block: (%cur, %acc) -> combine -> yield.
  std::uint64_t a0 = nextValue_, a1 = nextValue_ + 1, r = nextValue_ + 2;
  Bytes body;
  if (combine == Combine::AddF) {
    appendVarint(body, kOpAddF);
    appendVarint(body, scalarTile.id);
    appendVarint(body, 0);
    body.push_back(static_cast<std::uint8_t>(Rounding::NearestEven));
  } else {
    appendVarint(body, kOpMaxF);
    appendVarint(body, scalarTile.id);
    appendVarint(body, 0);
  }
  appendVarint(body, a0);
  appendVarint(body, a1);
  appendVarint(body, kOpYield);
  appendVarint(body, 0);
  appendVarint(body, 1);
  appendVarint(body, r);
  appendVarint(b, 2); // two ops
  b.insert(b.end(), body.begin(), body.end());
  return op();
}

std::vector<std::uint8_t> BytecodeWriter::finish() {
  if (inEntry_)
    fail("finish with an open entry function");
  if (!error_.empty())
    return {};
  Bytes file = {0x7F, 'T', 'i', 'l', 'e', 'I', 'R', 0x00};
  file.push_back(version_.major);
  file.push_back(version_.minor);
  appendLE(file, 0, 2); // tag
  Bytes funcs;
  appendVarint(funcs, numFunctions_);
  funcs.insert(funcs.end(), functions_.begin(), functions_.end());
  padTo(funcs, 8);
  appendSection(file, kFuncs, funcs, 8);
  if (!constants_.empty())
    appendSection(file, kConsts, tableSection(constants_, 8), 8);
  appendSection(file, kTypes, tableSection(types_, 4), 4);
  std::vector<Bytes> strs;
  for (const std::string &s : strings_)
    strs.emplace_back(s.begin(), s.end());
  appendSection(file, kStrings, tableSection(strs, 4), 4);
  file.push_back(kEnd);
  return file;
}

} // namespace kina::tileir
