//===- TransportTest.cpp - Content-Length framing, good and bad -----------===//
#include "Transport.h"

#include <gtest/gtest.h>

using namespace kina::lsp;

namespace {

/// Reads every Incoming from `input` with the given options.
std::vector<Incoming> readAll(const std::string &input, TransportOptions options = {}) {
  std::FILE *in = fmemopen(const_cast<char *>(input.data()), input.size(), "r");
  Logger log("/dev/null");
  Transport t(in, stdout, log, options);
  std::vector<Incoming> out;
  for (int guard = 0; guard < 100; ++guard) {
    Incoming m = t.read();
    out.push_back(m);
    if (m.kind == Incoming::Kind::Eof)
      break;
  }
  std::fclose(in);
  return out;
}

std::string frame(const std::string &body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(Transport, ReadsFramedMessagesBackToBack) {
  auto got = readAll(frame(R"({"a":1})") + frame(R"({"b":2})"));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].message["a"], 1);
  EXPECT_EQ(got[1].message["b"], 2);
  EXPECT_EQ(got[2].kind, Incoming::Kind::Eof);
}

TEST(Transport, AcceptsOtherHeadersAndBareLineFeeds) {
  auto got = readAll("Content-Type: application/vscode-jsonrpc; charset=utf-8\nContent-Length: 2\n\n{}");
  ASSERT_EQ(got[0].kind, Incoming::Kind::Message);
  EXPECT_TRUE(got[0].message.is_object());
}

TEST(Transport, BadJsonIsAParseErrorAndReadingGoesOn) {
  auto got = readAll(frame("{nope") + frame("{}"));
  ASSERT_EQ(got[0].kind, Incoming::Kind::FramingError);
  EXPECT_EQ(got[0].errorCode, -32700);
  EXPECT_EQ(got[1].kind, Incoming::Kind::Message);
}

TEST(Transport, OversizedBodyIsSkippedWhole) {
  TransportOptions o;
  o.maxMessageBytes = 8;
  auto got = readAll(frame(R"({"long":"0123456789"})") + frame("{}"), o);
  ASSERT_EQ(got[0].kind, Incoming::Kind::FramingError);
  EXPECT_EQ(got[0].errorCode, -32600);
  ASSERT_EQ(got[1].kind, Incoming::Kind::Message);
  EXPECT_EQ(got[1].message, nlohmann::json::object());
}

TEST(Transport, MissingOrInvalidLengthIsReported) {
  auto got = readAll("Content-Length: -3\r\n\r\n" + frame("{}"));
  ASSERT_EQ(got[0].kind, Incoming::Kind::FramingError);
  EXPECT_NE(got[0].error.find("invalid Content-Length"), std::string::npos);
  EXPECT_EQ(got[1].kind, Incoming::Kind::Message);
}

TEST(Transport, TruncatedBodyEndsInput) {
  auto got = readAll("Content-Length: 100\r\n\r\n{}");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, Incoming::Kind::Eof);
}

TEST(Transport, HugeHeaderLineDoesNotGrowMemory) {
  std::string junk(1 << 20, 'x');
  auto got = readAll(junk + "\r\n\r\n" + frame("{}"));
  ASSERT_EQ(got[0].kind, Incoming::Kind::FramingError);
  EXPECT_LT(got[0].error.size(), 200u);
  EXPECT_EQ(got[1].kind, Incoming::Kind::Message);
}

TEST(Transport, LitModeSplitsOnDashesAndSkipsComments) {
  TransportOptions o;
  o.litTest = true;
  auto got = readAll("# comment\n{\"a\":\n 1}\n---\n---\n{\"b\":2}\n", o);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].message["a"], 1);
  EXPECT_EQ(got[1].message["b"], 2);
}

TEST(Transport, SendReplacesInvalidUtf8) {
  char *buf = nullptr;
  size_t len = 0;
  std::FILE *out = open_memstream(&buf, &len);
  Logger log("/dev/null");
  Transport t(stdin, out, log);
  t.send({{"m", std::string("bad \xff byte")}});
  std::fflush(out);
  std::string s(buf, len);
  std::fclose(out);
  std::free(buf);
  EXPECT_NE(s.find("Content-Length: "), std::string::npos);
  EXPECT_NE(s.find("bad \xEF\xBF\xBD byte"), std::string::npos);
}

} // namespace
