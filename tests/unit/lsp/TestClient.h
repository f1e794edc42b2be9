//===- TestClient.h - An in-process client for Server unit tests -*- C++ -*-===//
//
// Runs a real Server whose Transport writes into memory, feeds it messages
// with handleMessage(), and decodes what it sent.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Server.h"

#include <cstdio>
#include <string>
#include <vector>

namespace kina::lsp::test {

class TestClient {
public:
  explicit TestClient(ServerOptions options = {}) {
    out_ = open_memstream(&buf_, &len_);
    log_ = std::make_unique<Logger>("/dev/null");
    transport_ = std::make_unique<Transport>(stdin, out_, *log_);
    server_ = std::make_unique<Server>(*transport_, *log_, options);
  }
  ~TestClient() {
    server_.reset();
    std::fclose(out_);
    std::free(buf_);
  }
  Server &server() { return *server_; }
  void send(const json &m) { server_->handleMessage(m); }
  void request(int id, const std::string &method, json params) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  }
  void notify(const std::string &method, json params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  void initialize(json initOptions = {{"debounceMs", 0}}) {
    request(0, "initialize",
            {{"capabilities", {{"textDocument", {{"publishDiagnostics", {{"versionSupport", true}}}}}}},
             {"initializationOptions", initOptions}});
  }
  /// Everything the server sent so far, decoded.
  std::vector<json> received() {
    std::fflush(out_);
    std::vector<json> out;
    std::string all(buf_, len_);
    size_t pos = 0;
    while ((pos = all.find("Content-Length: ", pos)) != std::string::npos) {
      size_t n = std::stoul(all.substr(pos + 16));
      size_t body = all.find("\r\n\r\n", pos) + 4;
      out.push_back(json::parse(all.substr(body, n)));
      pos = body + n;
    }
    return out;
  }
  /// The body of every message the server sent so far, as written.
  std::vector<std::string> rawBodies() {
    std::fflush(out_);
    std::vector<std::string> out;
    std::string all(buf_, len_);
    size_t pos = 0;
    while ((pos = all.find("Content-Length: ", pos)) != std::string::npos) {
      size_t n = std::stoul(all.substr(pos + 16));
      size_t body = all.find("\r\n\r\n", pos) + 4;
      out.push_back(all.substr(body, n));
      pos = body + n;
    }
    return out;
  }
  /// The response to request `id`, if any.
  std::optional<json> response(int id) {
    for (const json &m : received())
      if (m.contains("id") && m["id"] == id && !m.contains("method"))
        return m;
    return std::nullopt;
  }

private:
  char *buf_ = nullptr;
  size_t len_ = 0;
  std::FILE *out_;
  std::unique_ptr<Logger> log_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Server> server_;
};

} // namespace kina::lsp::test
