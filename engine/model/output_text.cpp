#include "engine/model/output_text.h"

#include <algorithm>

namespace lwb {

OutputText::OutputText(const Tokenizer* tokenizer, std::vector<int> promptTail, std::vector<std::string> stop)
    : stop_(std::move(stop)) {
  if (tokenizer) {
    vocabSize_ = tokenizer->vocabSize();
    std::erase_if(promptTail, [this](int id) { return id >= vocabSize_; });
    detok_ = std::make_unique<IncrementalDetokenizer>(*tokenizer, std::move(promptTail));
  }
  std::erase(stop_, std::string());
  for (const std::string& s : stop_) maxStopLen_ = std::max(maxStopLen_, s.size());
}

bool OutputText::push(int id, bool checkStop) {
  if (!detok_ || stopped_) return stopped_;
  if (id < 0 || id >= vocabSize_) return false;  // padded model vocabulary: no piece, no text
  const size_t before = text_.size();
  text_ += detok_->push(id);
  if (stop_.empty() || !checkStop) return false;
  // A stop string can only end inside the new text: search from maxStopLen_ back.
  const size_t from = before >= maxStopLen_ ? before - maxStopLen_ + 1 : 0;
  size_t cut = std::string::npos;
  for (const std::string& s : stop_) cut = std::min(cut, text_.find(s, from));
  if (cut == std::string::npos) return false;
  text_.resize(cut);
  stopped_ = true;
  return true;
}

std::string OutputText::take(bool final) {
  if (final && detok_ && !stopped_) text_ += detok_->flush();
  size_t end = text_.size();
  if (!final && !stopped_ && maxStopLen_ > 1) {
    end = text_.size() > maxStopLen_ - 1 ? text_.size() - (maxStopLen_ - 1) : 0;
    while (end > emitted_ && end < text_.size() && (static_cast<unsigned char>(text_[end]) & 0xC0) == 0x80) --end;
  }
  if (end <= emitted_) return {};
  std::string out = text_.substr(emitted_, end - emitted_);
  emitted_ = end;
  return out;
}

}  // namespace lwb
