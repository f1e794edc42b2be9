//===- Transport.cpp - JSON-RPC 2.0 framing over a byte stream ------------===//
#include "Transport.h"

#include "Protocol.h"

#include <algorithm>
#include <cctype>

namespace kina::lsp {

namespace {
constexpr size_t kMaxHeaderLine = 8192;

/// How deep `[` and `{` may nest in a message. The JSON library parses
/// without recursion, but copying or comparing a value recurses, so a body
/// of 200,000 nested `[` overflowed the stack when `params` was copied.
/// LSP messages nest about ten levels.
constexpr unsigned kMaxJsonDepth = 256;

/// True when `body` nests `[`/`{` deeper than kMaxJsonDepth outside
/// strings (one pass, before the parser sees the body).
bool nestsTooDeep(const std::string &body) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character cannot end the string
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

Incoming framingError(ErrorCode code, std::string message) {
  Incoming in;
  in.kind = Incoming::Kind::FramingError;
  in.errorCode = static_cast<int>(code);
  in.error = std::move(message);
  return in;
}
} // namespace

Transport::Transport(std::FILE *in, std::FILE *out, Logger &log, TransportOptions options)
    : in_(in), out_(out), log_(log), options_(options) {}

Incoming Transport::read() { return options_.litTest ? readLit() : readFramed(); }

bool Transport::readLine(std::string &line) {
  line.clear();
  int c;
  bool any = false;
  while ((c = std::getc(in_)) != EOF) {
    any = true;
    if (c == '\n')
      break;
    if (line.size() < kMaxHeaderLine)
      line.push_back(static_cast<char>(c));
  }
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
  return any;
}

Incoming Transport::parseBody(const std::string &body) {
  if (nestsTooDeep(body))
    return framingError(ErrorCode::InvalidRequest,
                        "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Say where: nlohmann's error text, without exceptions in the hot path.
    // Not only parse_error: a number beyond a double (`1e400`) is an
    // out_of_range, which once escaped from here and aborted the server.
    std::string where;
    try {
      auto unused = nlohmann::json::parse(body);
      (void)unused;
    } catch (const nlohmann::json::exception &e) {
      where = e.what();
    }
    return framingError(ErrorCode::ParseError, "invalid JSON: " + where);
  }
  Incoming in;
  in.kind = Incoming::Kind::Message;
  in.message = std::move(j);
  return in;
}

Incoming Transport::readFramed() {
  std::string line;
  bool sawHeader = false;
  bool malformed = false;
  std::string problem;
  std::optional<long long> length;
  for (;;) {
    if (!readLine(line)) {
      if (sawHeader)
        log_.error("input ended inside a message header");
      Incoming eof;
      return eof;
    }
    if (line.empty()) {
      if (!sawHeader)
        continue; // stray blank line between messages
      break;
    }
    sawHeader = true;
    std::string low = lower(line);
    size_t at = low.find("content-length:");
    if (at != std::string::npos) {
      if (at != 0)
        log_.error("junk before a Content-Length header skipped: '" + line.substr(0, at) + "'");
      std::string value = trim(line.substr(at + 15));
      bool digits = !value.empty() && value.size() <= 18 &&
                    std::all_of(value.begin(), value.end(),
                                [](unsigned char c) { return std::isdigit(c); });
      if (!digits) {
        malformed = true;
        problem = "invalid Content-Length value '" + value + "'";
        length.reset();
      } else {
        length = std::stoll(value);
        malformed = false; // a good length after junk resynchronizes
      }
      continue;
    }
    if (line.find(':') == std::string::npos) {
      // Logged; fatal only when no valid Content-Length follows.
      log_.error("malformed header line '" + line.substr(0, 80) + "'");
      if (!malformed)
        problem = "malformed header line '" + line.substr(0, 80) + "'";
    }
    // Other headers (Content-Type) are accepted and ignored.
  }
  if (malformed || !length) {
    std::string message =
        malformed || !problem.empty() ? problem : "missing Content-Length header";
    log_.error(message);
    return framingError(ErrorCode::ParseError, message);
  }
  size_t n = static_cast<size_t>(*length);
  if (n > options_.maxMessageBytes) {
    // Skip the body so that the next message is read correctly.
    char buf[65536];
    size_t left = n;
    while (left > 0) {
      size_t got = std::fread(buf, 1, std::min(left, sizeof buf), in_);
      if (got == 0)
        break;
      left -= got;
    }
    std::string message = "message of " + std::to_string(n) + " bytes exceeds the limit of " +
                          std::to_string(options_.maxMessageBytes) + " bytes";
    log_.error(message);
    return framingError(ErrorCode::InvalidRequest, message);
  }
  std::string body(n, '\0');
  size_t got = n == 0 ? 0 : std::fread(body.data(), 1, n, in_);
  if (got < n) {
    log_.error("input ended inside a message body (" + std::to_string(got) + " of " +
               std::to_string(n) + " bytes)");
    return Incoming{};
  }
  return parseBody(body);
}

Incoming Transport::readLit() {
  std::string line, body;
  bool any = false;
  for (;;) {
    bool more = readLine(line);
    if (!more) {
      if (trim(body).empty())
        return Incoming{};
      break;
    }
    if (trim(line) == "---") {
      if (trim(body).empty()) {
        body.clear();
        continue;
      }
      break;
    }
    if (!line.empty() && line[0] == '#')
      continue;
    any = true;
    body += line;
    body += '\n';
  }
  (void)any;
  if (body.size() > options_.maxMessageBytes)
    return framingError(ErrorCode::InvalidRequest, "message exceeds the size limit");
  return parseBody(body);
}

void Transport::send(const nlohmann::json &message) {
  sendBody(
      message.dump(options_.pretty ? 2 : -1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void Transport::sendBody(const std::string &body) {
  std::lock_guard<std::mutex> lock(outMutex_);
  std::fprintf(out_, "Content-Length: %zu\r\n\r\n", body.size());
  std::fwrite(body.data(), 1, body.size(), out_);
  if (options_.pretty)
    std::fputc('\n', out_); // keeps transcripts line-oriented; clients skip it
  std::fflush(out_);
  bytesSent_ += body.size();
}

size_t Transport::bytesSent() const {
  std::lock_guard<std::mutex> lock(outMutex_);
  return bytesSent_;
}

} // namespace kina::lsp
