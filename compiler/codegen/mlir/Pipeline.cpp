//===- Pipeline.cpp - MLIR passes, LLVM translation and PTX emission ------===//
//
// Sets up an MLIR context with exactly the dialects, ToLLVM interfaces and
// LLVM IR translations the lowering needs (DESIGN.md §3.8: without the
// interfaces the passes "succeed" and translation fails on
// unrealized_conversion_cast), runs the documented pass pipeline, and
// serializes the gpu.module to PTX through the NVVM target attribute (LLVM
// translation, O3, NVPTX backend) in process. MLIR diagnostics are captured
// into the error string; nothing is printed to stderr.
//
//===----------------------------------------------------------------------===//
#include "codegen/mlir/MLIRStages.h"

#include "codegen/HopperLayout.h"
#include "codegen/mlir/Lowering.h"
#include "llvm/Support/CommandLine.h"
#include <mutex>

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace kina::codegen::detail {

using namespace mlir;

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void registerEverything(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  index::IndexDialect, LLVM::LLVMDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                  scf::SCFDialect, ub::UBDialect>();
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

std::string printOp(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

} // namespace

/// LLVM's dead-store elimination walks MemorySSA up to 90 steps per store
/// by default; on a GEMM epilogue (64 stores to row bases whose distance is
/// not constant) that was 13% of the whole compile (callgrind) and removed
/// nothing. 4 steps leave every stdlib kernel's PTX byte-identical.
void limitDeadStoreWalks() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("dse-memoryssa-walklimit");
    if (it != options.end())
      it->second->addOccurrence(0, "dse-memoryssa-walklimit", "4");
  });
}

