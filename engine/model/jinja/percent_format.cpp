// printf-style string formatting (`"%s: %d" % (a, b)`, the `format` filter), as Python's.
#include <cmath>

#include "engine/common/error.h"
#include "engine/model/jinja/builtins.h"

namespace lwb::jinja {

namespace {

std::string formatOne(char conv, const std::string& flags, int width, int precision, const Value& v) {
  std::string body;
  if (conv == 's' || conv == 'r') {
    body = conv == 's' ? v.str() : v.repr();
    if (precision >= 0 && size_t(precision) < body.size()) body.resize(size_t(precision));
  } else {
    if (!v.isNumber()) throw Error(std::string("%") + conv + " format: a real number is required, not " + v.typeName());
    std::string spec = "%" + flags + (width > 0 ? std::to_string(width) : "");
    if (precision >= 0) spec += "." + std::to_string(precision);
    char buf[1536];  // width <= 1000, precision <= 100, plus up to 309 integer digits
    if (conv == 'd' || conv == 'i' || conv == 'x' || conv == 'X' || conv == 'o') {
      spec += std::string("ll") + (conv == 'i' ? 'd' : conv);
      snprintf(buf, sizeof buf, spec.c_str(), static_cast<long long>(v.asInt()));
    } else {
      spec.push_back(conv);
      snprintf(buf, sizeof buf, spec.c_str(), v.asDouble());
    }
    body = buf;
  }
  if ((conv == 's' || conv == 'r') && int(body.size()) < width) {
    const bool left = flags.find('-') != std::string::npos;
    body = left ? body + std::string(size_t(width) - body.size(), ' ') : std::string(size_t(width) - body.size(), ' ') + body;
  }
  return body;
}

}  // namespace

std::string percentFormat(const std::string& format, const Value& args) {
  const List values = args.isList() ? args.asList() : List{args};
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out.push_back(format[i]);
      continue;
    }
    if (++i >= format.size()) throw Error("format: incomplete format");
    if (format[i] == '%') {
      out.push_back('%');
      continue;
    }
    if (format[i] == '(') throw Error("format: '%(name)s' mapping keys are not supported");
    std::string flags;
    while (i < format.size() && std::string("-+ #0").find(format[i]) != std::string::npos) flags.push_back(format[i++]);
    int width = 0, precision = -1;
    while (i < format.size() && isdigit(static_cast<unsigned char>(format[i]))) width = std::min(width * 10 + (format[i++] - '0'), 1000);
    if (i < format.size() && format[i] == '.') {
      precision = 0;
      ++i;
      while (i < format.size() && isdigit(static_cast<unsigned char>(format[i])))
        precision = std::min(precision * 10 + (format[i++] - '0'), 100);
    }
    if (i >= format.size() || std::string("sdirfFeEgGxXo").find(format[i]) == std::string::npos)
      throw Error("format: unsupported format character in '" + format + "'");
    if (next >= values.size()) throw Error("format: not enough arguments for format string");
    out += formatOne(format[i], flags, width, precision, values[next++]);
  }
  if (next < values.size() && args.isList()) throw Error("format: not all arguments converted during string formatting");
  return out;
}

}  // namespace lwb::jinja
