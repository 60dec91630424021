#pragma once
// The sequence filters (filters_seq.cpp), shared with the filter table in filters.cpp.
#include "engine/model/jinja/value.h"

namespace lwb::jinja {

// jinja2's attribute getter: "a.b.0" walks items/attributes, an integer indexes.
Value attributeOf(const Value& item, const Value& attribute);
Value defaultValue(const Value& v, const CallArgs& a);
Value selectItems(const Value& v, const CallArgs& a, bool byAttribute, bool keep);
Value mapItems(const Value& v, const CallArgs& a);
Value uniqueItems(const Value& v, const CallArgs& a);
Value sortItems(const Value& v, const CallArgs& a);
Value dictSort(const Value& v, const CallArgs& a);
Value sumItems(const Value& v, const CallArgs& a);
Value minMax(const Value& v, const CallArgs& a, bool min);

}  // namespace lwb::jinja
