//===- DynamicLibrary.h - Libraries loaded at run time -------*- C++ -*-===//
//
// NVIDIA's libraries (cuBLASLt, NCCL) are dlopen'ed, never linked, so Kina
// builds and checks without them: the first of a list of candidate paths
// that opens, then each entry point resolved by name into a typed pointer,
// with the names a library lacks collected for one clear message.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace kina::runtime {

/// dlopen (RTLD_NOW | RTLD_LOCAL) of the first of `paths` that opens; its
/// path in `opened`. Null when none does, with every path in `tried`.
void *openFirstLibrary(const std::vector<std::string> &paths, std::string &opened,
                       std::string &tried);

/// Resolves `fn = dlsym(lib, name)`; a symbol that is not there is listed in
/// missing() ("a, b, c").
class SymbolResolver {
public:
  explicit SymbolResolver(void *lib) : lib_(lib) {}
  template <class Fn> void operator()(Fn &fn, const char *name) {
    fn = reinterpret_cast<Fn>(lookup(name));
  }
  const std::string &missing() const { return missing_; }

private:
  void *lookup(const char *name);
  void *lib_;
  std::string missing_;
};

} // namespace kina::runtime
