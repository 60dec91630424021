#include "ui/panels/draft_marks.h"

#include <QJsonObject>
#include <algorithm>

#include "ui/theme.h"

namespace lwb::ui {

namespace {
QString escapeText(const std::string& s, size_t begin, size_t end) {
  return QString::fromUtf8(s.data() + begin, qsizetype(end - begin)).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
}

void addRange(DraftMarks::Ranges& ranges, size_t begin, size_t end) {
  if (end <= begin) return;
  if (!ranges.empty() && ranges.back().second == begin) ranges.back().second = end;  // adjacent drafts: one run
  else ranges.emplace_back(begin, end);
}
}  // namespace

void DraftMarks::add(size_t turn, size_t offset, const TokenDelta& d) {
  Turn& t = turns_[turn];
  const size_t n = d.newTokenIds.size();
  t.numTokens += int(n);
  if (d.fromDraft.size() != n || d.textEnds.size() != n) return;
  size_t begin = 0;
  for (size_t i = 0; i < n; ++i) {
    // The last token also owns what a final flush added after its end.
    const size_t end = i + 1 == n ? std::max(d.textEnds[i], d.newText.size()) : d.textEnds[i];
    if (d.fromDraft[i]) {
      ++t.numDraftTokens;
      addRange(t.ranges, offset + begin, offset + end);
    }
    begin = end;
  }
}

const DraftMarks::Ranges& DraftMarks::ranges(size_t turn) const {
  static const Ranges kNone;
  auto it = turns_.find(turn);
  return it == turns_.end() ? kNone : it->second.ranges;
}

int DraftMarks::numDraftTokens(size_t turn) const {
  auto it = turns_.find(turn);
  return it == turns_.end() ? 0 : it->second.numDraftTokens;
}

int DraftMarks::numTokens(size_t turn) const {
  auto it = turns_.find(turn);
  return it == turns_.end() ? 0 : it->second.numTokens;
}

QJsonObject DraftMarks::toJson(size_t turn) const {
  auto it = turns_.find(turn);
  if (it == turns_.end() || it->second.numTokens == 0) return {};
  QJsonArray ranges;
  for (const auto& [b, e] : it->second.ranges) ranges.append(QJsonArray{qint64(b), qint64(e)});
  return {{"ranges", ranges}, {"draft_tokens", it->second.numDraftTokens}, {"tokens", it->second.numTokens}};
}

// Ranges that do not fit the text (a hand-edited file) are dropped, not trusted.
void DraftMarks::fromJson(size_t turn, const QJsonObject& o) {
  if (o.isEmpty()) return;
  Turn t;
  t.numDraftTokens = o.value("draft_tokens").toInt();
  t.numTokens = o.value("tokens").toInt();
  for (const auto& v : o.value("ranges").toArray()) {
    const QJsonArray r = v.toArray();
    const qint64 b = r.at(0).toInteger(-1), e = r.at(1).toInteger(-1);
    if (b >= 0 && e > b && (t.ranges.empty() || size_t(b) >= t.ranges.back().second)) addRange(t.ranges, size_t(b), size_t(e));
  }
  turns_[turn] = std::move(t);
}

QString DraftMarks::html(const std::string& content, const Ranges& ranges, const QColor& tint) {
  QString out;
  size_t at = 0;
  for (const auto& [b, e] : ranges) {
    if (b >= content.size()) break;
    const size_t end = std::min(e, content.size());
    out += escapeText(content, at, b);
    out += QStringLiteral("<span style='background-color:%1'>%2</span>").arg(theme::htmlColor(tint), escapeText(content, b, end));
    at = end;
  }
  return out + escapeText(content, at, content.size());
}

QColor DraftMarks::tint() {
  auto mix = [](int a, int b) { return (a * 35 + b * 65) / 100; };  // 35 % of the accent: subtle
  return QColor(mix(theme::kVerify.red(), theme::kBase.red()), mix(theme::kVerify.green(), theme::kBase.green()),
                mix(theme::kVerify.blue(), theme::kBase.blue()));
}

}  // namespace lwb::ui
