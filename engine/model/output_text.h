#pragma once
// A request's streamed text: incremental detokenization plus stop strings. Text that
// could still turn out to be the start of a stop string is held back until it cannot.
#include <memory>
#include <string>
#include <vector>

#include "engine/model/tokenizer.h"

namespace lwb {

class OutputText {
 public:
  // `tokenizer` may be null (no text); `promptTail` keeps the first token's leading space.
  OutputText(const Tokenizer* tokenizer, std::vector<int> promptTail, std::vector<std::string> stop);
  // Adds one generated id; returns true when a stop string appeared (text truncated
  // before it; nothing after it is ever emitted). Without `checkStop` (vLLM: output
  // still within min_tokens) the text grows but no stop string is looked for.
  bool push(int id, bool checkStop = true);
  // New text safe to show now. With `final`, everything left (after flushing the
  // detokenizer unless a stop string already ended the text).
  std::string take(bool final);
  const std::string& text() const { return text_; }

 private:
  std::unique_ptr<IncrementalDetokenizer> detok_;
  std::vector<std::string> stop_;
  int vocabSize_ = 0;  // the tokenizer's; a model's vocab_size may be padded past it
  size_t maxStopLen_ = 0;
  std::string text_;
  size_t emitted_ = 0;
  bool stopped_ = false;
};

}  // namespace lwb
