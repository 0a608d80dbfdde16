#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scoville::workloads {

// What a request asks its tokens to be drawn by. InferenceX's client sends temperature 0
// (greedy); ML.ENERGY's sends top-p 0.95. Whether top-p costs a vocabulary sort is the serving
// stack's business (config::SoftwareProfile::top_p_sorts_vocabulary, workloads::Sampler).
enum class RequestSampling { kGreedy, kTopP };

// The names every input (`--sampling`, a scenario's `requests.sampling`, the energy rows'
// `sampling` column) and output (the HDF5 `sampling` attribute) uses: "greedy", "top-p".
const std::vector<std::string>& request_sampling_names();
std::string to_string(RequestSampling sampling);
// nullopt for any text that is not one of the names.
std::optional<RequestSampling> parse_request_sampling(const std::string& text);
// "greedy or top-p", for a message saying what was expected.
std::string request_sampling_expected();

}  // namespace scoville::workloads
