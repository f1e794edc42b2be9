//===- CapabilityDocs.h - docs/capabilities.md from the registry -*- C++ -*-===//
//
// Renders the capability registry as the Markdown page docs/capabilities.md.
// The checked-in page is compared with this text by a unit test, so the
// docs can never drift from Targets.def / Capabilities.def.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace kina::target {

/// The command that regenerates docs/capabilities.md (printed by the test).
inline constexpr const char *kCapabilitiesDocsRegenCommand =
    "<build>/compiler/target/kina-target docs -o docs/capabilities.md";

/// The full text of docs/capabilities.md. Deterministic; no timestamps.
std::string renderCapabilitiesMarkdown();

} // namespace kina::target
