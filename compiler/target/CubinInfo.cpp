//===- CubinInfo.cpp - Reading .nv.info attributes from a cubin -----------===//
//
// ELF64 little-endian through llvm::object::ELFFile; the NVIDIA-specific
// parts (.nv.info record stream, sh_info register byte) are decoded here.
//
//===----------------------------------------------------------------------===//
#include "target/CubinInfo.h"

#include "target/TargetError.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <map>

namespace kina::target {
namespace {

using ELFT = llvm::object::ELF64LE;

// .nv.info record formats and the attributes Kina reads.
constexpr std::uint8_t kFmtSval = 0x04;
constexpr std::uint8_t kAttrMaxThreads = 0x05;
constexpr std::uint8_t kAttrReqNtid = 0x10;
constexpr std::uint8_t kAttrFrameSize = 0x11;
constexpr std::uint8_t kAttrMinStackSize = 0x12;
constexpr std::uint8_t kAttrKParamInfo = 0x17;
constexpr std::uint8_t kAttrCbankParamSize = 0x19;
constexpr std::uint8_t kAttrMaxRegCount = 0x1b;
constexpr std::uint8_t kAttrRegCount = 0x2f;
constexpr std::uint8_t kAttrNumBarriers = 0x4c;
constexpr std::uint8_t kStoCudaEntry = 0x10;

struct Record {
  std::uint8_t format;
  std::uint8_t attr;
  std::uint16_t value;             ///< the value, or the data size for SVAL
  llvm::ArrayRef<std::uint8_t> data; ///< SVAL payload
};

llvm::Expected<std::vector<Record>> decodeNvInfo(llvm::ArrayRef<std::uint8_t> bytes,
                                                 llvm::StringRef section) {
  std::vector<Record> out;
  size_t pos = 0;
  while (pos + 4 <= bytes.size()) {
    Record r;
    r.format = bytes[pos];
    r.attr = bytes[pos + 1];
    r.value = llvm::support::endian::read16le(bytes.data() + pos + 2);
    pos += 4;
    if (r.format == kFmtSval) {
      if (pos + r.value > bytes.size())
        return makeTargetError(DiagId::InvalidCubin,
                               "cubin section " + section.str() +
                                   " has a truncated attribute record");
      r.data = bytes.slice(pos, r.value);
      pos += r.value;
    }
    out.push_back(r);
  }
  return out;
}

std::uint32_t u32At(llvm::ArrayRef<std::uint8_t> d, size_t off) {
  return off + 4 <= d.size() ? llvm::support::endian::read32le(d.data() + off) : 0;
}

std::array<unsigned, 3> dims(llvm::ArrayRef<std::uint8_t> d) {
  return {u32At(d, 0), u32At(d, 4), u32At(d, 8)};
}

} // namespace

const CubinFunctionInfo *CubinInfo::find(std::string_view name) const {
  for (const CubinFunctionInfo &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

llvm::Expected<CubinInfo> readCubin(std::span<const std::uint8_t> bytes) {
  llvm::StringRef buf(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  if (bytes.size() < 64 || !buf.starts_with("\x7f"
                                            "ELF"))
    return makeTargetError(DiagId::InvalidCubin, "the cubin is not an ELF file");
  if (bytes[4] != 2 || bytes[5] != 1)
    return makeTargetError(DiagId::InvalidCubin, "the cubin is not a 64-bit little-endian ELF");
  auto elfOr = llvm::object::ELFFile<ELFT>::create(buf);
  if (!elfOr)
    return makeTargetError(DiagId::InvalidCubin,
                           "cannot read the cubin: " + llvm::toString(elfOr.takeError()));
  const llvm::object::ELFFile<ELFT> &elf = *elfOr;
  auto sectionsOr = elf.sections();
  if (!sectionsOr)
    return makeTargetError(DiagId::InvalidCubin, "cannot read the cubin's section table: " +
                                                     llvm::toString(sectionsOr.takeError()));

  // Symbol index -> name, and which symbols are kernel entries.
  std::map<std::uint32_t, std::string> symbolNames;
  std::map<std::string, bool> isEntry;
  for (const auto &sec : *sectionsOr) {
    if (sec.sh_type != llvm::ELF::SHT_SYMTAB)
      continue;
    auto syms = elf.symbols(&sec);
    auto strtab = elf.getStringTableForSymtab(sec);
    if (!syms || !strtab) {
      if (!syms)
        llvm::consumeError(syms.takeError());
      if (!strtab)
        llvm::consumeError(strtab.takeError());
      return makeTargetError(DiagId::InvalidCubin, "the cubin's symbol table is malformed");
    }
    std::uint32_t index = 0;
    for (const auto &sym : *syms) {
      auto name = sym.getName(*strtab);
      if (name) {
        symbolNames[index] = name->str();
        if (sym.getType() == llvm::ELF::STT_FUNC)
          isEntry[name->str()] = (sym.st_other & kStoCudaEntry) != 0;
      } else {
        llvm::consumeError(name.takeError());
      }
      ++index;
    }
  }

  CubinInfo info;
  auto function = [&](llvm::StringRef name) -> CubinFunctionInfo & {
    for (CubinFunctionInfo &f : info.functions)
      if (f.name == name)
        return f;
    info.functions.push_back(CubinFunctionInfo{});
    info.functions.back().name = name.str();
    return info.functions.back();
  };

  // First pass: the functions (.text.<fn>) with their sizes.
  for (const auto &sec : *sectionsOr) {
    auto nameOr = elf.getSectionName(sec);
    if (!nameOr) {
      llvm::consumeError(nameOr.takeError());
      continue;
    }
    llvm::StringRef name = *nameOr;
    if (name.consume_front(".text.")) {
      CubinFunctionInfo &f = function(name);
      f.codeBytes = sec.sh_size;
      // Older cubins keep the register count in the top byte of sh_info;
      // newer ones (sm_90a with CUDA 13) leave it zero.
      if (sec.sh_info >> 24)
        f.sectionRegisters = sec.sh_info >> 24;
      if (auto it = isEntry.find(name.str()); it != isEntry.end())
        f.isEntry = it->second;
    }
  }
  bool reservedShared = false;
  for (const auto &sec : *sectionsOr) {
    auto nameOr = elf.getSectionName(sec);
    if (!nameOr)
      llvm::consumeError(nameOr.takeError());
    else if (nameOr->starts_with(".nv.shared.reserved."))
      reservedShared = true;
  }
  for (CubinFunctionInfo &f : info.functions)
    f.usesReservedShared = reservedShared;

  // Second pass: shared/constant sizes and attributes.
  for (const auto &sec : *sectionsOr) {
    auto nameOr = elf.getSectionName(sec);
    if (!nameOr) {
      llvm::consumeError(nameOr.takeError());
      continue;
    }
    llvm::StringRef name = *nameOr;
    llvm::StringRef fn = name;
    if (fn.consume_front(".nv.shared.")) {
      if (!fn.starts_with("reserved.") && info.find(fn.str()))
        function(fn).sharedBytes = sec.sh_size;
      continue;
    }
    if (fn.consume_front(".nv.constant0.")) {
      if (info.find(fn.str()))
        function(fn).constBank0Bytes = sec.sh_size;
      continue;
    }
    if (!name.starts_with(".nv.info"))
      continue;
    auto contents = elf.getSectionContents(sec);
    if (!contents)
      return makeTargetError(DiagId::InvalidCubin, "cannot read " + name.str() + ": " +
                                                       llvm::toString(contents.takeError()));
    auto records = decodeNvInfo(*contents, name);
    if (!records)
      return records.takeError();
    bool global = name == ".nv.info";
    CubinFunctionInfo *owner = nullptr;
    if (!global && fn.consume_front(".nv.info.")) {
      if (!info.find(fn.str()))
        continue;
      owner = &function(fn);
    }
    for (const Record &r : *records) {
      if (global) {
        // Global records are [symbol index u32][value u32].
        if (r.format != kFmtSval || r.data.size() < 8)
          continue;
        auto sym = symbolNames.find(u32At(r.data, 0));
        if (sym == symbolNames.end() || !info.find(sym->second))
          continue;
        CubinFunctionInfo &f = function(sym->second);
        std::uint32_t v = u32At(r.data, 4);
        if (r.attr == kAttrRegCount)
          f.registers = v;
        else if (r.attr == kAttrFrameSize)
          f.frameSize = v;
        else if (r.attr == kAttrMinStackSize)
          f.minStackSize = v;
        continue;
      }
      if (!owner)
        continue;
      switch (r.attr) {
      case kAttrMaxThreads:
        if (r.data.size() >= 12)
          owner->maxThreads = dims(r.data);
        break;
      case kAttrReqNtid:
        if (r.data.size() >= 12)
          owner->reqThreads = dims(r.data);
        break;
      case kAttrCbankParamSize:
        owner->paramBytes = r.value;
        break;
      case kAttrMaxRegCount:
        owner->maxRegCount = r.value;
        break;
      case kAttrNumBarriers:
        owner->barriers = r.value & 0xff;
        break;
      case kAttrKParamInfo:
        if (r.data.size() >= 12) {
          CubinParam p;
          p.ordinal = llvm::support::endian::read16le(r.data.data() + 4);
          p.offset = llvm::support::endian::read16le(r.data.data() + 6);
          p.size = u32At(r.data, 8) >> 18;
          owner->params.push_back(p);
        }
        break;
      default:
        break;
      }
    }
    if (owner)
      std::sort(owner->params.begin(), owner->params.end(),
                [](const CubinParam &a, const CubinParam &b) { return a.ordinal < b.ordinal; });
  }
  return info;
}

} // namespace kina::target
