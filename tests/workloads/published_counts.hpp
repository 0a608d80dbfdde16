// Published parameter counts the model files must reproduce (REFERENCE.md, "Model architecture
// facts"). Tests derive every expected value from these and from the model's own fields.
#pragma once

namespace scoville::workloads::testing {

constexpr double kLlama31_8bParameters = 8.03e9;  // HF model card, 8.03B
constexpr double kGptOss20bTotal = 20.9e9;        // model card, 20.9B (21B)
constexpr double kGptOss20bActive = 3.6e9;        // model card, 3.6B active per token
constexpr double kOnePercent = 0.01;

}  // namespace scoville::workloads::testing
