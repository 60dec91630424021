// Filters over sequences: select/reject(attr), map, unique, sort, dictsort, sum, min/max.
#include <algorithm>

#include "engine/common/error.h"
#include "engine/model/jinja/builtins.h"
#include "engine/model/jinja/filters_internal.h"
#include "engine/model/jinja/text.h"

namespace lwb::jinja {

namespace {

const Value kNone = Value::none();
const Value kFalse = Value::boolean(false);

CallArgs tail(const CallArgs& a, size_t from) {
  CallArgs rest;
  if (from < a.positional.size()) rest.positional.assign(a.positional.begin() + long(from), a.positional.end());
  rest.keyword = a.keyword;
  return rest;
}

// jinja2 compares strings case-insensitively in sort/unique/min/max unless told not to.
Value sortKey(const Value& item, const Value& attribute, bool caseSensitive) {
  Value key = attribute.isNone() ? item : attributeOf(item, attribute);
  if (!caseSensitive && key.isString()) return Value::string(pyLower(key.asString()));
  return key;
}

}  // namespace

Value attributeOf(const Value& item, const Value& attribute) {
  if (attribute.kind() == Value::Kind::Int) return getItem(item, attribute);
  Value v = item;
  for (const std::string& part : pySplit(attribute.str(), std::string("."), -1)) {
    const bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    v = numeric && part.size() < 18 ? getItem(v, Value::integer(std::stoll(part))) : getItem(v, Value::string(part));
  }
  return v;
}

Value defaultValue(const Value& v, const CallArgs& a) {
  const bool boolean = argument(a, 1, "boolean", kFalse).truthy();
  if (v.isUndefined() || (boolean && !v.truthy())) return argument(a, 0, "default_value", Value::string(""));
  return v;
}

Value selectItems(const Value& v, const CallArgs& a, bool byAttribute, bool keep) {
  const size_t testAt = byAttribute ? 1 : 0;
  const Value attribute = byAttribute ? argument(a, 0, "attr", kNone) : kNone;
  if (byAttribute && attribute.isNone()) throw Error("selectattr/rejectattr: missing attribute name");
  const bool hasTest = a.positional.size() > testAt;
  const CallArgs testArgs = tail(a, testAt + 1);
  List out;
  for (const Value& item : v.iterate()) {
    const Value subject = byAttribute ? attributeOf(item, attribute) : item;
    const bool pass = hasTest ? applyTest(a.positional[testAt].str(), subject, testArgs) : subject.truthy();
    if (pass == keep) out.push_back(item);
  }
  return Value::list(out);
}

Value mapItems(const Value& v, const CallArgs& a) {
  List out;
  if (const Value* attribute = a.keywordArg("attribute")) {
    const Value* fallback = a.keywordArg("default");
    for (const Value& item : v.iterate()) {
      Value x = attributeOf(item, *attribute);
      out.push_back(x.isUndefined() && fallback ? *fallback : x);
    }
    return Value::list(out);
  }
  if (a.positional.empty()) throw Error("map: needs a filter name or attribute=");
  const std::string filter = a.positional[0].str();
  const CallArgs rest = tail(a, 1);
  for (const Value& item : v.iterate()) out.push_back(applyFilter(filter, item, rest));
  return Value::list(out);
}

Value uniqueItems(const Value& v, const CallArgs& a) {
  const bool caseSensitive = argument(a, 0, "case_sensitive", kFalse).truthy();
  const Value& attribute = argument(a, 1, "attribute", kNone);
  List out, seen;
  for (const Value& item : v.iterate()) {
    Value key = sortKey(item, attribute, caseSensitive);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    out.push_back(item);
  }
  return Value::list(out);
}

Value sortItems(const Value& v, const CallArgs& a) {
  const bool reverse = argument(a, 0, "reverse", kFalse).truthy();
  const bool caseSensitive = argument(a, 1, "case_sensitive", kFalse).truthy();
  const Value& attribute = argument(a, 2, "attribute", kNone);
  std::vector<std::pair<Value, Value>> keyed;
  for (const Value& item : v.iterate()) keyed.emplace_back(sortKey(item, attribute, caseSensitive), item);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return reverse ? compareValues(y.first, x.first) < 0 : compareValues(x.first, y.first) < 0;
  });
  List out;
  for (auto& k : keyed) out.push_back(k.second);
  return Value::list(out);
}

Value dictSort(const Value& v, const CallArgs& a) {
  if (!v.isMapping()) throw Error("dictsort: expected a mapping, got " + v.typeName());
  const bool caseSensitive = argument(a, 0, "case_sensitive", kFalse).truthy();
  const std::string by = argument(a, 1, "by", Value::string("key")).str();
  if (by != "key" && by != "value") throw Error("dictsort: 'by' must be \"key\" or \"value\"");
  const bool reverse = argument(a, 2, "reverse", kFalse).truthy();
  List pairs;
  for (const auto& [k, x] : v.asDict().entries) pairs.push_back(Value::tuple({Value::string(k), x}));
  CallArgs sortArgs;
  sortArgs.keyword = {{"reverse", Value::boolean(reverse)},
                      {"case_sensitive", Value::boolean(caseSensitive)},
                      {"attribute", Value::integer(by == "key" ? 0 : 1)}};
  return sortItems(Value::list(pairs), sortArgs);
}

Value sumItems(const Value& v, const CallArgs& a) {
  const Value& attribute = argument(a, 0, "attribute", kNone);
  Value total = argument(a, 1, "start", Value::integer(0));
  for (const Value& item : v.iterate()) total = binaryOp("+", total, attribute.isNone() ? item : attributeOf(item, attribute));
  return total;
}

Value minMax(const Value& v, const CallArgs& a, bool min) {
  const bool caseSensitive = argument(a, 0, "case_sensitive", kFalse).truthy();
  const Value& attribute = argument(a, 1, "attribute", kNone);
  const List items = v.iterate();
  if (items.empty()) return Value::undefined(std::string("no ") + (min ? "min" : "max") + " item, sequence was empty");
  size_t best = 0;
  for (size_t i = 1; i < items.size(); ++i) {
    const int c = compareValues(sortKey(items[i], attribute, caseSensitive), sortKey(items[best], attribute, caseSensitive));
    if (min ? c < 0 : c > 0) best = i;
  }
  return items[best];
}

}  // namespace lwb::jinja
