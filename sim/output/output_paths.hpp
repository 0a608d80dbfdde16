// Protects a command's inputs and results from its own outputs: an output path that is one of
// the command's inputs, or another of its outputs, would silently replace the input or the
// other result. Every command that writes files declares its paths here and calls check()
// before it reads or simulates anything.
#pragma once

#include <string>
#include <vector>

namespace scoville::output {

class RunFiles {
 public:
  // A file the command reads, named by its flag ("--study", "the sweep file"); empty paths are
  // ignored so that optional flags can be passed as they are.
  void input(const std::string& flag, const std::string& path);
  // A registry name or a file (--chip h200 or --chip my.yaml), resolved as the loaders resolve it
  // (config::DataPaths from the environment, under `folder`, e.g. "arch/chips").
  void named_input(const std::string& flag, const std::string& name_or_path,
                   const std::string& folder);
  // A file the command writes.
  void output(const std::string& flag, const std::string& path);

  // Throws InputError (<command line>, the output's flag) when an output is the same file as an
  // input or as another output: same resolved path, or, where both exist, same device and inode
  // (a hard link or a symbolic link to it).
  void check() const;

 private:
  struct Use {
    std::string flag;
    std::string path;
  };
  std::vector<Use> inputs_;
  std::vector<Use> outputs_;
};

// True when a and b name the same file (see RunFiles::check).
bool same_file(const std::string& a, const std::string& b);

}  // namespace scoville::output
