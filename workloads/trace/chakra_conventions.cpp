#include "workloads/trace/chakra_conventions.hpp"

#include <cmath>

namespace scoville::workloads::chakra {

int64_t whole_amount(double value) {
  if (!(value >= 1.5)) return kMinimalAmount;  // also NaN: nothing to round
  if (value >= 9.2e18) return INT64_MAX;       // beyond any real op; llround would be undefined
  return static_cast<int64_t>(std::llround(value));
}

double comm_size_of(const Collective& collective) {
  if (collective.kind == CollectiveKind::kReduceScatter) {
    return collective.bytes.si() * static_cast<double>(collective.group_size);
  }
  return collective.bytes.si();
}

Bytes bytes_from_comm_size(CollectiveKind kind, double comm_size, int64_t group_size) {
  if (kind == CollectiveKind::kReduceScatter && group_size > 0) {
    return Bytes(comm_size / static_cast<double>(group_size));
  }
  return Bytes(comm_size);
}

std::vector<int64_t> micros_with_carry(const std::vector<double>& seconds) {
  std::vector<int64_t> out;
  out.reserve(seconds.size());
  double exact = 0.0;   // running sum, microseconds
  int64_t written = 0;  // running sum of what was written
  for (const double s : seconds) {
    exact += s * 1e6;
    const auto target = static_cast<int64_t>(std::llround(exact));
    out.push_back(target - written);
    written = target;
  }
  return out;
}

}  // namespace scoville::workloads::chakra
