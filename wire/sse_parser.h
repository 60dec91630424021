#pragma once
// Server-sent events as OpenAI-compatible servers stream them: events separated by a
// blank line, payload in "data:" lines (several are joined with "\n"), comments
// (":...") and other fields ignored, "\n" or "\r\n" line ends. Bytes arrive in arbitrary
// pieces from the socket; feed() keeps the unfinished tail.
#include <functional>
#include <string>

namespace lwb::remote {

class SseParser {
 public:
  // Called with the data of each complete event; return false to stop reading.
  using OnData = std::function<bool(const std::string& data)>;
  explicit SseParser(OnData onData) : onData_(std::move(onData)) {}

  // False once the callback asked to stop.
  bool feed(const char* bytes, size_t size);
  // Bytes of a started but unfinished event (a stream cut short leaves some).
  bool hasPartialEvent() const { return !line_.empty() || hasData_; }

 private:
  bool endLine();

  OnData onData_;
  std::string line_, data_;
  bool hasData_ = false;
};

}  // namespace lwb::remote
