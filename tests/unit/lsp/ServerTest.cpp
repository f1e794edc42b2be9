//===- ServerTest.cpp - Containment, cancellation, and a 10k-edit replay --===//
//
// Drives the real Server in-process (TestClient.h). The replay applies
// 10,000 seeded random incremental edits (inserts and deletes of ASCII,
// brackets and multi-byte characters, UTF-16 ranges computed here
// independently of kina::SourceFile) with debounce 0 to a copy of the
// stdlib's gemm_tc, then checks that the server is alive, that published
// versions never go backwards, and that the last published diagnostics
// equal `kina check --diagnostics-format=json` on the final text (the issue's
// acceptance item) and a fresh in-process analysis.
//
//===----------------------------------------------------------------------===//
#include "LexicalScan.h"
#include "PublishCache.h"
#include "TestClient.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

using namespace kina::lsp;
using namespace kina::lsp::test;

namespace {

const char *kUri = "file:///t.kina";

json openParams(const std::string &text, int version = 1) {
  return {{"textDocument", {{"uri", kUri}, {"languageId", "kina"}, {"version", version}, {"text", text}}}};
}

TEST(Server, FailingHandlerIsContainedAndServerStaysUp) {
  TestClient c;
  c.server().registerRequest("test/throw", [](const json &, RequestContext &) -> json {
    throw std::runtime_error("boom");
  });
  c.initialize();
  c.request(1, "test/throw", json::object());
  c.server().waitIdle();
  auto r = c.response(1);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["error"]["code"], -32603);
  EXPECT_EQ((*r)["error"]["message"], "test/throw failed: boom");
  c.notify("textDocument/didOpen", openParams("kernel k {\n}\n"));
  c.request(2, "textDocument/foldingRange", {{"textDocument", {{"uri", kUri}}}});
  c.server().waitIdle();
  ASSERT_TRUE(c.response(2));
  EXPECT_TRUE((*c.response(2))["result"].is_array());
}

TEST(Server, CancelRequestAnswersRequestCancelled) {
  TestClient c;
  std::atomic<bool> started{false};
  c.server().registerRequest("test/block", [&](const json &, RequestContext &ctx) -> json {
    started = true;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (ctx.token.isCancelled())
        throw kina::query::Cancelled();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return "not cancelled";
  });
  c.initialize();
  c.request(7, "test/block", json::object());
  while (!started)
    std::this_thread::yield();
  c.notify("$/cancelRequest", {{"id", 7}});
  c.server().waitIdle();
  auto r = c.response(7);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["error"]["code"], -32800);
}

