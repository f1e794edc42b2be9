//===- Ptxas.cpp - The ptxas driver ---------------------------------------===//
//
// Validates the PTX header against the registry, writes the PTX to a
// temporary file, runs ptxas -v --gpu-name, and reads the cubin back.
//
//===----------------------------------------------------------------------===//
#include "target/Ptxas.h"

#include "target/TargetError.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace kina::target {
namespace {

/// Strips `// ...` comments from one PTX line.
llvm::StringRef codeOf(llvm::StringRef line) {
  size_t c = line.find("//");
  return (c == llvm::StringRef::npos ? line : line.substr(0, c)).trim();
}

void replaceAll(std::string &s, const std::string &from, const std::string &to) {
  if (from.empty())
    return;
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

} // namespace

PtxHeader readPtxHeader(std::string_view ptx) {
  PtxHeader h;
  llvm::StringRef rest(ptx.data(), ptx.size());
  // The directives come before the first function; 200 lines is plenty.
  for (int lineNo = 0; !rest.empty() && lineNo < 200; ++lineNo) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    llvm::StringRef code = codeOf(line);
    if (code.consume_front(".version")) {
      h.version = parsePtxVersion(code.trim().str());
    } else if (code.consume_front(".target")) {
      llvm::SmallVector<llvm::StringRef, 4> parts;
      code.split(parts, ',');
      for (llvm::StringRef p : parts)
        if (!p.trim().empty())
          h.targets.push_back(p.trim().str());
    }
    if (code.starts_with(".visible") || code.starts_with(".entry") || code.starts_with(".func"))
      break;
  }
  return h;
}

llvm::Expected<PtxasResult> runPtxas(std::string_view ptx, TargetId target,
                                     const PtxasOptions &opts) {
  const TargetInfo &t = targetInfo(target);

  // 1. The PTX header must name a real (target, version) pair.
  PtxHeader header = readPtxHeader(ptx);
  if (!header.version)
    return makeTargetError(DiagId::InvalidTargetPtx,
                           opts.inputName + ": PTX text has no valid `.version` directive");
  if (header.targets.empty())
    return makeTargetError(DiagId::InvalidTargetPtx,
                           opts.inputName + ": PTX text has no `.target` directive");
  const TargetInfo *ptxTarget = lookupTarget(header.targets.front());
  if (!ptxTarget)
    return makeTargetError(DiagId::UnknownTarget,
                           opts.inputName + ": " + unknownTargetMessage(header.targets.front()));
  if (auto e = validateTargetPtx(ptxTarget->id, *header.version))
    return makeTargetError(DiagId::InvalidTargetPtx, opts.inputName + ": " + *e);
  if (ptxTarget->archSpecific && ptxTarget->id != target)
    return makeTargetError(DiagId::InvalidTargetPtx,
                           opts.inputName + ": PTX for the architecture-specific target " +
                               std::string(ptxTarget->name) + " can only be assembled for " +
                               std::string(ptxTarget->name) + ", not " + std::string(t.name));

  // 2. The ptxas found must know the target and read that PTX version.
  auto tool = findTool(Tool::Ptxas, opts.search);
  if (!tool)
    return tool.takeError();
  auto version = toolVersion(*tool);
  if (!version)
    return version.takeError();
  if (auto e = validateForPtxas(target, *header.version, version->release))
    return makeTargetError(DiagId::TargetUnsupportedByTool,
                           *e + " (ptxas: " + tool->path + ")");

  // 3. Run it.
  llvm::SmallString<128> inPath, outPath;
  int fd = -1;
  if (auto ec = llvm::sys::fs::createTemporaryFile("kina", "ptx", fd, inPath))
    return makeTargetError(DiagId::ToolFailed, "cannot create a temporary file: " + ec.message());
  llvm::FileRemover inRemover(inPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
    os.flush();
    if (os.has_error())
      return makeTargetError(DiagId::ToolFailed, "cannot write " + inPath.str().str());
  }
  if (auto ec = llvm::sys::fs::createTemporaryFile("kina", "cubin", outPath))
    return makeTargetError(DiagId::ToolFailed, "cannot create a temporary file: " + ec.message());
  llvm::FileRemover outRemover(outPath);

  std::vector<std::string> args;
  if (opts.verbose)
    args.push_back("-v");
  args.push_back("-O" + std::to_string(std::clamp(opts.optLevel, 0, 3)));
  args.push_back("--gpu-name");
  args.push_back(std::string(t.name));
  if (opts.maxRegisters) {
    args.push_back("--maxrregcount");
    args.push_back(std::to_string(*opts.maxRegisters));
  }
  for (const std::string &a : opts.extraArgs)
    args.push_back(a);
  args.push_back(inPath.str().str());
  args.push_back("-o");
  args.push_back(outPath.str().str());

  auto run = runProcess(tool->path, args, opts.timeoutSeconds);
  if (!run)
    return run.takeError();

  PtxasResult result;
  result.tool = *tool;
  result.release = version->release;
  result.command.push_back(tool->path);
  result.command.insert(result.command.end(), args.begin(), args.end());
  result.log = run->out + run->err;
  replaceAll(result.log, inPath.str().str(), opts.inputName);

  if (run->exitCode != 0) {
    std::string msg = "ptxas " + version->release.str() + " rejected " + opts.inputName +
                      " for " + std::string(t.name) + " (exit code " +
                      std::to_string(run->exitCode) + "):";
    llvm::StringRef log(result.log);
    while (!log.empty()) {
      auto [line, tail] = log.split('\n');
      log = tail;
      // ptxas' own error and warning lines; the -v "info" lines are noise here.
      if (!line.trim().empty() && !line.contains("ptxas info") && !line.starts_with("    "))
        msg += "\n  " + line.rtrim().str();
    }
    return makeTargetError(DiagId::ToolFailed, msg);
  }

  auto cubin = llvm::MemoryBuffer::getFile(outPath, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!cubin)
    return makeTargetError(DiagId::ToolFailed,
                           "ptxas succeeded but wrote no cubin: " + cubin.getError().message());
  llvm::StringRef bytes = (*cubin)->getBuffer();
  result.cubin.assign(bytes.begin(), bytes.end());
  return result;
}

} // namespace kina::target
