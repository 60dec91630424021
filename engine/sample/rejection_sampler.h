#pragma once
// Speculative sampling (Leviathan et al. 2023; vLLM's RejectionSampler): a draft token d
// proposed with probability q(d) is accepted with probability min(1, p(d) / q(d)), where
// p is the target's distribution at that position; on rejection the token is drawn from
// the normalised residual max(0, p − q). The kept tokens then follow p exactly. An
// n-gram proposal is a point mass (q(d) = 1): accept with p(d), else draw from p with d
// removed.
#include <vector>

#include "engine/sample/filtered_draw.h"

namespace lwb {

// The distribution filteredDraw draws from, written out: softmax of the
// temperature-scaled logits `z` [vocabSize], then top-k, min-p and top-p in rank order
// (ties: lower id first), renormalised. probs: [vocabSize], zero outside the kept set.
void filteredProbs(const float* z, int vocabSize, const FilterSettings& f, std::vector<double>& probs);

struct DraftVerdict {
  bool accepted = false;
  int tokenId = -1;  // the draft when accepted, else the residual draw
};

// `p`: target probabilities [vocab]; `q`: the draft's [vocab], or nullptr for a point
// mass on `draftToken`. `uAccept`, `uResidual`: independent uniforms in [0, 1).
DraftVerdict verifyDraft(const std::vector<double>& p, const std::vector<double>* q, int draftToken, double uAccept,
                         double uResidual);

// The residual distribution max(0, p − q) normalised (q == nullptr: point mass on
// `draftToken`); p itself when the residual has no mass (then p == q, and rejection
// has probability 0).
std::vector<double> residualProbs(const std::vector<double>& p, const std::vector<double>* q, int draftToken);

// One draw from unnormalised weights `w` with a uniform `u` in [0, 1).
int drawFromWeights(const std::vector<double>& w, double u);

}  // namespace lwb
