//===- Sass.cpp - nvdisasm output parsing and instruction mix -------------===//
//
// Recognises `.text.<fn>` section headers and instruction lines of the form
// `/*0040*/  @!P0 IADD3 R2, P0, R9, c[0x0][0x160], RZ ;`.
//
//===----------------------------------------------------------------------===//
#include "target/Sass.h"

#include "target/TargetError.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"

#include <array>

namespace kina::target {
namespace {

struct OpcodeClass {
  std::string_view opcode;
  SassClass cls;
};
constexpr std::array kOpcodeClasses = {
    OpcodeClass{"HMMA", SassClass::TensorCore},    OpcodeClass{"HGMMA", SassClass::TensorCore},
    OpcodeClass{"IMMA", SassClass::TensorCore},    OpcodeClass{"IGMMA", SassClass::TensorCore},
    OpcodeClass{"QMMA", SassClass::TensorCore},    OpcodeClass{"QGMMA", SassClass::TensorCore},
    OpcodeClass{"BMMA", SassClass::TensorCore},    OpcodeClass{"BGMMA", SassClass::TensorCore},
    OpcodeClass{"DMMA", SassClass::TensorCore},    OpcodeClass{"OMMA", SassClass::TensorCore},
    OpcodeClass{"LDGSTS", SassClass::AsyncCopy},   OpcodeClass{"LDGDEPBAR", SassClass::AsyncCopy},
    OpcodeClass{"UTMALDG", SassClass::AsyncCopy},  OpcodeClass{"UTMASTG", SassClass::AsyncCopy},
    OpcodeClass{"UTMAPF", SassClass::AsyncCopy},   OpcodeClass{"UBLKCP", SassClass::AsyncCopy},
    OpcodeClass{"UTMAREDG", SassClass::AsyncCopy}, OpcodeClass{"LDSM", SassClass::MatrixLoad},
    OpcodeClass{"STSM", SassClass::MatrixLoad},    OpcodeClass{"BAR", SassClass::Barrier},
    OpcodeClass{"SYNCS", SassClass::Barrier},      OpcodeClass{"DEPBAR", SassClass::Barrier},
    OpcodeClass{"WARPSYNC", SassClass::Barrier},   OpcodeClass{"MEMBAR", SassClass::Barrier},
    OpcodeClass{"LDL", SassClass::LocalMemory},    OpcodeClass{"STL", SassClass::LocalMemory},
    OpcodeClass{"LDG", SassClass::GlobalMemory},   OpcodeClass{"STG", SassClass::GlobalMemory},
    OpcodeClass{"ATOMG", SassClass::GlobalMemory}, OpcodeClass{"RED", SassClass::GlobalMemory},
    OpcodeClass{"LDS", SassClass::SharedMemory},   OpcodeClass{"STS", SassClass::SharedMemory},
    OpcodeClass{"ATOMS", SassClass::SharedMemory},
};

} // namespace

std::string_view sassClassName(SassClass c) {
  switch (c) {
  case SassClass::TensorCore:
    return "tensor core";
  case SassClass::AsyncCopy:
    return "async copy";
  case SassClass::MatrixLoad:
    return "ldmatrix/stmatrix";
  case SassClass::Barrier:
    return "barrier/sync";
  case SassClass::LocalMemory:
    return "local memory (spills)";
  case SassClass::GlobalMemory:
    return "global memory";
  case SassClass::SharedMemory:
    return "shared memory";
  case SassClass::Other:
    return "other";
  }
  return "other";
}

SassClass classifySassOpcode(std::string_view opcode) {
  for (const OpcodeClass &oc : kOpcodeClasses)
    if (oc.opcode == opcode)
      return oc.cls;
  // Blackwell tensor-core ops: UTCHMMA, UTCQMMA, UTCIMMA, UTCOMMA, ...
  llvm::StringRef op(opcode.data(), opcode.size());
  if (op.starts_with("UTC") && op.ends_with("MMA"))
    return SassClass::TensorCore;
  return SassClass::Other;
}

unsigned SassFunction::count(std::string_view opcode) const {
  auto it = opcodeCounts.find(std::string(opcode));
  return it == opcodeCounts.end() ? 0 : it->second;
}

unsigned SassFunction::count(SassClass c) const {
  auto it = classCounts.find(c);
  return it == classCounts.end() ? 0 : it->second;
}

const SassFunction *SassListing::find(std::string_view name) const {
  for (const SassFunction &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

SassListing parseSass(std::string_view output) {
  SassListing listing;
  listing.text = std::string(output);
  SassFunction *current = nullptr;
  llvm::StringRef rest(output.data(), output.size());
  while (!rest.empty()) {
    auto [rawLine, tail] = rest.split('\n');
    rest = tail;
    llvm::StringRef line = rawLine.trim();
    if (line.starts_with(".section ") || line.starts_with(".section\t")) {
      llvm::StringRef name =
          line.drop_front(8).trim().take_until([](char c) { return c == ','; }).trim();
      if (name.consume_front(".text.")) {
        listing.functions.push_back(SassFunction{});
        listing.functions.back().name = name.str();
        current = &listing.functions.back();
      } else {
        current = nullptr;
      }
      continue;
    }
    if (!current || !line.starts_with("/*"))
      continue;
    size_t close = line.find("*/");
    if (close == llvm::StringRef::npos)
      continue;
    SassInstruction inst;
    if (line.substr(2, close - 2).trim().getAsInteger(16, inst.offset))
      continue;
    llvm::StringRef body = line.substr(close + 2).trim();
    // Encoding-only continuation lines (`/* 0x... */`) have no body.
    if (body.empty() || body.starts_with("/*"))
      continue;
    size_t end = body.find(" ;");
    inst.text = (end == llvm::StringRef::npos ? body : body.substr(0, end + 2)).str();
    llvm::StringRef words = body;
    if (words.starts_with("@")) // predicate guard such as @!P0
      words = words.drop_until([](char c) { return c == ' '; }).trim();
    llvm::StringRef mnemonic = words.take_until([](char c) { return c == ' ' || c == ';'; });
    llvm::StringRef base = mnemonic.take_until([](char c) { return c == '.'; });
    if (base.empty())
      continue;
    inst.opcode = base.str();
    current->opcodeCounts[inst.opcode]++;
    current->classCounts[classifySassOpcode(inst.opcode)]++;
    current->total++;
    current->instructions.push_back(std::move(inst));
  }
  return listing;
}

llvm::Expected<SassListing> disassembleCubin(std::span<const std::uint8_t> cubin,
                                             const ToolSearchOptions &search, bool lineInfo) {
  auto tool = findTool(Tool::Nvdisasm, search);
  if (!tool)
    return tool.takeError();
  llvm::SmallString<128> path;
  int fd = -1;
  if (auto ec = llvm::sys::fs::createTemporaryFile("kina", "cubin", fd, path))
    return makeTargetError(DiagId::ToolFailed, "cannot create a temporary file: " + ec.message());
  llvm::FileRemover remover(path);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(cubin.data()), cubin.size());
  }
  std::vector<std::string> args{"-c", path.str().str()};
  if (lineInfo)
    args.insert(args.begin(), "--print-line-info");
  auto run = runProcess(tool->path, args);
  if (!run)
    return run.takeError();
  if (run->exitCode != 0)
    return makeTargetError(DiagId::ToolFailed, "nvdisasm failed (exit code " +
                                                   std::to_string(run->exitCode) +
                                                   "): " + run->err + run->out);
  return parseSass(run->out);
}

} // namespace kina::target
