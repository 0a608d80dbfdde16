#include "workloads/request_sampling.hpp"

namespace scoville::workloads {

const std::vector<std::string>& request_sampling_names() {
  static const std::vector<std::string> names{"greedy", "top-p"};
  return names;
}

std::string to_string(RequestSampling sampling) {
  return request_sampling_names()[sampling == RequestSampling::kTopP ? 1 : 0];
}

std::optional<RequestSampling> parse_request_sampling(const std::string& text) {
  if (text == request_sampling_names()[0]) return RequestSampling::kGreedy;
  if (text == request_sampling_names()[1]) return RequestSampling::kTopP;
  return std::nullopt;
}

std::string request_sampling_expected() {
  return request_sampling_names()[0] + " or " + request_sampling_names()[1];
}

}  // namespace scoville::workloads
