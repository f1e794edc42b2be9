//===- Lowering.cpp - The driver's hook from the frontend to tile IR ------===//
#include "lower/TileIRFromAst.h"

namespace kina::driver {

llvm::Expected<ir::Kernel> lowerKernelToTileIR(const sema::Analysis &analysis,
                                               std::string_view kernel) {
  return lower::lowerKernel(analysis, kernel);
}

} // namespace kina::driver
