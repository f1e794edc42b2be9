//===- Tools.cpp - CUDA tool discovery and subprocesses -------------------===//
//
// Implements the search order documented in Tools.h and runProcess().
//
//===----------------------------------------------------------------------===//
#include "target/Tools.h"

#include "target/TargetError.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#ifndef KINA_TARGET_SOURCE_ROOT
#define KINA_TARGET_SOURCE_ROOT ""
#endif

namespace kina::target {
namespace {

std::optional<std::string> getEnv(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return std::nullopt;
  return std::string(v);
}

bool isExecutableFile(const std::string &path) {
  return llvm::sys::fs::is_regular_file(path) && llvm::sys::fs::can_execute(path);
}

bool hasDepsCuda(llvm::StringRef dir) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, ".deps", "cuda");
  return llvm::sys::fs::is_directory(p);
}

/// <home>/.deps/cuda/**/bin/<tool>, depth-limited, sorted for determinism.
std::optional<std::string> searchDeps(const std::string &home, std::string_view tool) {
  llvm::SmallString<256> root(home);
  llvm::sys::path::append(root, ".deps", "cuda");
  if (!llvm::sys::fs::is_directory(root))
    return std::nullopt;
  std::vector<std::string> found;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (it.level() > 6) {
      it.no_push();
      continue;
    }
    llvm::StringRef path = it->path();
    if (llvm::sys::path::filename(path) != llvm::StringRef(tool.data(), tool.size()))
      continue;
    if (llvm::sys::path::filename(llvm::sys::path::parent_path(path)) != "bin")
      continue;
    if (isExecutableFile(path.str()))
      found.push_back(path.str());
  }
  if (found.empty())
    return std::nullopt;
  std::sort(found.begin(), found.end());
  return found.front();
}

std::string installHint(Tool tool) {
  std::string hint = "run scripts/setup.sh (it installs the NVIDIA wheel " +
                     std::string(toolPackage(tool));
  if (tool == Tool::Ptxas)
    hint += "==13.0.88";
  hint += " into .deps/cuda), or set " + std::string(toolEnvVar(tool)) + " to the " +
          std::string(toolName(tool)) + " executable";
  return hint;
}

} // namespace

std::string_view toolName(Tool tool) {
  switch (tool) {
  case Tool::Ptxas:
    return "ptxas";
  case Tool::Nvdisasm:
    return "nvdisasm";
  case Tool::Cuobjdump:
    return "cuobjdump";
  case Tool::Tileiras:
    return "tileiras";
  }
  llvm_unreachable("unknown tool");
}

std::string_view toolEnvVar(Tool tool) {
  switch (tool) {
  case Tool::Ptxas:
    return "KINA_PTXAS";
  case Tool::Nvdisasm:
    return "KINA_NVDISASM";
  case Tool::Cuobjdump:
    return "KINA_CUOBJDUMP";
  case Tool::Tileiras:
    return "KINA_TILEIRAS";
  }
  llvm_unreachable("unknown tool");
}

std::string_view toolPackage(Tool tool) {
  switch (tool) {
  case Tool::Ptxas:
    return "nvidia-cuda-nvcc";
  case Tool::Nvdisasm:
    return "nvidia-cuda-nvdisasm";
  case Tool::Cuobjdump:
    return "nvidia-cuda-cuobjdump";
  case Tool::Tileiras:
    return "nvidia-cuda-tileiras";
  }
  llvm_unreachable("unknown tool");
}

std::optional<Tool> parseToolName(std::string_view name) {
  for (Tool t : {Tool::Ptxas, Tool::Nvdisasm, Tool::Cuobjdump, Tool::Tileiras})
    if (toolName(t) == name)
      return t;
  return std::nullopt;
}

std::string_view toolSourceName(ToolSource source) {
  switch (source) {
  case ToolSource::Override:
    return "explicit override";
  case ToolSource::EnvVar:
    return "environment variable";
  case ToolSource::CudaHome:
    return "$CUDA_HOME/bin";
  case ToolSource::Path:
    return "PATH";
  case ToolSource::ProjectDeps:
    return ".deps/cuda";
  }
  llvm_unreachable("unknown tool source");
}

std::optional<std::string> findKinaHome(const ToolSearchOptions &opts) {
  if (opts.kinaHome)
    return *opts.kinaHome;
  if (auto home = getEnv("KINA_HOME"))
    return home;
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (!exe.empty()) {
    llvm::StringRef dir = llvm::sys::path::parent_path(exe);
    while (!dir.empty()) {
      if (hasDepsCuda(dir))
        return dir.str();
      llvm::StringRef parent = llvm::sys::path::parent_path(dir);
      if (parent == dir)
        break;
      dir = parent;
    }
  }
  std::string src = KINA_TARGET_SOURCE_ROOT;
  if (!src.empty() && hasDepsCuda(src))
    return src;
  return std::nullopt;
}

