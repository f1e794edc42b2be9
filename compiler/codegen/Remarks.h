//===- Remarks.h - ptxas findings at the Kina line that caused them -*- C++ -*-===//
//
// Issue 17, part 5. After ptxas, with CodegenOptions::remarks: register
// spills (K0850, warning) at the Kina line with the most local-memory
// instructions in the SASS (the cubin's line table, when the build has line
// info and nvdisasm is found; else the kernel), and occupancy limited by
// registers alone (K0851, note) with the register count that would fit one
// more block. Warpgroup kernels keep their own spill warning (K1225).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Codegen.h"
#include "diag/Diagnostic.h"
#include "target/Registry.h"

namespace kina::codegen {

void reportBuildRemarks(const ir::Kernel &kernel, const CodegenResult &result,
                        target::TargetId target, const SourceFile *lineInfo, DiagnosticSink &sink);

} // namespace kina::codegen
