//===- Assembler.cpp - Finding tileiras and choosing the version ----------===//
#include "tileir/Assembler.h"

#include "target/TargetError.h"
#include "tileir/Bytecode.h"
#include "tileir/SmokeKernels.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace kina::tileir {

using target::makeTargetError;

namespace {

std::string joinVersions(const std::vector<Version> &vs) {
  std::string s;
  for (const Version &v : vs)
    s += (s.empty() ? "" : ", ") + v.str();
  return s.empty() ? std::string("none") : s;
}

std::string firstLines(const std::string &text, unsigned n = 12) {
  std::istringstream in(text);
  std::string line, out;
  for (unsigned i = 0; i < n && std::getline(in, line); ++i)
    out += "\n  " + line;
  return out;
}

bool writerHas(Version v) {
  auto ws = writerVersions();
  return std::find(ws.begin(), ws.end(), v) != ws.end();
}

} // namespace

std::string AssemblerChoice::describe() const {
  std::string s = "tileiras " + tool.path + " (";
  s += how == How::Listed ? "--list-versions: " : "probed, accepts: ";
  s += joinVersions(accepted) + ")";
  return s;
}

llvm::Expected<std::optional<std::vector<Version>>> listVersions(const target::ToolLocation &tool) {
  auto r = target::runProcess(tool.path, {"--list-versions"}, 60);
  if (!r)
    return r.takeError();
  if (r->exitCode != 0)
    return std::nullopt;
  std::vector<Version> vs;
  std::istringstream in(r->out);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.pop_back();
    auto start = line.find_first_not_of(' ');
    if (start == std::string::npos)
      continue;
    if (auto v = parseVersion(std::string_view(line).substr(start)))
      vs.push_back(*v);
  }
  if (vs.empty())
    return std::nullopt;
  std::sort(vs.begin(), vs.end());
  vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
  return vs;
}

std::vector<std::uint8_t> probeKernel(Version v) {
  return elementwiseAddKernel(v, 128, 128).bytecode;
}

llvm::Expected<std::vector<std::uint8_t>> assemble(const target::ToolLocation &tool,
                                                   const std::vector<std::uint8_t> &bytecode,
                                                   Target target, unsigned optLevel) {
  llvm::SmallString<128> in, out;
  if (auto ec = llvm::sys::fs::createTemporaryFile("kina-tileir", "tileirbc", in))
    return makeTargetError(DiagId::RuntimeIoError,
                           "cannot create a temporary file: " + ec.message());
  if (auto ec = llvm::sys::fs::createTemporaryFile("kina-tileir", "cubin", out)) {
    llvm::sys::fs::remove(in);
    return makeTargetError(DiagId::RuntimeIoError,
                           "cannot create a temporary file: " + ec.message());
  }
  struct Cleanup {
    llvm::SmallString<128> &a, &b;
    ~Cleanup() {
      llvm::sys::fs::remove(a);
      llvm::sys::fs::remove(b);
    }
  } cleanup{in, out};
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    if (ec)
      return makeTargetError(DiagId::RuntimeIoError, "cannot write " + in.str().str());
    os.write(reinterpret_cast<const char *>(bytecode.data()), bytecode.size());
  }
  std::string gpu = "--gpu-name=" + std::string(targetRow(target).name);
  auto r = target::runProcess(
      tool.path, {gpu, "-O" + std::to_string(optLevel), "-o", out.str().str(), in.str().str()},
      300);
  if (!r)
    return r.takeError();
  if (r->exitCode != 0)
    return makeTargetError(DiagId::TileIrAssemblyFailed,
                           "tileiras " + tool.path + " " + gpu + " exited with " +
                               std::to_string(r->exitCode) + ":" + firstLines(r->err + r->out));
  auto buf = llvm::MemoryBuffer::getFile(out);
  if (!buf || (*buf)->getBufferSize() == 0)
    return makeTargetError(DiagId::TileIrAssemblyFailed,
                           "tileiras " + tool.path + " exited with 0 but wrote no cubin");
  const auto *p = reinterpret_cast<const std::uint8_t *>((*buf)->getBufferStart());
  return std::vector<std::uint8_t>(p, p + (*buf)->getBufferSize());
}

llvm::Expected<AssemblerChoice> chooseAssembler(const ChoiceOptions &opts) {
  // The pin is parsed first: a malformed pin is an error even before any
  // assembler is looked for.
  std::optional<std::string> pinText = opts.pin;
  if (!pinText)
    if (const char *env = std::getenv(kVersionPinEnv); env && *env)
      pinText = env;
  std::optional<Version> pin;
  if (pinText) {
    pin = parseVersion(*pinText);
    if (!pin)
      return makeTargetError(DiagId::TileIrVersionUnsupported, std::string(kVersionPinEnv) + "=" +
                                                                   *pinText +
                                                                   " is not a version like 13.3");
    if (!writerHas(*pin)) {
      std::vector<Version> ws(writerVersions().begin(), writerVersions().end());
      return makeTargetError(DiagId::TileIrVersionUnsupported,
                             "Tile IR " + pin->str() + " was requested (" + kVersionPinEnv +
                                 ") but Kina's bytecode writer supports " + joinVersions(ws) +
                                 "; a requested version is never downgraded");
    }
  }

  auto tool = target::findTool(target::Tool::Tileiras, opts.search);
  if (!tool)
    return tool.takeError();
  AssemblerChoice choice;
  choice.tool = *tool;
  choice.pinned = pin.has_value();

  auto listed = listVersions(*tool);
  if (!listed)
    return listed.takeError();
  if (*listed) {
    choice.how = AssemblerChoice::How::Listed;
    choice.accepted = **listed;
  } else {
    // No --list-versions: probe. A pinned version is the only one tried.
    choice.how = AssemblerChoice::How::Probed;
    std::vector<Version> order(writerVersions().begin(), writerVersions().end());
    std::sort(order.rbegin(), order.rend());
    if (pin)
      order = {*pin};
    for (Version v : order) {
      auto cubin = assemble(*tool, probeKernel(v), opts.probeTarget, 0);
      if (cubin) {
        choice.accepted.push_back(v);
        break; // newest first: the first accepted is the answer
      }
      auto f = target::takeTargetFailure(cubin.takeError());
      if (f.id != DiagId::TileIrAssemblyFailed) // could not run it at all
        return makeTargetError(f.id, f.message);
    }
  }

  auto accepts = [&](Version v) {
    return std::find(choice.accepted.begin(), choice.accepted.end(), v) != choice.accepted.end();
  };
  if (pin) {
    if (!accepts(*pin))
      return makeTargetError(DiagId::TileIrVersionUnsupported,
                             "Tile IR " + pin->str() + " was requested (" + kVersionPinEnv +
                                 ") but " + choice.describe() +
                                 " does not accept it; a requested version is never downgraded");
    choice.version = *pin;
    return choice;
  }
  std::optional<Version> best;
  for (Version v : choice.accepted)
    if (writerHas(v) && (!best || v > *best))
      best = v;
  if (!best) {
    std::vector<Version> ws(writerVersions().begin(), writerVersions().end());
    return makeTargetError(DiagId::TileIrNoCommonVersion,
                           choice.describe() + " accepts no version Kina's writer supports (" +
                               joinVersions(ws) + ")");
  }
  choice.version = *best;
  return choice;
}

} // namespace kina::tileir
