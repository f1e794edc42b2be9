//===- Pch.h - Precompiled header of the MLIR-heavy codegen TUs --*- C++ -*-===//
//
// The MLIR/LLVM headers both TileToMLIR.cpp and Pipeline.cpp include; built
// once as a precompiled header (CMake target_precompile_headers).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
