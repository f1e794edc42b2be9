//===- DynamicLibrary.cpp - Libraries loaded at run time ------------------===//
#include "runtime/DynamicLibrary.h"

#include <dlfcn.h>

namespace kina::runtime {

void *openFirstLibrary(const std::vector<std::string> &paths, std::string &opened,
                       std::string &tried) {
  for (const std::string &p : paths) {
    if (void *lib = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = p;
      return lib;
    }
    tried += (tried.empty() ? "" : ", ") + p;
  }
  return nullptr;
}

void *SymbolResolver::lookup(const char *name) {
  void *p = dlsym(lib_, name);
  if (!p)
    missing_ += (missing_.empty() ? "" : ", ") + std::string(name);
  return p;
}

} // namespace kina::runtime
