#pragma once
// Which parts of each streamed chat answer came from accepted speculative drafts, from
// the token deltas (TokenDelta::fromDraft and textEnds), as byte ranges of the answer's
// text; and the answer as HTML with those ranges tinted. A token's text is what the
// detokenizer released with it, so a character the detokenizer held back is tinted as
// the token that released it was.
#include <QColor>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"

namespace lwb::ui {

class DraftMarks {
 public:
  using Ranges = std::vector<std::pair<size_t, size_t>>;  // [begin, end) bytes, ascending, disjoint

  // `d` streamed into turn `turn` whose text had `offset` bytes before d.newText was
  // appended. Deltas without per-token text ends (another source) mark nothing.
  void add(size_t turn, size_t offset, const TokenDelta& d);
  const Ranges& ranges(size_t turn) const;
  int numDraftTokens(size_t turn) const;  // tokens from accepted drafts in that turn
  int numTokens(size_t turn) const;       // all tokens streamed into it
  void clear() { turns_.clear(); }

  // For the saved chat: {"ranges": [[b, e], ...], "draft_tokens": n, "tokens": m}; an
  // empty object for a turn without tokens.
  QJsonObject toJson(size_t turn) const;
  void fromJson(size_t turn, const QJsonObject& o);

  // `content` escaped for HTML (line breaks as <br>), the ranges on a `tint` background.
  static QString html(const std::string& content, const Ranges& ranges, const QColor& tint);
  // The tint: the draft-verification colour, blended into the transcript's background.
  static QColor tint();

 private:
  struct Turn {
    Ranges ranges;
    int numDraftTokens = 0, numTokens = 0;
  };
  std::map<size_t, Turn> turns_;
};

}  // namespace lwb::ui
