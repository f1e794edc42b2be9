//===- Nccl.cpp - NCCL, opened with dlopen (issue 19) ---------------------===//
#include "runtime/Nccl.h"
#include "runtime/DynamicLibrary.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>

namespace kina::runtime {

namespace {
using Comm = void *;
using Stream = cuda::CUstream;
} // namespace

struct Nccl::Api {
  int (*getVersion)(int *);
  const char *(*getErrorString)(int);
  int (*commInitAll)(Comm *, int, const int *);
  int (*commDestroy)(Comm);
  int (*groupStart)();
  int (*groupEnd)();
  int (*allReduce)(const void *, void *, size_t, int, int, Comm, Stream);
  int (*allGather)(const void *, void *, size_t, int, Comm, Stream);
  int (*reduceScatter)(const void *, void *, size_t, int, int, Comm, Stream);
};

bool ncclTypeOf(const std::string &dtype, NcclType &out) {
  if (dtype == "BF16")
    out = NcclType::BF16;
  else if (dtype == "F16")
    out = NcclType::F16;
  else if (dtype == "F32")
    out = NcclType::F32;
  else if (dtype == "F64")
    out = NcclType::F64;
  else
    return false;
  return true;
}

std::vector<std::string> Nccl::searchPaths() {
  if (const char *p = std::getenv("KINA_LIBNCCL"); p && *p)
    return {p};
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  std::error_code ec;
  // The project's .deps (scripts/setup.sh), above the running binary.
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      if (fs::path lib = p / ".deps" / "nccl" / "nvidia" / "nccl" / "lib" / "libnccl.so.2";
          fs::exists(lib, ec)) {
        paths.push_back(lib.string());
        break;
      }
  std::vector<std::string> prefixes;
  for (const char *v : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char *p = std::getenv(v); p && *p)
      prefixes.push_back(p);
  if (const char *h = std::getenv("HOME"); h && *h)
    prefixes.push_back(std::string(h) + "/.local");
  for (const char *p : {"/usr/local", "/usr", "/opt/conda"})
    prefixes.push_back(p);
  for (const std::string &pre : prefixes) {
    fs::path lib = fs::path(pre) / "lib";
    if (!fs::is_directory(lib, ec))
      continue;
    for (const auto &entry : fs::directory_iterator(lib, ec)) {
      if (entry.path().filename().string().rfind("python3", 0) != 0)
        continue;
      for (const char *pkgs : {"site-packages", "dist-packages"})
        if (fs::path p = entry.path() / pkgs / "nvidia/nccl/lib/libnccl.so.2"; fs::exists(p, ec))
          paths.push_back(p.string());
    }
  }
  paths.push_back("libnccl.so.2"); // the library path (LD_LIBRARY_PATH, ld.so.cache)
  return paths;
}

std::unique_ptr<Nccl> Nccl::load(std::string &error) {
  std::string tried, p;
  if (void *lib = openFirstLibrary(searchPaths(), p, tried)) {
    std::unique_ptr<Nccl> n(new Nccl());
    n->lib_ = lib;
    n->path_ = p;
    n->api_ = std::make_unique<Api>();
    Api &a = *n->api_;
    SymbolResolver sym(lib);
    sym(a.getVersion, "ncclGetVersion");
    sym(a.getErrorString, "ncclGetErrorString");
    sym(a.commInitAll, "ncclCommInitAll");
    sym(a.commDestroy, "ncclCommDestroy");
    sym(a.groupStart, "ncclGroupStart");
    sym(a.groupEnd, "ncclGroupEnd");
    sym(a.allReduce, "ncclAllReduce");
    sym(a.allGather, "ncclAllGather");
    sym(a.reduceScatter, "ncclReduceScatter");
    if (!sym.missing().empty()) {
      error = p + " lacks " + sym.missing();
      return nullptr; // the destructor closes the library
    }
    if (int s = a.getVersion(&n->version_); s != 0) {
      error = p + ": ncclGetVersion failed (" + n->result(s, "ncclGetVersion") + ")";
      return nullptr;
    }
    return n;
  }
  error = "libnccl.so.2 was not found; tried " + tried +
          (std::getenv("KINA_LIBNCCL") ? " (KINA_LIBNCCL is set: only that file is tried)"
                                       : " (scripts/setup.sh unpacks the nvidia-nccl-cu13 wheel "
                                         "into .deps/nccl; or set KINA_LIBNCCL)");
  return nullptr;
}

Nccl::~Nccl() {
  if (lib_)
    dlclose(lib_);
}

std::string Nccl::versionString() const {
  // NCCL_VERSION(X, Y, Z) = X * 10000 + Y * 100 + Z from 2.9 on.
  return std::to_string(version_ / 10000) + "." + std::to_string(version_ / 100 % 100) + "." +
         std::to_string(version_ % 100);
}

std::string Nccl::result(int status, const char *what) const {
  if (status == 0)
    return "";
  const char *s = api_ && api_->getErrorString ? api_->getErrorString(status) : nullptr;
  return std::string(what) + " failed: " + (s ? s : "unknown NCCL error") + " (ncclResult " +
         std::to_string(status) + ")";
}

std::string Nccl::initAll(const std::vector<int> &devices, std::vector<void *> &comms) const {
  comms.assign(devices.size(), nullptr);
  if (devices.empty())
    return "ncclCommInitAll: no devices";
  std::string r = result(api_->commInitAll(comms.data(), int(devices.size()), devices.data()),
                         "ncclCommInitAll");
  if (!r.empty())
    comms.clear();
  return r;
}

void Nccl::destroy(std::vector<void *> &comms) const {
  for (void *c : comms)
    if (c)
      api_->commDestroy(c);
  comms.clear();
}

namespace {

bool sameSizes(size_t a, size_t b, size_t c) { return a == b && b == c && a > 0; }

} // namespace

std::string Nccl::allReduce(const std::vector<cuda::CUdeviceptr> &buffers, size_t count,
                            NcclType type, const std::vector<void *> &comms,
                            const std::vector<cuda::CUstream> &streams) const {
  if (!sameSizes(buffers.size(), comms.size(), streams.size()))
    return "ncclAllReduce: one buffer, communicator and stream per device";
  api_->groupStart();
  std::string err;
  for (size_t i = 0; i < comms.size() && err.empty(); ++i) {
    void *b = reinterpret_cast<void *>(buffers[i]);
    err = result(api_->allReduce(b, b, count, int(type), /*ncclSum=*/0, comms[i], streams[i]),
                 "ncclAllReduce");
  }
  std::string end = result(api_->groupEnd(), "ncclGroupEnd");
  return err.empty() ? end : err;
}

std::string Nccl::allGather(const std::vector<cuda::CUdeviceptr> &send,
                            const std::vector<cuda::CUdeviceptr> &recv, size_t count, NcclType type,
                            const std::vector<void *> &comms,
                            const std::vector<cuda::CUstream> &streams) const {
  if (!sameSizes(send.size(), comms.size(), streams.size()) || recv.size() != send.size())
    return "ncclAllGather: one send and receive buffer, communicator and stream per device";
  api_->groupStart();
  std::string err;
  for (size_t i = 0; i < comms.size() && err.empty(); ++i)
    err = result(api_->allGather(reinterpret_cast<const void *>(send[i]),
                                 reinterpret_cast<void *>(recv[i]), count, int(type), comms[i],
                                 streams[i]),
                 "ncclAllGather");
  std::string end = result(api_->groupEnd(), "ncclGroupEnd");
  return err.empty() ? end : err;
}

std::string Nccl::reduceScatter(const std::vector<cuda::CUdeviceptr> &send,
                                const std::vector<cuda::CUdeviceptr> &recv, size_t count,
                                NcclType type, const std::vector<void *> &comms,
                                const std::vector<cuda::CUstream> &streams) const {
  if (!sameSizes(send.size(), comms.size(), streams.size()) || recv.size() != send.size())
    return "ncclReduceScatter: one send and receive buffer, communicator and stream per device";
  api_->groupStart();
  std::string err;
  for (size_t i = 0; i < comms.size() && err.empty(); ++i)
    err = result(api_->reduceScatter(reinterpret_cast<const void *>(send[i]),
                                     reinterpret_cast<void *>(recv[i]), count, int(type),
                                     /*ncclSum=*/0, comms[i], streams[i]),
                 "ncclReduceScatter");
  std::string end = result(api_->groupEnd(), "ncclGroupEnd");
  return err.empty() ? end : err;
}

} // namespace kina::runtime
