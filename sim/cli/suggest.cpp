#include "sim/cli/suggest.hpp"

#include <algorithm>

namespace scoville::cli {

size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  // d[i][j]: distance between the first i characters of a and the first j of b.
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates) {
  // Leading dashes carry no meaning for the budget: "--tpp" is a 3-letter word.
  const size_t letters = word.size() - std::min(word.find_first_not_of('-'), word.size());
  const size_t budget = std::min<size_t>(2, std::max<size_t>(1, letters / 3));
  // A known word is not misspelt (a flag refused for another reason needs no guess).
  if (std::find(candidates.begin(), candidates.end(), word) != candidates.end()) return {};
  std::optional<std::string> best;
  size_t best_distance = budget + 1;
  for (const std::string& candidate : candidates) {
    const size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace scoville::cli
