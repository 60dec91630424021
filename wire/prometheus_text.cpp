#include "wire/prometheus_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "engine/common/error.h"

namespace lwb::remote {
namespace {

bool isNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
bool isNameChar(char c) { return isNameStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

// One line being read; every failure names the line.
class LineReader {
 public:
  LineReader(const std::string& line, const std::string& where) : s_(line), where_(where) {}

  [[noreturn]] void fail(const std::string& what) const {
    std::string shown = s_.size() > 120 ? s_.substr(0, 120) + "..." : s_;
    throw Error(where_ + ": " + what + " in '" + shown + "'");
  }
  bool atEnd() const { return pos_ >= s_.size(); }
  char peek() const { return atEnd() ? '\0' : s_[pos_]; }
  void skipSpaces() {
    while (!atEnd() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  std::string name(bool allowColon) {
    const size_t start = pos_;
    if (!isNameStart(peek()) || (!allowColon && peek() == ':')) fail("expected a metric or label name");
    while (!atEnd() && isNameChar(s_[pos_]) && (allowColon || s_[pos_] != ':')) ++pos_;
    return s_.substr(start, pos_ - start);
  }

  std::string quoted() {
    expect('"');
    std::string out;
    for (;;) {
      if (atEnd()) fail("unterminated label value");
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd()) fail("unterminated escape");
      const char e = s_[pos_++];
      if (e == 'n') out += '\n';
      else if (e == '\\' || e == '"') out += e;
      else fail(std::string("unknown escape '\\") + e + "'");
    }
  }

  Labels labels() {
    Labels out;
    expect('{');
    skipSpaces();
    while (peek() != '}') {
      const std::string key = name(false);
      skipSpaces();
      expect('=');
      skipSpaces();
      if (!out.emplace(key, quoted()).second) fail("label '" + key + "' given twice");
      skipSpaces();
      if (peek() == ',') {
        ++pos_;
        skipSpaces();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after a label");
      }
    }
    ++pos_;
    return out;
  }

  std::string word() {
    const size_t start = pos_;
    while (!atEnd() && s_[pos_] != ' ' && s_[pos_] != '\t') ++pos_;
    return s_.substr(start, pos_ - start);
  }

  double number() {
    const std::string w = word();
    if (w.empty()) fail("missing sample value");
    if (w == "+Inf" || w == "Inf") return std::numeric_limits<double>::infinity();
    if (w == "-Inf") return -std::numeric_limits<double>::infinity();
    if (w == "NaN") return std::numeric_limits<double>::quiet_NaN();
    char* end = nullptr;
    const double v = std::strtod(w.c_str(), &end);
    if (end != w.c_str() + w.size() || std::isnan(v) || std::isinf(v)) fail("'" + w + "' is not a number");
    return v;
  }

  const std::string& rest() const { return s_; }
  size_t pos() const { return pos_; }

 private:
  const std::string& s_;
  std::string where_;
  size_t pos_ = 0;
};

PromSample readSample(LineReader& in) {
  PromSample s;
  s.name = in.name(true);
  in.skipSpaces();
  if (in.peek() == '{') s.labels = in.labels();
  in.skipSpaces();
  s.value = in.number();
  in.skipSpaces();
  if (!in.atEnd()) {
    const std::string timestamp = in.word();
    char* end = nullptr;
    std::strtoll(timestamp.c_str(), &end, 10);
    if (end != timestamp.c_str() + timestamp.size()) in.fail("'" + timestamp + "' is not a timestamp");
    in.skipSpaces();
    if (!in.atEnd()) in.fail("unexpected text after the timestamp");
  }
  return s;
}

// "# TYPE name type"; HELP and other comments carry nothing a scraper needs.
void readComment(LineReader& in, PromText& out) {
  const std::string& line = in.rest();
  if (line.rfind("# TYPE ", 0) != 0) return;
  std::string rest = line.substr(7);
  const size_t space = rest.find(' ');
  if (space == std::string::npos || space == 0) in.fail("TYPE without a name and a type");
  static const char* kTypes[] = {"counter", "gauge", "histogram", "summary", "untyped", "info", "stateset",
                                 "gaugehistogram", "unknown"};
  const std::string type = rest.substr(space + 1);
  if (std::find(std::begin(kTypes), std::end(kTypes), type) == std::end(kTypes)) in.fail("unknown type '" + type + "'");
  out.types[rest.substr(0, space)] = type;
}

bool includes(const Labels& labels, const Labels& match) {
  for (const auto& [k, v] : match) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

}  // namespace

PromText parsePrometheusText(const std::string& text, const std::string& source) {
  PromText out;
  size_t start = 0;
  for (int lineNo = 1; start < text.size(); ++lineNo) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    LineReader in(line, source + " line " + std::to_string(lineNo));
    in.skipSpaces();
    if (in.atEnd()) continue;
    if (in.peek() == '#') readComment(in, out);
    else out.samples.push_back(readSample(in));
  }
  return out;
}

bool PromText::has(const std::string& name) const {
  return std::any_of(samples.begin(), samples.end(), [&](const PromSample& s) { return s.name == name; });
}

std::optional<double> PromText::sum(const std::string& name, const Labels& match) const {
  std::optional<double> total;
  for (const auto& s : samples)
    if (s.name == name && includes(s.labels, match)) total = total.value_or(0) + s.value;
  return total;
}

std::optional<double> PromText::max(const std::string& name) const {
  std::optional<double> best;
  for (const auto& s : samples)
    if (s.name == name) best = std::max(best.value_or(s.value), s.value);
  return best;
}

std::optional<PromHistogram> PromText::histogram(const std::string& family) const {
  std::map<double, double> buckets;  // le → cumulative count, summed over label sets
  const std::string bucketName = family + "_bucket";
  for (const auto& s : samples) {
    if (s.name != bucketName) continue;
    auto le = s.labels.find("le");
    if (le == s.labels.end()) throw Error(family + ": a _bucket sample without an 'le' label");
    const double bound = le->second == "+Inf" ? std::numeric_limits<double>::infinity() : std::strtod(le->second.c_str(), nullptr);
    buckets[bound] += s.value;
  }
  if (buckets.empty()) return std::nullopt;
  PromHistogram h;
  for (const auto& [bound, count] : buckets) {
    h.upperBounds.push_back(bound);
    h.cumulativeCounts.push_back(count);
  }
  h.count = sum(family + "_count").value_or(h.cumulativeCounts.back());
  h.sum = sum(family + "_sum").value_or(0);
  return h;
}

std::vector<Labels> PromText::labelSets(const std::string& name) const {
  std::vector<Labels> out;
  for (const auto& s : samples)
    if (s.name == name) out.push_back(s.labels);
  return out;
}

std::optional<double> histogramQuantile(const PromHistogram& h, double q) {
  if (h.cumulativeCounts.empty() || h.cumulativeCounts.back() <= 0) return std::nullopt;
  const double rank = q * h.cumulativeCounts.back();
  for (size_t i = 0; i < h.upperBounds.size(); ++i) {
    if (h.cumulativeCounts[i] < rank) continue;
    const double lower = i == 0 ? 0.0 : h.upperBounds[i - 1];
    const double below = i == 0 ? 0.0 : h.cumulativeCounts[i - 1];
    if (std::isinf(h.upperBounds[i])) return lower;  // as Prometheus: the last finite bound
    const double inBucket = h.cumulativeCounts[i] - below;
    return inBucket <= 0 ? h.upperBounds[i] : lower + (h.upperBounds[i] - lower) * (rank - below) / inBucket;
  }
  return h.upperBounds.back();
}

}  // namespace lwb::remote
