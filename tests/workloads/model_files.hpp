// Paths of the shipped model files, found through CMake (never the working directory).
#pragma once

#include <string>

namespace scoville::workloads::testing {

inline std::string model_file(const std::string& name) {
  return std::string(SCOVILLE_SOURCE_DIR) + "/workloads/models/" + name + ".yaml";
}

}  // namespace scoville::workloads::testing
