// Helpers shared by the end-to-end tests: paths found through CMake, and running the CLI.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace scoville::test {

inline std::string source_dir() { return SCOVILLE_SOURCE_DIR; }
inline std::string scoville_binary() { return std::string(SCOVILLE_BINARY_DIR) + "/sim/scoville"; }

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs the scoville executable as a user would, from a shell.
inline CommandResult run_scoville(const std::string& args, const std::string& env = "") {
  const std::string command =
      env + " SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + scoville_binary() + " " + args + " 2>&1";
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// A fresh temporary directory, removed when the object goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    path_ = std::filesystem::temp_directory_path() /
            ("scoville-" + tag + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace scoville::test
