#pragma once
// The many-candidate path of filteredDraw (filtered_draw.h): min-p, top-p and the draw of
// the full sort's semantics over thousands of tokens, without sorting them.
//
// One pass over the row puts each token in one of 1,024 buckets of z - z_max (monotone in
// p: every token of a bucket ranks above every token of the next) and adds its p to its
// bucket's mass. Summing masses in bucket order is the rank-order sum up to rounding, so
// top-p's cut and the draw each find their bucket from the masses, then their 1/64th of
// it from a second histogram of that bucket's tokens, and sort only those few tokens:
// the same token as the full sort unless u lands within rounding (~1e-15 of the mass)
// of a boundary between two tokens.
#include "engine/sample/filtered_draw.h"

namespace lwb {

// exp(-37.5) < 2^-54: a token that far below the best adds exactly nothing to a double
// sum that already holds p_max = 1, and cannot be drawn.
constexpr float kNegligibleNats = 37.5f;

// `z`: n values (the row, or the candidates' values in id order: the returned index is
// then a position in that list, and ties still go to the lower id). Values below `floor`
// (or NaN) are not candidates; zMax is the largest value.
int bucketedDraw(const float* z, int n, float zMax, float floor, const FilterSettings& f, double u,
                 DrawScratch& scratch);

}  // namespace lwb