std::string readSource(const std::string &rel) {
  std::ifstream f(std::string(KINA_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// kina/run with a driver that does not finish (a stand-in script named by
/// kina.path: without a GPU the real driver exits at once with 77, so it
/// cannot show cancellation): $/cancelRequest kills it and answers
/// RequestCancelled, with a `cancelled` progress end.
TEST(Server, CancelRunKillsTheDriver) {
  char dir[] = "/tmp/kina-lsp-cancel-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  std::string script = std::string(dir) + "/kina";
  {
    std::ofstream f(script);
    f << "#!/bin/sh\necho started\nexec sleep 60\n";
  }
  ::chmod(script.c_str(), 0755);
  TestClient c;
  c.initialize({{"debounceMs", 0}, {"path", script}});
  c.notify("textDocument/didOpen", openParams(readSource("stdlib/gemm_tc.kina")));
  c.server().waitIdle();
  auto start = std::chrono::steady_clock::now();
  c.request(5, "kina/run",
            {{"textDocument", {{"uri", kUri}}}, {"kernel", "gemm_tc"}, {"workDoneToken", "t"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  c.notify("$/cancelRequest", {{"id", 5}});
  c.server().waitIdle();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  auto r = c.response(5);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["error"]["code"], -32800);
  bool sawStarted = false, sawCancelled = false;
  for (const json &m : c.received()) {
    if (m.value("method", "") != "$/progress")
      continue;
    const json &v = m["params"]["value"];
    sawStarted |= v.value("message", "") == "started";
    sawCancelled |= v["kind"] == "end" && v.value("message", "") == "cancelled";
  }
  EXPECT_TRUE(sawStarted);
  EXPECT_TRUE(sawCancelled);
  std::remove(script.c_str());
  ::rmdir(dir);
}

/// UTF-16 (line, character) of byte `offset`, computed independently.
std::pair<int, int> utf16Position(const std::string &s, size_t offset) {
  int line = 0, col = 0;
  for (size_t i = 0; i < offset;) {
    unsigned char c = s[i];
    if (c == '\n') {
      ++line;
      col = 0;
      ++i;
      continue;
    }
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    col += len == 4 ? 2 : 1;
    i += len;
  }
  return {line, col};
}

/// Byte offsets of every character boundary of s, plus s.size().
std::vector<size_t> boundaries(const std::string &s) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80)
      out.push_back(i);
  out.push_back(s.size());
  return out;
}

/// `kina check --diagnostics-format=json --target T` of `text`.
json kinaCheck(const std::string &text, const std::string &target) {
  char path[] = "/tmp/kina-lsp-replay-XXXXXX.kina";
  int fd = ::mkstemps(path, 5);
  EXPECT_GE(fd, 0);
  ::close(fd);
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  std::string cmd = std::string(KINA_DRIVER) + " check --diagnostics-format=json --target " +
                    target + " " + path + " 2>/dev/null";
  std::string out;
  if (FILE *p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
      out.append(buf, n);
    ::pclose(p);
  }
  std::remove(path);
  return json::parse(out, nullptr, /*allow_exceptions=*/false);
}

/// Publishes built from cached diagnostic JSON (PublishCache.h) are the
/// bytes a fresh serialization writes, edit after edit: line breaks typed
/// above diagnostics (their lines move, their text is reused), edits on a
/// diagnostic's line, labels into other items (duplicate names), notes.
TEST(Server, CachedPublishesEqualFreshSerialization) {
  ServerOptions cachedOptions, freshOptions;
  cachedOptions.sync = freshOptions.sync = true;
  cachedOptions.diagnosticsDocsUrl = freshOptions.diagnosticsDocsUrl = "https://kina.dev/d";
  freshOptions.cachePublishedJson = false;
  TestClient cached(cachedOptions), fresh(freshOptions);
  std::string gemm = readSource("stdlib/gemm_tc.kina");
  ASSERT_FALSE(gemm.empty());
  // Every kernel twice (duplicate names: labels), and calls of unknown names.
  std::string text = gemm + "\n" + gemm + "\n";
  for (size_t at = 0; (at = text.find("block_sync", at)) != std::string::npos; at += 40)
    text.insert(at, "let u = helpr x in\n    ");
  for (TestClient *c : {&cached, &fresh}) {
    c->initialize();
    c->notify("textDocument/didOpen", openParams(text));
    c->server().waitIdle();
  }
  std::mt19937 rng(11);
  const std::vector<std::string> pieces = {"\n", "\n\n", "a", " ", "// c\n", "\xC3\xA9", "}"};
  for (int version = 2; version < 200; ++version) {
    auto bounds = boundaries(text);
    size_t a = bounds[rng() % bounds.size()], b = a;
    std::string insert;
    if (rng() % 3) {
      insert = pieces[rng() % pieces.size()];
    } else {
      auto it = std::find(bounds.begin(), bounds.end(), a);
      b = *(it + std::min<size_t>(bounds.end() - it - 1, 1));
    }
    auto [l1, c1] = utf16Position(text, a);
    auto [l2, c2] = utf16Position(text, b);
    text.replace(a, b - a, insert);
    for (TestClient *c : {&cached, &fresh}) {
      c->notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", version}}},
                                           {"contentChanges",
                                            {{{"range",
                                               {{"start", {{"line", l1}, {"character", c1}}},
                                                {"end", {{"line", l2}, {"character", c2}}}}},
                                              {"text", insert}}}}});
      c->server().waitIdle(); // every version is published, in both
    }
  }
  cached.server().waitIdle();
  fresh.server().waitIdle();
  std::vector<std::string> got = cached.rawBodies(), want = fresh.rawBodies();
  ASSERT_EQ(got.size(), want.size());
  size_t publishes = 0, labelled = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << "message " << i;
    if (want[i].find("publishDiagnostics") != std::string::npos) {
      ++publishes;
      labelled += want[i].find("relatedInformation") != std::string::npos;
    }
  }
  EXPECT_GT(publishes, 150u);
  EXPECT_GT(labelled, 150u);
}

