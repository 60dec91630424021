#include "engine/model/hf_decoder.h"

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/model/hf_json.h"
#include "engine/model/hf_unicode.h"

namespace lwb::hf {

using json = nlohmann::json;

std::unique_ptr<Decoder> Decoder::fromJson(const json& j, const std::string& where) {
  if (j.is_null()) return nullptr;
  auto d = std::unique_ptr<Decoder>(new Decoder());
  d->parse(j, where);
  return d;
}

Decoder::~Decoder() = default;

void Decoder::parse(const json& j, const std::string& where) {
  const std::string type = stringField(j, "type", where);
  if (type == "Sequence") {
    const json& list = arrayField(j, "decoders", where);
    for (size_t i = 0; i < list.size(); ++i) parse(list[i], where + ".decoders[" + std::to_string(i) + "]");
    return;
  }
  Step s{};
  if (type == "ByteLevel") {
    s.kind = Step::Kind::ByteLevel;
    byteLevel_ = true;
  } else if (type == "Metaspace") {
    s.kind = Step::Kind::Metaspace;
    s.content = stringField(j, "replacement", where);
    check(!s.content.empty(), where + ": field 'replacement' is empty");
    const std::string scheme = j.contains("prepend_scheme") ? stringField(j, "prepend_scheme", where) : "always";
    s.prependFirst = scheme != "never" && boolField(j, "add_prefix_space", where, true);
  } else if (type == "Replace") {
    s.kind = Step::Kind::Replace;
    s.pattern = patternField(j, where);
    s.content = stringField(j, "content", where);
  } else if (type == "ByteFallback") {
    s.kind = Step::Kind::ByteFallback;
  } else if (type == "Fuse") {
    s.kind = Step::Kind::Fuse;
  } else if (type == "Strip") {
    s.kind = Step::Kind::Strip;
    s.content = stringField(j, "content", where);
    check(s.content.size() == 1, where + ": field 'content' is \"" + s.content + "\", expected one ASCII character");
    const json& start = field(j, "start", where);
    const json& stop = field(j, "stop", where);
    check(start.is_number_unsigned() && stop.is_number_unsigned(), where + ": 'start' and 'stop' must be counts");
    s.start = start.get<size_t>(), s.stop = stop.get<size_t>();
  } else {
    throw Error(where + ": decoder type '" + type +
                "' is not supported (supported: ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip, Sequence)");
  }
  steps_.push_back(std::move(s));
}

namespace {

// Pieces in the byte alphabet become their bytes; a piece with any other character (an
// added token such as "<｜end▁of▁sentence｜>") stays as written. The bytes are joined and
// repaired once, so a character split across pieces survives.
std::vector<std::string> byteLevelDecode(const std::vector<std::string>& pieces) {
  std::string bytes, raw;
  for (const std::string& p : pieces) bytes += byteLevelToBytes(p, &raw) ? raw : p;
  return {toValidUtf8(bytes)};
}

// Runs of <0xNN> pieces become their text when the run is valid UTF-8, else one U+FFFD
// per byte (Hugging Face's ByteFallback).
std::vector<std::string> byteFallbackDecode(const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  std::string run;
  size_t runLength = 0;
  auto flush = [&] {
    if (runLength == 0) return;
    if (toValidUtf8(run) == run) out.push_back(run);
    else
      for (size_t i = 0; i < runLength; ++i) out.push_back("\xEF\xBF\xBD");
    run.clear(), runLength = 0;
  };
  for (const std::string& p : pieces) {
    const int b = byteOfFallbackPiece(p);
    if (b >= 0) {
      run += char(b), ++runLength;
      continue;
    }
    flush();
    out.push_back(p);
  }
  flush();
  return out;
}

std::string stripChar(const std::string& s, char c, size_t start, size_t stop) {
  size_t begin = 0, end = s.size();
  while (begin < end && begin < start && s[begin] == c) ++begin;
  for (size_t n = 0; n < stop && end > begin && s[end - 1] == c; ++n) --end;
  return s.substr(begin, end - begin);
}

std::string replaceAll(const std::string& text, const Regex& re, const std::string& content) {
  std::string out;
  size_t last = 0;
  re.forEachMatch(text, [&](size_t start, size_t end) {
    out.append(text, last, start - last);
    out += content;
    last = end;
  });
  return out.append(text, last, std::string::npos);
}

}  // namespace

std::string Decoder::decode(std::vector<std::string> pieces) const {
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Step::Kind::ByteLevel: pieces = byteLevelDecode(pieces); break;
      case Step::Kind::ByteFallback: pieces = byteFallbackDecode(pieces); break;
      case Step::Kind::Fuse: {
        std::string all;
        for (const std::string& p : pieces) all += p;
        pieces = {all};
        break;
      }
      case Step::Kind::Replace:
        for (std::string& p : pieces) p = replaceAll(p, *s.pattern, s.content);
        break;
      case Step::Kind::Strip:
        for (std::string& p : pieces) p = stripChar(p, s.content[0], s.start, s.stop);
        break;
      case Step::Kind::Metaspace:
        for (size_t i = 0; i < pieces.size(); ++i) {
          std::string t;
          for (size_t pos = 0; pos < pieces[i].size();) {
            if (pieces[i].compare(pos, s.content.size(), s.content) == 0) t += ' ', pos += s.content.size();
            else t += pieces[i][pos++];
          }
          if (i == 0 && s.prependFirst && t.starts_with(' ')) t.erase(0, 1);
          pieces[i] = std::move(t);
        }
        break;
    }
  }
  std::string out;
  for (size_t i = 0; i < pieces.size(); ++i) out += (i && steps_.empty() ? " " : "") + pieces[i];
  return out;
}

}  // namespace lwb::hf
