//===- ReportJson.h - JSON form of the resource report ----------*- C++ -*-===//
//
// `kina report --json` and the language server's register-pressure request
// serialise ResourceReport through this one function, so the field names
// are defined once. Returns the JSON text (nlohmann/json stays private to
// kina_target).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "target/ResourceReport.h"

#include <string>

namespace kina::target {

/// {"target": "sm_80", "kernels": [{"name", "registers", "spillStores",
///  "spillLoads", "stackFrame", "sharedBytes", "constBytes", "barriers",
///  "mismatches": [...], "params": [{"ordinal","offset","size"}],
///  "occupancy": {...} | null, "sass": {"total", "opcodes": {...},
///  "classes": {...}} | null}], "notes": [...]}
/// `indent` < 0 gives one line.
std::string resourceReportToJson(const ResourceReport &report, int indent = 2);

} // namespace kina::target
