#include "wire/sse_parser.h"

namespace lwb::remote {

bool SseParser::feed(const char* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    if (bytes[i] != '\n') {
      line_ += bytes[i];
      continue;
    }
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (!endLine()) return false;
  }
  return true;
}

bool SseParser::endLine() {
  const std::string line = std::move(line_);
  line_.clear();
  if (line.empty()) {  // blank line: the event is complete
    if (!hasData_) return true;
    const std::string data = std::move(data_);
    data_.clear();
    hasData_ = false;
    return onData_(data);
  }
  if (line.rfind("data:", 0) != 0) return true;  // ":comment", "event:", "id:", "retry:"
  std::string value = line.substr(5);
  if (!value.empty() && value.front() == ' ') value.erase(0, 1);
  if (hasData_) data_ += '\n';
  data_ += value;
  hasData_ = true;
  return true;
}

}  // namespace lwb::remote
