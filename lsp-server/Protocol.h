//===- Protocol.h - LSP 3.17 structures and their JSON forms ----*- C++ -*-===//
//
// Every Language Server Protocol structure kina-lsp reads or writes, with its
// toJSON / fromJSON, as in clangd's Protocol.h. LSP spec names (camelCase
// fields, method strings' payloads, numeric enums) appear only here and in
// Protocol.cpp; the rest of the server speaks in these structs, and the
// analysis layer (Analysis.h) knows nothing of LSP at all.
//
// fromJSON never throws: it returns false and fills `error` with the path of
// the offending field ("textDocument.uri: expected a string"), which the
// server turns into an InvalidParams (-32602) response.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kina::lsp {

using json = nlohmann::json;

/// JSON-RPC and LSP error codes.
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  UnknownErrorCode = -32001,
  RequestFailed = -32803,
  ServerCancelled = -32802,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

/// An error that a request handler reports as a JSON-RPC error response.
struct LspError {
  ErrorCode code;
  std::string message;
};

//===----------------------------------------------------------------------===//
// Basic structures
//===----------------------------------------------------------------------===//

struct Position {
  uint32_t line = 0;
  uint32_t character = 0; ///< UTF-16 code units
  bool operator==(const Position &) const = default;
};
struct Range {
  Position start, end;
  bool operator==(const Range &) const = default;
};
struct Location {
  std::string uri;
  Range range;
};
struct TextEdit {
  Range range;
  std::string newText;
};
struct TextDocumentIdentifier {
  std::string uri;
};
struct VersionedTextDocumentIdentifier {
  std::string uri;
  int64_t version = 0;
};
struct TextDocumentItem {
  std::string uri;
  std::string languageId;
  int64_t version = 0;
  std::string text;
};
struct TextDocumentPositionParams {
  TextDocumentIdentifier textDocument;
  Position position;
};

json toJSON(const Position &);
json toJSON(const Range &);
json toJSON(const Location &);
json toJSON(const TextEdit &);
bool fromJSON(const json &, Position &, std::string &error);
bool fromJSON(const json &, Range &, std::string &error);
bool fromJSON(const json &, TextDocumentIdentifier &, std::string &error);
bool fromJSON(const json &, TextDocumentPositionParams &, std::string &error);

//===----------------------------------------------------------------------===//
// Lifecycle
//===----------------------------------------------------------------------===//

/// The client capabilities kina-lsp looks at (everything else is ignored).
struct ClientCapabilities {
  bool diagnosticVersionSupport = false;
  bool diagnosticRelatedInformation = false;
  bool codeDescriptionSupport = false;
  bool hierarchicalDocumentSymbols = false;
  bool workspaceConfiguration = false;
  bool workDoneProgress = false;
  bool snippetSupport = false;
};

struct InitializeParams {
  std::optional<int64_t> processId;
  std::optional<std::string> rootUri;
  ClientCapabilities capabilities;
  json initializationOptions; ///< null when absent
};
bool fromJSON(const json &, InitializeParams &, std::string &error);

/// Kina's settings, from initializationOptions or `workspace/configuration`.
struct KinaSettings {
  std::optional<std::string> target;    ///< `kina.target`, e.g. "sm_90a"
  std::optional<std::string> backend;   ///< `kina.backend`: "ptx" or "tileir"
  std::optional<int64_t> debounceMs;    ///< `kina.debounceMs`; 0 publishes at once
  std::optional<std::string> path;      ///< `kina.path`: the `kina` driver for kina/run
};
/// Reads {"target": .., "backend": .., "debounceMs": .., "path": ..} (initializationOptions, or the
/// `kina` section of didChangeConfiguration settings). Unknown keys ignored.
bool fromJSON(const json &, KinaSettings &, std::string &error);

//===----------------------------------------------------------------------===//
// Text synchronization
//===----------------------------------------------------------------------===//

struct DidOpenTextDocumentParams {
  TextDocumentItem textDocument;
};
struct TextDocumentContentChangeEvent {
  std::optional<Range> range; ///< absent: the whole document
  std::string text;
};
struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};
struct DidCloseTextDocumentParams {
  TextDocumentIdentifier textDocument;
};
bool fromJSON(const json &, DidOpenTextDocumentParams &, std::string &error);
bool fromJSON(const json &, DidChangeTextDocumentParams &, std::string &error);
bool fromJSON(const json &, DidCloseTextDocumentParams &, std::string &error);

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct DiagnosticRelatedInformation {
  Location location;
  std::string message;
};

struct LspDiagnostic {
  Range range;
  DiagnosticSeverity severity = DiagnosticSeverity::Error;
  std::string code;                         ///< catalogue code, e.g. "K0003"
  std::optional<std::string> codeHref;      ///< codeDescription.href
  std::string source = "kina";
  std::string message;
  std::vector<DiagnosticRelatedInformation> relatedInformation;
};
json toJSON(const LspDiagnostic &);
bool fromJSON(const json &, LspDiagnostic &, std::string &error);

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<int64_t> version;
  std::vector<LspDiagnostic> diagnostics;
};
json toJSON(const PublishDiagnosticsParams &);

//===----------------------------------------------------------------------===//
// Language features
//===----------------------------------------------------------------------===//

