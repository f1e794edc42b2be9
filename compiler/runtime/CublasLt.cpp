//===- CublasLt.cpp - cuBLASLt, opened with dlopen ------------------------===//
//
// The declarations below follow cublasLt.h of CUDA 12/13 (values and
// layouts); the header is not included, so Kina builds without a toolkit.
//
//===----------------------------------------------------------------------===//
#include "runtime/CublasLt.h"
#include "runtime/DynamicLibrary.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>

namespace kina::runtime {

namespace {

using Status = int; // cublasStatus_t; 0 = CUBLAS_STATUS_SUCCESS
using Handle = void *;
using Desc = void *;
using Layout = void *;
using Pref = void *;

struct Algo {
  uint64_t data[8];
};
struct HeuristicResult {
  Algo algo;
  size_t workspaceSize;
  Status state;
  float wavesCount;
  int reserved[4];
};

constexpr int kComputeF32 = 68;      // CUBLAS_COMPUTE_32F
constexpr int kDescTransA = 3;       // CUBLASLT_MATMUL_DESC_TRANSA
constexpr int kDescTransB = 4;       // CUBLASLT_MATMUL_DESC_TRANSB
constexpr int kDescEpilogue = 7;     // CUBLASLT_MATMUL_DESC_EPILOGUE
constexpr int kDescBiasPointer = 8;  // CUBLASLT_MATMUL_DESC_BIAS_POINTER
constexpr int kPrefMaxWorkspace = 1; // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
constexpr int kOpN = 0, kOpT = 1;

} // namespace

struct CublasLt::Api {
  Status (*create)(Handle *);
  Status (*destroy)(Handle);
  size_t (*getVersion)();
  Status (*descCreate)(Desc *, int, int);
  Status (*descDestroy)(Desc);
  Status (*descSet)(Desc, int, const void *, size_t);
  Status (*layoutCreate)(Layout *, int, uint64_t, uint64_t, int64_t);
  Status (*layoutDestroy)(Layout);
  Status (*prefCreate)(Pref *);
  Status (*prefDestroy)(Pref);
  Status (*prefSet)(Pref, int, const void *, size_t);
  Status (*heuristic)(Handle, Desc, Layout, Layout, Layout, Layout, Pref, int, HeuristicResult *,
                      int *);
  Status (*matmul)(Handle, Desc, const void *, const void *, Layout, const void *, Layout,
                   const void *, const void *, Layout, void *, Layout, const Algo *, void *, size_t,
                   cuda::CUstream);
};

std::vector<std::string> CublasLt::searchPaths() {
  std::vector<std::string> paths;
  if (const char *p = std::getenv("KINA_CUBLASLT"); p && *p)
    return {p};
  for (const char *n : {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"})
    paths.push_back(n); // the library path (LD_LIBRARY_PATH, ld.so.cache)
  std::vector<std::string> roots;
  for (const char *v : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *p = std::getenv(v); p && *p)
      roots.push_back(p);
  roots.push_back("/usr/local/cuda");
  for (const std::string &r : roots)
    for (const char *sub : {"/lib64/", "/lib/", "/targets/x86_64-linux/lib/"})
      for (const char *n : {"libcublasLt.so.13", "libcublasLt.so.12"})
        paths.push_back(r + sub + n);
  // NVIDIA's wheels as pip installs them for PyTorch.
  std::vector<std::string> prefixes;
  for (const char *v : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char *p = std::getenv(v); p && *p)
      prefixes.push_back(p);
  if (const char *h = std::getenv("HOME"); h && *h)
    prefixes.push_back(std::string(h) + "/.local");
  prefixes.push_back("/usr/local");
  prefixes.push_back("/usr");
  prefixes.push_back("/opt/conda");
  namespace fs = std::filesystem;
  for (const std::string &pre : prefixes) {
    std::error_code ec;
    fs::path lib = fs::path(pre) / "lib";
    if (!fs::is_directory(lib, ec))
      continue;
    for (const auto &entry : fs::directory_iterator(lib, ec)) {
      std::string py = entry.path().filename().string();
      if (py.rfind("python3", 0) != 0)
        continue;
      for (const char *pkgs : {"site-packages", "dist-packages"})
        for (const char *sub :
             {"nvidia/cu13/lib/libcublasLt.so.13", "nvidia/cublas/lib/libcublasLt.so.13",
              "nvidia/cublas/lib/libcublasLt.so.12"}) {
          fs::path p = entry.path() / pkgs / sub;
          if (fs::exists(p, ec))
            paths.push_back(p.string());
        }
    }
  }
  return paths;
}

std::unique_ptr<CublasLt> CublasLt::load(std::string &error) {
  std::string tried, p;
  if (void *lib = openFirstLibrary(searchPaths(), p, tried)) {
    std::unique_ptr<CublasLt> lt(new CublasLt());
    lt->lib_ = lib;
    lt->path_ = p;
    lt->api_ = std::make_unique<Api>();
    Api &a = *lt->api_;
    SymbolResolver sym(lib);
    sym(a.create, "cublasLtCreate");
    sym(a.destroy, "cublasLtDestroy");
    sym(a.getVersion, "cublasLtGetVersion");
    sym(a.descCreate, "cublasLtMatmulDescCreate");
    sym(a.descDestroy, "cublasLtMatmulDescDestroy");
    sym(a.descSet, "cublasLtMatmulDescSetAttribute");
    sym(a.layoutCreate, "cublasLtMatrixLayoutCreate");
    sym(a.layoutDestroy, "cublasLtMatrixLayoutDestroy");
    sym(a.prefCreate, "cublasLtMatmulPreferenceCreate");
    sym(a.prefDestroy, "cublasLtMatmulPreferenceDestroy");
    sym(a.prefSet, "cublasLtMatmulPreferenceSetAttribute");
    sym(a.heuristic, "cublasLtMatmulAlgoGetHeuristic");
    sym(a.matmul, "cublasLtMatmul");
    if (!sym.missing().empty()) {
      error = p + " lacks " + sym.missing();
      return nullptr; // the destructor closes the library
    }
    if (Status s = a.create(&lt->handle_); s != 0) {
      lt->handle_ = nullptr;
      error = p + ": cublasLtCreate failed with status " + std::to_string(s) +
              " (is there a CUDA device and driver?)";
      return nullptr;
    }
    lt->version_ = a.getVersion();
    return lt;
  }
  error = "libcublasLt was not found; tried " + tried +
          (std::getenv("KINA_CUBLASLT") ? " (KINA_CUBLASLT is set: only that file is tried)" : "");
  return nullptr;
}

CublasLt::~CublasLt() {
  if (handle_ && api_ && api_->destroy)
    api_->destroy(handle_);
  if (lib_)
    dlclose(lib_);
}

std::string CublasLt::matmul(const CublasLtProblem &p, cuda::CUdeviceptr workspace,
                             size_t workspaceBytes, cuda::CUstream stream) const {
  const Api &a = *api_;
  // Row-major D[M, N] is column-major D^T [N, M] = op(B)^T-view * A^T-view:
  // cuBLASLt's "A" is Kina's b (N x K, read transposed when b is [N, K]),
  // its "B" is Kina's a (K x M column-major, no transpose).
  int type = static_cast<int>(p.type);
  Desc desc = nullptr;
  Layout la = nullptr, lb = nullptr, ld = nullptr;
  Pref pref = nullptr;
  std::string err;
  auto check = [&](Status s, const char *what) {
    if (s != 0 && err.empty())
      err = std::string(what) + " failed with cuBLAS status " + std::to_string(s);
    return s == 0;
  };
  int opA = p.bTransposed ? kOpT : kOpN, opB = kOpN;
  uint32_t epi = static_cast<uint32_t>(p.epilogue);
  if (check(a.descCreate(&desc, kComputeF32, 0 /*CUDA_R_32F scale*/), "cublasLtMatmulDescCreate") &&
      check(a.descSet(desc, kDescTransA, &opA, sizeof opA), "TRANSA") &&
      check(a.descSet(desc, kDescTransB, &opB, sizeof opB), "TRANSB") &&
      check(a.descSet(desc, kDescEpilogue, &epi, sizeof epi), "EPILOGUE") &&
      (p.bias == 0 ||
       check(a.descSet(desc, kDescBiasPointer, &p.bias, sizeof p.bias), "BIAS_POINTER")) &&
      check(p.bTransposed ? a.layoutCreate(&la, type, uint64_t(p.K), uint64_t(p.N), p.K)
                          : a.layoutCreate(&la, type, uint64_t(p.N), uint64_t(p.K), p.N),
            "layout of b") &&
      check(a.layoutCreate(&lb, type, uint64_t(p.K), uint64_t(p.M), p.K), "layout of a") &&
      check(a.layoutCreate(&ld, type, uint64_t(p.N), uint64_t(p.M), p.N), "layout of d") &&
      check(a.prefCreate(&pref), "cublasLtMatmulPreferenceCreate") &&
      check(a.prefSet(pref, kPrefMaxWorkspace, &workspaceBytes, sizeof workspaceBytes),
            "MAX_WORKSPACE")) {
    HeuristicResult result{};
    int found = 0;
    if (check(a.heuristic(handle_, desc, la, lb, ld, ld, pref, 1, &result, &found),
              "cublasLtMatmulAlgoGetHeuristic")) {
      if (found == 0)
        err = "cuBLASLt has no algorithm for this problem";
      else {
        float alpha = 1.0f, beta = 0.0f;
        check(a.matmul(handle_, desc, &alpha, reinterpret_cast<const void *>(p.b), la,
                       reinterpret_cast<const void *>(p.a), lb, &beta,
                       reinterpret_cast<const void *>(p.d), ld, reinterpret_cast<void *>(p.d), ld,
                       &result.algo, reinterpret_cast<void *>(workspace), workspaceBytes, stream),
              "cublasLtMatmul");
      }
    }
  }
  if (pref)
    a.prefDestroy(pref);
  for (Layout l : {la, lb, ld})
    if (l)
      a.layoutDestroy(l);
  if (desc)
    a.descDestroy(desc);
  if (!err.empty())
    err += " (M=" + std::to_string(p.M) + ", N=" + std::to_string(p.N) +
           ", K=" + std::to_string(p.K) + ", epilogue " + std::to_string(epi) + ")";
  return err;
}

} // namespace kina::runtime
