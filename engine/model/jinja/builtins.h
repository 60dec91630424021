#pragma once
// What templates can call on values: filters (`x | trim`), tests (`x is string`), Python
// methods (`s.startswith(p)`), attribute and item access, and the operators.
#include <string>

#include "engine/model/jinja/value.h"

namespace lwb::jinja {

// Throw lwb::Error for unknown names ("unsupported filter 'xmlattr'") and bad arguments.
Value applyFilter(const std::string& name, const Value& subject, const CallArgs& args);
bool applyTest(const std::string& name, const Value& subject, const CallArgs& args);

// jinja2's environment.getattr / getitem: `a.b` prefers Python attributes (methods) and
// falls back to items; `a[b]` the other way round. Missing → undefined with a hint;
// access on an undefined value throws.
Value getAttribute(const Value& object, const std::string& name);
Value getItem(const Value& object, const Value& key);
Value getSlice(const Value& object, const Value& start, const Value& stop, const Value& step);
// A bound Python method of a str, dict or list, or undefined when there is none.
Value boundMethod(const Value& object, const std::string& name);

// Arithmetic and comparison operators with Python's semantics ("+", "//", "in", "<", ...).
Value binaryOp(const std::string& op, const Value& a, const Value& b);
// printf-style `"%s and %d" % (a, b)`.
std::string percentFormat(const std::string& format, const Value& args);

// The arguments of a call: positional i or keyword `name`, else the fallback.
Value argument(const CallArgs& args, size_t i, const char* name, const Value& fallback);
// Throws when a required string/int argument is missing or of the wrong type.
std::string stringArgument(const CallArgs& args, size_t i, const char* name, const char* function);

}  // namespace lwb::jinja