struct Hover {
  std::string markdown;
  std::optional<Range> range;
};
json toJSON(const Hover &);

enum class InlayHintKind { Type = 1, Parameter = 2 };
struct InlayHint {
  Position position;
  std::string label;
  InlayHintKind kind = InlayHintKind::Type;
  bool paddingLeft = false;
};
json toJSON(const InlayHint &);
struct InlayHintParams {
  TextDocumentIdentifier textDocument;
  Range range;
};
bool fromJSON(const json &, InlayHintParams &, std::string &error);

/// Semantic tokens: the legend is fixed (see semanticTokenLegend()).
struct SemanticTokens {
  std::string resultId;
  std::vector<uint32_t> data;
};
struct SemanticTokensEdit {
  uint32_t start = 0;
  uint32_t deleteCount = 0;
  std::vector<uint32_t> data;
};
struct SemanticTokensDelta {
  std::string resultId;
  std::vector<SemanticTokensEdit> edits;
};
json toJSON(const SemanticTokens &);
json toJSON(const SemanticTokensDelta &);
struct SemanticTokensDeltaParams {
  TextDocumentIdentifier textDocument;
  std::string previousResultId;
};
bool fromJSON(const json &, SemanticTokensDeltaParams &, std::string &error);
/// The token types and modifiers, in the order the analysis enum uses.
json semanticTokenLegend();

struct ReferenceParams {
  TextDocumentPositionParams position;
  bool includeDeclaration = false;
};
bool fromJSON(const json &, ReferenceParams &, std::string &error);

struct RenameParams {
  TextDocumentPositionParams position;
  std::string newName;
};
bool fromJSON(const json &, RenameParams &, std::string &error);

/// WorkspaceEdit in its `changes` form: uri -> edits.
struct WorkspaceEdit {
  std::vector<std::pair<std::string, std::vector<TextEdit>>> changes;
};
json toJSON(const WorkspaceEdit &);

enum class SymbolKind { Function = 12, Variable = 13, Constant = 14, Struct = 23, Event = 24, Operator = 25, TypeParameter = 26 };
struct DocumentSymbol {
  std::string name;
  std::string detail;
  SymbolKind kind = SymbolKind::Function;
  Range range;
  Range selectionRange;
  std::vector<DocumentSymbol> children;
};
json toJSON(const DocumentSymbol &);

struct FoldingRange {
  uint32_t startLine = 0;
  uint32_t endLine = 0;
  std::optional<std::string> kind; ///< "comment", "region" or absent
};
json toJSON(const FoldingRange &);

enum class CompletionItemKind { Function = 3, Variable = 6, Keyword = 14, EnumMember = 20, Constant = 21, TypeParameter = 25, Struct = 22 };
struct CompletionItem {
  std::string label;
  CompletionItemKind kind = CompletionItemKind::Keyword;
  std::string detail;
  std::string documentation;
};
json toJSON(const CompletionItem &);

struct SignatureInformation {
  std::string label;
  std::string documentation;
  std::vector<std::string> parameters; ///< substrings of label
};
struct SignatureHelp {
  std::vector<SignatureInformation> signatures;
  uint32_t activeSignature = 0;
  uint32_t activeParameter = 0;
};
json toJSON(const SignatureHelp &);

struct CodeActionParams {
  TextDocumentIdentifier textDocument;
  Range range;
  std::vector<LspDiagnostic> diagnostics; ///< context.diagnostics
};
bool fromJSON(const json &, CodeActionParams &, std::string &error);

struct CodeAction {
  std::string title;
  std::string kind = "quickfix";
  std::vector<LspDiagnostic> diagnostics;
  WorkspaceEdit edit;
  bool isPreferred = false;
};
json toJSON(const CodeAction &);

struct Command {
  std::string title;
  std::string command;
  json arguments = json::array();
};
struct CodeLens {
  Range range;
  Command command;
};
json toJSON(const CodeLens &);

//===----------------------------------------------------------------------===//
// Cancellation, progress, configuration
//===----------------------------------------------------------------------===//

/// `$/cancelRequest` params; the id is an integer or a string.
struct CancelParams {
  json id;
};
bool fromJSON(const json &, CancelParams &, std::string &error);

/// `$/progress` payloads (WorkDoneProgressBegin / Report / End).
json progressBegin(const std::string &title, const std::string &message, bool cancellable);
json progressReport(const std::string &message, std::optional<uint32_t> percentage);
json progressEnd(const std::string &message);

/// `workspace/configuration` request params for the given sections.
json configurationParams(const std::vector<std::string> &sections);

//===----------------------------------------------------------------------===//
// Kina extensions (docs/lsp-extensions.md)
//===----------------------------------------------------------------------===//

/// Params of kina/ptx, kina/sass, kina/tileIR, kina/registerReport, kina/run:
/// the kernel is named, or found at `position`.
struct KernelRequestParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> kernel;
  std::optional<Position> position;
  std::optional<std::string> target; ///< overrides kina.target for this call
  /// kina/run: dimension values, e.g. {"M": 1024}; missing ones get defaults.
  std::map<std::string, int64_t> dims;
  json workDoneToken; ///< null when absent
};
bool fromJSON(const json &, KernelRequestParams &, std::string &error);

} // namespace kina::lsp
