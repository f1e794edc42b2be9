//===- CompileKernel.h - The pipeline `kina run` and `kina report` share -*- C++ -*-===//
//
// Check the file (printing every diagnostic), choose its kernels (the one
// under --kernel, else all of them), lower each to tile IR and compile it
// to a cubin. Each step returns its value or the exit code of the failure,
// already explained on stderr.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Codegen.h"
#include "ir/TileIR.h"
#include "runtime/Device.h"
#include "runtime/HostTensor.h"
#include "runtime/LaunchGuard.h"
#include "sema/Frontend.h"

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace kina::driver {

/// A value, or the exit code (Commands.h) of a failure already reported.
template <class T> using OrExit = std::variant<T, int>;

/// Parses and checks `file` for `target`; every diagnostic goes to stderr.
/// Errors in the file give InputErrors. With `kernel` (`--kernel K`), the
/// file's other kernels are not checked (sema::FrontendOptions::onlyKernel).
/// Kernels with tune parameters are checked at `tunePoint` (defaults for
/// the parameters it does not name).
OrExit<sema::Analysis> checkFileForTarget(const SourceFile &file, const std::string &target,
                                          const std::map<std::string, int64_t> &tunePoint = {},
                                          const std::string &backend = "ptx",
                                          const std::string &kernel = "");

/// The kernels a subcommand works on: `kernel` alone when given (a usage
/// error naming the file's kernels when there is none of that name), else
/// every kernel of the file in source order (a usage error when it has none).
OrExit<std::vector<std::string>> selectKernels(const sema::Analysis &analysis,
                                               const std::string &kernel,
                                               const std::string &fileName);

/// The tile IR of the checked kernel `name`.
OrExit<ir::Kernel> lowerCheckedKernel(const sema::Analysis &analysis, const std::string &name,
                                      const SourceFile &file);

/// Code generation up to a cubin; codegen diagnostics go to stderr.
OrExit<codegen::CodegenResult>
compileTileIRToCubin(const ir::Kernel &kernel, const SourceFile &file, const std::string &target);

/// The tile-IR reference interpreter on host tensors in launch-plan order
/// (Run.cpp; `kina run --interpret` and `--check`): the outputs as computed,
/// or why it failed. With `zeroOutputs` the outputs start at zero, else as
/// `hosts` has them.
std::variant<std::vector<runtime::HostTensor>, std::string>
interpretOnHost(const ir::Kernel &tileIR, const runtime::LaunchPlan &plan,
                const runtime::DimValues &dims, const std::vector<runtime::HostTensor> &hosts,
                const std::vector<double> &scalarValues, bool zeroOutputs);

/// The Kina target for a device: its architecture-specific variant when the
/// registry has one (sm_90a on an H100/H200), else the plain one; empty when
/// none matches.
std::string kinaTargetForDevice(const runtime::DeviceInfo &info);

/// Whether launch-plan parameter `i` is a result updated with atomics (it
/// starts at zero, not NaN).
bool resultStartsAtZero(const ir::Kernel &tileIR, const runtime::LaunchPlan &plan, size_t i);

} // namespace kina::driver