bool runMLIRStages(const MLIRStageRequest &req, CodegenResult &out, std::string &error) {
  limitDeadStoreWalks();
  auto t0 = Clock::now(); // context setup counts as building MLIR
  DialectRegistry registry;
  registerEverything(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();

  std::string diagText;
  ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(diagText);
    os << d << "\n";
    return success();
  });
  auto fail = [&](std::string what) {
    error = what + (diagText.empty() ? std::string() : ":\n" + diagText);
    return false;
  };

  std::string buildError;
  OwningOpRef<ModuleOp> module =
      buildModule(ctx, *req.kernel, *req.layout, req.dynamicShared, req.lineInfo, buildError);
  if (!module)
    return fail("lowering kernel '" + req.kernel->name + "' to MLIR failed: " + buildError);
  if (failed(mlir::verify(*module)))
    return fail("the MLIR built for kernel '" + req.kernel->name + "' does not verify");
  out.times.buildMLIR = msSince(t0);
  if (req.until == Stage::MLIR) {
    out.mlir = printOp(*module);
    return true;
  }

  auto t1 = Clock::now();
  PassManager pm(&ctx);
  // Verified once after the whole pipeline rather than after every pass
  // (a tenth of the compile for gemm_tc, callgrind); the input was verified
  // above, and translation only ever sees verified IR.
  pm.enableVerifier(false);
  GpuNVVMAttachTargetOptions attach;
  attach.chip = req.chip;
  attach.features = req.features;
  attach.optLevel = req.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
  gpm.addPass(createSCFToControlFlowPass());
  gpm.addPass(createConvertGpuOpsToNVVMOps());
  gpm.addPass(createConvertNVVMToLLVMPass());
  // At O1 and above LLVM's EarlyCSE/InstCombine/GVN redo what MLIR's
  // canonicalize + cse would do on the LLVM dialect: with them the PTX of
  // every stdlib kernel was byte-identical (row_sum: one commuted `or`), and
  // they cost ~20% of mlir_passes (bench/compile, callgrind). O0 keeps them
  // so that unoptimized PTX stays readable.
  if (req.optLevel == 0) {
    gpm.addPass(createCanonicalizerPass());
    gpm.addPass(createCSEPass());
  }
  gpm.addPass(createReconcileUnrealizedCastsPass());
  if (req.lineInfo) {
    // A DICompileUnit + DISubprogram per llvm.func, so that translation keeps
    // the ops' FileLineColLocs as debug locations and NVPTX prints `.loc`.
    // Debug directives only: LineTablesOnly would make NVPTX write DWARF
    // sections and `.target sm_XX, debug`, which changes what ptxas does.
    LLVM::DIScopeForLLVMFuncOpPassOptions di;
    di.emissionKind = LLVM::DIEmissionKind::DebugDirectivesOnly;
    pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass(di));
  }
  if (failed(pm.run(*module)))
    return fail("the MLIR pass pipeline failed for kernel '" + req.kernel->name + "'");
  // Tensor-map parameters (after the tensors, scalars and dims, see
  // TileToMLIR.cpp): gpu.func cannot carry nvvm.grid_constant (only an
  // nvvm.kernel may) and its lowering keeps only llvm.align, so the kernel
  // gets byval + grid_constant here.
  if (size_t maps = planTensorMaps(*req.kernel).size()) {
    size_t first = req.kernel->params.size() + req.kernel->scalars.size() + req.kernel->dims.size();
    module->walk([&](LLVM::LLVMFuncOp fn) {
      if (fn.getName() != req.kernel->name || fn.getNumArguments() != first + maps)
        return;
      MLIRContext *c = fn.getContext();
      for (size_t i = first; i < first + maps; ++i) {
        unsigned a = static_cast<unsigned>(i);
        fn.setArgAttr(a, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(IntegerType::get(c, 64), 16)));
        fn.setArgAttr(a, LLVM::LLVMDialect::getAlignAttrName(),
                      IntegerAttr::get(IntegerType::get(c, 64), 64));
        fn.setArgAttr(a, NVVM::NVVMDialect::getGridConstantAttrName(), UnitAttr::get(c));
      }
    });
  }
  if (failed(mlir::verify(*module)))
    return fail("the MLIR pass pipeline produced invalid IR for kernel '" + req.kernel->name + "'");
  out.times.lowerMLIR = msSince(t1);
  if (req.until == Stage::LoweredMLIR) {
    out.loweredMlir = printOp(*module);
    return true;
  }

  auto gpuModules = module->getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty())
    return fail("internal: the lowered module has no gpu.module");
  gpu::GPUModuleOp gm = *gpuModules.begin();
  ArrayAttr targets = gm.getTargetsAttr();
  if (!targets || targets.empty())
    return fail("internal: nvvm-attach-target attached no target");
  auto target = dyn_cast<gpu::TargetAttrInterface>(targets[0]);
  if (!target)
    return fail("internal: the attached target is not a gpu target attribute");

  auto mark = Clock::now();
  bool wantLLVM = req.until == Stage::LLVM;
  auto onInitial = [&](llvm::Module &) {
    out.times.translate = msSince(mark);
    mark = Clock::now();
  };
  auto onOptimized = [&](llvm::Module &m) {
    out.times.optimize = msSince(mark);
    if (wantLLVM) {
      llvm::raw_string_ostream os(out.llvmIR);
      m.print(os, nullptr);
    }
    mark = Clock::now();
  };
  gpu::TargetOptions options(/*toolkitPath=*/{}, /*librariesToLink=*/{}, /*cmdOptions=*/{},
                             /*elfSection=*/{}, gpu::CompilationTarget::Assembly,
                             /*getSymbolTableCallback=*/{}, onInitial, /*linked=*/{}, onOptimized,
                             /*isaCallback=*/{});
  std::optional<SmallVector<char, 0>> ptx = target.serializeToObject(gm, options);
  if (!ptx)
    return fail("translating kernel '" + req.kernel->name + "' to PTX failed");
  out.times.emitPTX = msSince(mark);
  if (wantLLVM)
    return true; // the PTX was a by-product of getting the optimized module
  out.ptx.assign(ptx->begin(), ptx->end());
  while (!out.ptx.empty() && out.ptx.back() == '\0')
    out.ptx.pop_back();
  return true;
}

} // namespace kina::codegen::detail
