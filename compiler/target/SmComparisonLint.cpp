//===- SmComparisonLint.cpp - Architecture-ladder scanner -----------------===//
//
// Line-based regular expressions over code with comments removed.
//
//===----------------------------------------------------------------------===//
#include "target/SmComparisonLint.h"

#include <regex>

namespace kina::target {
namespace {

/// Removes // and /* */ comments, keeping string literals intact.
/// `inBlock` carries an open /* */ across lines.
std::string stripComments(const std::string &line, bool &inBlock) {
  std::string out;
  bool inString = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    char next = i + 1 < line.size() ? line[i + 1] : '\0';
    if (inBlock) {
      if (c == '*' && next == '/') {
        inBlock = false;
        ++i;
      }
      continue;
    }
    if (inString) {
      out += c;
      if (c == '\\' && next) {
        out += next;
        ++i;
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    if (c == '"') {
      inString = true;
      out += c;
    } else if (c == '/' && next == '/') {
      break;
    } else if (c == '/' && next == '*') {
      inBlock = true;
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

} // namespace

std::vector<SmComparison> findSmComparisons(std::string_view source) {
  static const std::regex stringCompare(
      R"((==|!=)\s*"(sm|compute)_[0-9]+[a-z]?"|"(sm|compute)_[0-9]+[a-z]?"\s*(==|!=|<|>))");
  static const std::regex prefixCompare(
      R"((starts_with|startswith|rfind|find|compare|substr)\s*\(\s*"(sm|compute)_)");
  static const std::regex targetIdCompare(
      R"(TargetId::\w+\s*(==|!=|<=|>=|<|>)|(==|!=|<=|>=|<|>)\s*TargetId::)");
  static const std::regex numericLadder(
      R"(\b(cc|sm|arch|computeCapability|compute_capability|ccMajor|ccMinor|cc_major|cc_minor|smVersion|sm_version|smArch|sm_arch|archVersion|arch_version|chipVersion)\s*(>=|<=|>|<)\s*[0-9]{1,3}\b)");
  std::vector<SmComparison> found;
  bool inBlock = false;
  unsigned lineNo = 0;
  size_t start = 0;
  while (start <= source.size()) {
    size_t end = source.find('\n', start);
    if (end == std::string_view::npos)
      end = source.size();
    std::string line(source.substr(start, end - start));
    ++lineNo;
    start = end + 1;
    if (line.find("kina-allow-sm-compare:") != std::string::npos)
      continue;
    std::string code = stripComments(line, inBlock);
    if (std::regex_search(code, stringCompare) || std::regex_search(code, prefixCompare) ||
        std::regex_search(code, targetIdCompare) || std::regex_search(code, numericLadder)) {
      size_t b = line.find_first_not_of(" \t");
      found.push_back({lineNo, b == std::string::npos ? line : line.substr(b)});
    }
    if (end == source.size())
      break;
  }
  return found;
}

} // namespace kina::target
