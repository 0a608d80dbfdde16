// Published parameter counts the model files must reproduce (REFERENCE.md, "Model architecture
// facts", unless noted). Tests derive every expected value from these and from the model's own
// fields. "Active" follows the publishers: every parameter a token is multiplied by (the LM head
// included, the input embedding lookup not), routed experts counted top_k of experts.
#pragma once

namespace scoville::workloads::testing {

constexpr double kLlama31_8bParameters = 8.03e9;   // HF model card, 8.03B
constexpr double kLlama31_70bParameters = 70.6e9;  // HF meta-llama/Llama-3.1-70B, 70.6B
constexpr double kLlama33_70bParameters = 70.6e9;  // HF meta-llama/Llama-3.3-70B-Instruct, 70.6B
constexpr double kLlama31_405bParameters = 406e9;  // HF meta-llama/Llama-3.1-405B, 406B
constexpr double kLlama2_70bParameters = 69e9;     // HF meta-llama/Llama-2-70b-hf, 69B
constexpr double kGptOss20bTotal = 20.9e9;         // model card, 20.9B (21B)
constexpr double kGptOss20bActive = 3.6e9;         // model card, 3.6B active per token
constexpr double kGptOss120bTotal = 116.8e9;       // model card, 116.8B (117B)
constexpr double kGptOss120bActive = 5.1e9;        // model card, 5.1B active per token
constexpr double kDeepSeekR1Total = 671e9;         // main model, without the MTP module
constexpr double kDeepSeekR1Active = 36.6e9;       // including the 0.9B output head
constexpr double kDeepSeekR1MtpUnique = 11.5e9;  // MTP module's unique parameters (README_WEIGHTS)
// Kimi's model card rounds to "1T" / "32B". 1026.5B is the HF safetensors count of
// moonshotai/Kimi-K2-Instruct (the same text model as K2.5; listed by drose.io); "1.04T" in
// secondary reports matches neither the config nor that count. K2.5's 0.4B vision encoder is not
// modelled (text serving).
constexpr double kKimiK25Total = 1026.5e9;
constexpr double kKimiK25Active = 32e9;  // model card "32B activated"
// Qwen3 235B-A22B: "235B in total and 22B activated", "234B non-embedding" (HF
// Qwen/Qwen3-235B-A22B model card). Both rounded to the billion; the card does not say what
// "activated" counts. Read as every parameter a token touches including the input embedding
// row (the file gives 22.19B that way; 21.57B by the library's convention, head in and lookup
// out, -2.0% from "22B").
constexpr double kQwen3_235bTotal = 235e9;
constexpr double kQwen3_235bNonEmbedding = 234e9;
constexpr double kQwen3_235bActive = 22e9;
// GLM-4.6: "355B total parameters, 32B active" (zai-org model card, as GLM-4.5). Rounded; read as
// the transformer layers alone, without embedding and output head (the file gives 32.07B that
// way; 32.85B by the library's convention, +2.7% from "32B"). Total without the MTP layer.
constexpr double kGlm46Total = 355e9;
constexpr double kGlm46Active = 32e9;
constexpr double kOnePercent = 0.01;

}  // namespace scoville::workloads::testing
