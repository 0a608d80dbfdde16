// "Did you mean ...?" for misspelt commands and flags: the nearest known word by edit distance.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scoville::cli {

// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
// neighbouring characters each cost 1 (a typed "--btach" is one step from "--batch").
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest to `word`, if one is close enough to be what was meant: at most 2 edits,
// and at most a third of the word's length, so short words are not "corrected" into others.
// Ties go to the first candidate, so the answer does not depend on anything but the list. A
// word that is itself a candidate gets no suggestion.
std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates);

}  // namespace scoville::cli