llvm::Expected<ToolLocation> findTool(Tool tool, const ToolSearchOptions &opts) {
  std::string name(toolName(tool));
  std::string envVar(toolEnvVar(tool));

  if (auto it = opts.overrides.find(tool); it != opts.overrides.end()) {
    if (isExecutableFile(it->second))
      return ToolLocation{tool, it->second, ToolSource::Override};
    return makeTargetError(DiagId::ToolNotFound, name + " override `" + it->second +
                                                     "` is not an executable file; " +
                                                     installHint(tool));
  }
  if (auto env = getEnv(envVar.c_str())) {
    if (isExecutableFile(*env))
      return ToolLocation{tool, *env, ToolSource::EnvVar};
    return makeTargetError(DiagId::ToolNotFound, envVar + "=" + *env +
                                                     " is not an executable file (" + name +
                                                     " not found); fix or unset " + envVar +
                                                     ", or " + installHint(tool));
  }

  std::vector<std::string> searched;
  searched.push_back(envVar + " (unset)");
  if (auto cudaHome = getEnv("CUDA_HOME")) {
    llvm::SmallString<256> p(*cudaHome);
    llvm::sys::path::append(p, "bin", name);
    if (isExecutableFile(p.str().str()))
      return ToolLocation{tool, p.str().str(), ToolSource::CudaHome};
    searched.push_back("$CUDA_HOME/bin (" + *cudaHome + "/bin)");
  } else {
    searched.push_back("$CUDA_HOME/bin (CUDA_HOME unset)");
  }

  if (auto onPath = llvm::sys::findProgramByName(name))
    return ToolLocation{tool, *onPath, ToolSource::Path};
  searched.push_back("PATH");

  if (auto home = findKinaHome(opts)) {
    if (auto found = searchDeps(*home, name))
      return ToolLocation{tool, *found, ToolSource::ProjectDeps};
    searched.push_back(*home + "/.deps/cuda/**/bin");
  } else {
    searched.push_back(".deps/cuda (no Kina home: set KINA_HOME to the repository)");
  }

  std::string msg = name + " not found; searched ";
  for (std::size_t i = 0; i < searched.size(); ++i)
    msg += (i ? ", " : "") + searched[i];
  msg += ". To get it, " + installHint(tool);
  return makeTargetError(DiagId::ToolNotFound, msg);
}

llvm::Expected<ToolLocation> findTool(std::string_view name, const ToolSearchOptions &opts) {
  if (auto t = parseToolName(name))
    return findTool(*t, opts);
  return makeTargetError(DiagId::ToolNotFound,
                         "unknown CUDA tool `" + std::string(name) +
                             "` (known: ptxas, nvdisasm, cuobjdump, tileiras)");
}

llvm::Expected<ProcessResult> runProcess(const std::string &program,
                                         const std::vector<std::string> &args,
                                         unsigned timeoutSeconds) {
  llvm::SmallString<128> outPath, errPath;
  if (auto ec = llvm::sys::fs::createTemporaryFile("kina-tool", "out", outPath))
    return makeTargetError(DiagId::ToolFailed,
                           "cannot create a temporary file: " + ec.message());
  llvm::FileRemover outRemover(outPath);
  if (auto ec = llvm::sys::fs::createTemporaryFile("kina-tool", "err", errPath))
    return makeTargetError(DiagId::ToolFailed,
                           "cannot create a temporary file: " + ec.message());
  llvm::FileRemover errRemover(errPath);

  std::vector<llvm::StringRef> argv;
  argv.push_back(program);
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(outPath),
                                                llvm::StringRef(errPath)};
  std::string errMsg;
  bool failedToStart = false;
  int rc = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects, timeoutSeconds,
                                     /*MemoryLimit=*/0, &errMsg, &failedToStart);
  if (failedToStart)
    return makeTargetError(DiagId::ToolFailed, "cannot run " + program + ": " + errMsg);
  ProcessResult result;
  result.exitCode = rc;
  if (auto buf = llvm::MemoryBuffer::getFile(outPath))
    result.out = (*buf)->getBuffer().str();
  if (auto buf = llvm::MemoryBuffer::getFile(errPath))
    result.err = (*buf)->getBuffer().str();
  if (rc < 0) {
    std::string why = errMsg.empty() ? std::string("it crashed or timed out") : errMsg;
    if (timeoutSeconds && errMsg.find("time") != std::string::npos)
      why += " (limit " + std::to_string(timeoutSeconds) + " s)";
    return makeTargetError(DiagId::ToolFailed, program + " did not finish: " + why);
  }
  return result;
}

llvm::Expected<ToolVersion> toolVersion(const ToolLocation &tool) {
  static std::mutex mu;
  static std::map<std::string, ToolVersion> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(tool.path); it != cache.end())
      return it->second;
  }
  auto run = runProcess(tool.path, {"--version"}, 30);
  if (!run)
    return run.takeError();
  std::string text = run->out + run->err;
  if (run->exitCode != 0)
    return makeTargetError(DiagId::ToolFailed, tool.path + " --version failed (exit code " +
                                                   std::to_string(run->exitCode) + "): " + text);
  ToolVersion v;
  v.text = text;
  llvm::StringRef t(text);
  size_t rel = t.find("release ");
  std::optional<CudaVersion> release;
  if (rel != llvm::StringRef::npos) {
    llvm::StringRef rest = t.substr(rel + 8);
    release = parseCudaVersion(rest.take_until([](char c) { return c == ',' || c == ' ' ||
                                                                    c == '\n'; })
                                   .str());
    size_t vpos = rest.find(", V");
    if (vpos != llvm::StringRef::npos)
      v.build = rest.substr(vpos + 2).take_until([](char c) { return c == '\n' || c == ' '; }).str();
  }
  if (!release)
    return makeTargetError(DiagId::ToolFailed,
                           "cannot read the CUDA release from `" + tool.path +
                               " --version`: " + text);
  v.release = *release;
  std::lock_guard<std::mutex> lock(mu);
  cache[tool.path] = v;
  return v;
}

} // namespace kina::target