/// Reuse is by content and relative lines: a line break above every
/// diagnostic moves them all and serializes none again; an edit on one
/// diagnostic's line serializes that one again.
TEST(PublishCache, ReusesDiagnosticsWhoseLinesMoved) {
  auto convert = [](const kina::SourceFile &f) {
    return [&f](const kina::Diagnostic &d) {
      auto pos = [&](uint32_t o) {
        kina::LineCol lc = f.utf16LineCol(o);
        return Position{lc.line, lc.column};
      };
      LspDiagnostic l;
      l.range = {pos(d.span.begin), pos(d.span.end)};
      l.code = std::string(d.info().code);
      l.message = d.message;
      for (const kina::SpanLabel &s : d.labels)
        l.relatedInformation.push_back(
            {Location{kUri, {pos(s.span.begin), pos(s.span.end)}}, s.message});
      return l;
    };
  };
  auto reference = [&](const kina::SourceFile &f, const std::vector<kina::Diagnostic> &ds) {
    PublishDiagnosticsParams p{kUri, 3, {}};
    for (const kina::Diagnostic &d : ds)
      p.diagnostics.push_back(convert(f)(d));
    json m = {
        {"jsonrpc", "2.0"}, {"method", "textDocument/publishDiagnostics"}, {"params", toJSON(p)}};
    return m.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  std::string text = "a\nbb c\n\xC3\xA9 dd\n";
  auto diags = [](uint32_t shift) {
    std::vector<kina::Diagnostic> ds(3);
    ds[0] = kina::Diagnostic{
        kina::DiagId::UnexpectedToken, {0 + shift, 1 + shift}, "first", {}, {}, {}};
    ds[1] = kina::Diagnostic{
        kina::DiagId::UnexpectedToken, {5 + shift, 6 + shift}, "c \"line\":7", {}, {"n"}, {}};
    ds[1].label({2 + shift, 4 + shift}, "bb");
    ds[2] =
        kina::Diagnostic{kina::DiagId::UnexpectedToken, {10 + shift, 12 + shift}, "dd", {}, {}, {}};
    return ds;
  };
  PublishCache cache;
  kina::SourceFile f1("u", text);
  EXPECT_EQ(cache.body(kUri, 3, diags(0), f1, convert(f1)), reference(f1, diags(0)));
  EXPECT_EQ(cache.lastMisses(), 3u);
  kina::SourceFile f2("u", "\n\n" + text);
  EXPECT_EQ(cache.body(kUri, 3, diags(2), f2, convert(f2)), reference(f2, diags(2)));
  EXPECT_EQ(cache.lastMisses(), 0u);
  std::string edited = "\n\n" + text;
  edited.insert(11, "x"); // before ` dd` on its line: its characters change
  kina::SourceFile f3("u", edited);
  auto d3 = diags(2);
  d3[2].span = {d3[2].span.begin + 1, d3[2].span.end + 1};
  EXPECT_EQ(cache.body(kUri, 3, d3, f3, convert(f3)), reference(f3, d3));
  EXPECT_EQ(cache.lastMisses(), 1u); // only `dd` is serialized again
}

TEST(Server, TenThousandRandomEditsReplay) {
  TestClient c;
  c.initialize();
  std::string text = readSource("stdlib/gemm_tc.kina");
  ASSERT_FALSE(text.empty());
  c.notify("textDocument/didOpen", openParams(text));
  const std::vector<std::string> pieces = {
      "a",          "{",         "}",          "(",          ")",     "[",
      "]",          "\n",        " ",          "// c\n",     "\xC3\xA9", "\xF0\x9F\x98\x80",
      "block_sync", "c_reg",     "a_smem",     " 16",        "+ 64",  "cp_async_wait_all\n",
      "fill 0.0",   "kernel z ", "tile t {\n", "F32"};
  std::mt19937 rng(20261129);
  int version = 1;
  for (int i = 0; i < 10000; ++i) {
    auto bounds = boundaries(text);
    size_t a = bounds[rng() % bounds.size()];
    size_t b = a;
    std::string insert;
    if (rng() % 2 == 0 || text.size() < 10) {
      insert = pieces[rng() % pieces.size()];
    } else {
      // Delete one to five characters after a (about as many as inserted).
      auto it = std::find(bounds.begin(), bounds.end(), a);
      size_t k = std::min<size_t>(bounds.end() - it - 1, 1 + rng() % 5);
      b = *(it + k);
    }
    auto [l1, c1] = utf16Position(text, a);
    auto [l2, c2] = utf16Position(text, b);
    text.replace(a, b - a, insert);
    c.notify("textDocument/didChange",
             {{"textDocument", {{"uri", kUri}, {"version", ++version}}},
              {"contentChanges",
               {{{"range",
                  {{"start", {{"line", l1}, {"character", c1}}},
                   {"end", {{"line", l2}, {"character", c2}}}}},
                 {"text", insert}}}}});
  }
  c.server().waitIdle();
  // The text stayed a real file (neither emptied nor exploded).
  EXPECT_GT(text.size(), 500u);
  EXPECT_LT(text.size(), 20000u);

  // Alive: it still answers.
  c.request(1, "textDocument/foldingRange", {{"textDocument", {{"uri", kUri}}}});
  c.server().waitIdle();
  ASSERT_TRUE(c.response(1));

  // Published versions never go backwards; the last one is the final text's.
  int64_t last = 0;
  json lastDiags;
  for (const json &m : c.received()) {
    if (m.value("method", "") != "textDocument/publishDiagnostics")
      continue;
    int64_t v = m["params"]["version"];
    EXPECT_GE(v, last);
    last = v;
    lastDiags = m["params"]["diagnostics"];
  }
  EXPECT_EQ(last, version);

  // Final diagnostics equal `kina check --diagnostics-format=json` on the
  // independently kept final text (the server's default target is sm_80).
#ifdef KINA_DRIVER
  json cli = kinaCheck(text, "sm_80");
  ASSERT_TRUE(cli.is_array() && cli.size() == 1) << cli.dump();
  const json &expected = cli[0]["diagnostics"];
  ASSERT_EQ(lastDiags.size(), expected.size()) << text;
  for (size_t i = 0; i < expected.size(); ++i) {
    std::string message = expected[i]["message"];
    for (const json &note : expected[i]["notes"])
      message += "\nnote: " + note.get<std::string>();
    EXPECT_EQ(lastDiags[i]["message"], message);
    EXPECT_EQ(lastDiags[i]["code"], expected[i]["code"]);
    for (const char *end : {"start", "end"})
      for (const char *field : {"line", "character"})
        EXPECT_EQ(lastDiags[i]["range"][end][field], expected[i]["range"][end][field])
            << i << " " << end << "." << field;
  }
#else
  GTEST_FAIL() << "kina_lsp_tests was built without the kina driver (KINA_DRIVER)";
#endif

  // And a from-scratch analysis in process (incremental == from scratch).
  auto final = std::make_shared<const kina::SourceFile>(kUri, text);
  Analysis scratch;
  scratch.setFile(kUri, final, version);
  auto fresh = scratch.snapshot()->diagnostics(kUri);
  ASSERT_EQ(lastDiags.size(), fresh.size());
  for (size_t i = 0; i < fresh.size(); ++i) {
    auto lc = final->utf16LineCol(fresh[i].span.begin);
    std::string message = fresh[i].message; // the server appends notes
    for (const std::string &note : fresh[i].notes)
      message += "\nnote: " + note;
    EXPECT_EQ(lastDiags[i]["message"], message);
    EXPECT_EQ(lastDiags[i]["range"]["start"]["line"], lc.line);
    EXPECT_EQ(lastDiags[i]["range"]["start"]["character"], lc.column);
  }
}

} // namespace
