//===- ReportJson.cpp - ResourceReport to JSON ----------------------------===//
//
// The one place that names the JSON fields of the resource report.
//
//===----------------------------------------------------------------------===//
#include "target/ReportJson.h"

#include <nlohmann/json.hpp>

namespace kina::target {

std::string resourceReportToJson(const ResourceReport &report, int indent) {
  using json = nlohmann::ordered_json;
  json root;
  root["target"] = std::string(targetInfo(report.target).name);
  root["kernels"] = json::array();
  for (const KernelReport &k : report.kernels) {
    json j;
    j["name"] = k.name;
    j["registers"] = k.registers;
    j["spillStores"] = k.spillStores;
    j["spillLoads"] = k.spillLoads;
    j["stackFrame"] = k.stackFrame;
    j["sharedBytes"] = k.sharedBytes;
    j["constBytes"] = k.constBytes;
    j["barriers"] = k.barriers;
    j["mismatches"] = k.mismatches;
    j["params"] = json::array();
    if (k.cubin)
      for (const CubinParam &p : k.cubin->params)
        j["params"].push_back({{"ordinal", p.ordinal}, {"offset", p.offset}, {"size", p.size}});
    j["threadsPerBlock"] = k.threadsPerBlock ? json(*k.threadsPerBlock) : json(nullptr);
    if (k.occupancy) {
      const OccupancyResult &o = *k.occupancy;
      json occ;
      occ["blocksPerSM"] = o.blocksPerSM;
      occ["warpsPerSM"] = o.warpsPerSM;
      occ["maxWarpsPerSM"] = o.maxWarpsPerSM;
      occ["occupancy"] = o.occupancy;
      occ["blocksByRegisters"] = o.blocksByRegisters;
      occ["blocksBySharedMemory"] = o.blocksBySharedMemory;
      occ["blocksByThreads"] = o.blocksByThreads;
      occ["blocksByBlockLimit"] = o.blocksByBlockLimit;
      occ["binding"] = json::array();
      for (OccupancyLimit l : o.binding)
        occ["binding"].push_back(std::string(occupancyLimitName(l)));
      occ["error"] = o.error.empty() ? json(nullptr) : json(o.error);
      j["occupancy"] = occ;
    } else {
      j["occupancy"] = nullptr;
    }
    if (k.sass) {
      json s;
      s["total"] = k.sass->total;
      s["opcodes"] = k.sass->opcodeCounts;
      json classes = json::object();
      for (const auto &[c, n] : k.sass->classCounts)
        classes[std::string(sassClassName(c))] = n;
      s["classes"] = classes;
      j["sass"] = s;
    } else {
      j["sass"] = nullptr;
    }
    root["kernels"].push_back(j);
  }
  root["notes"] = report.notes;
  return root.dump(indent, ' ', false, json::error_handler_t::replace);
}

} // namespace kina::target
