// RunFiles: an output may be neither an input nor another output, however the path is spelt.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/base/error.hpp"
#include "sim/output/output_paths.hpp"

namespace fs = std::filesystem;
using scoville::InputError;
using scoville::output::RunFiles;
using scoville::output::same_file;

namespace {
struct Folder {
  fs::path root = fs::temp_directory_path() / ("scoville-paths-" + std::to_string(getpid()));
  Folder() {
    fs::remove_all(root);
    fs::create_directories(root / "sub");
    std::ofstream(root / "in.yaml") << "x";
  }
  ~Folder() { fs::remove_all(root); }
  std::string operator()(const std::string& name) const { return (root / name).string(); }
};

std::string refusal(const RunFiles& files) {
  try {
    files.check();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("same_file sees through spellings, links and hard links", "[output_paths]") {
  Folder f;
  fs::create_symlink(f("in.yaml"), f("link.yaml"));
  fs::create_hard_link(f("in.yaml"), f("hard.yaml"));
  CHECK(same_file(f("in.yaml"), f("sub/../in.yaml")));
  CHECK(same_file(f("in.yaml"), f("link.yaml")));
  CHECK(same_file(f("in.yaml"), f("hard.yaml")));
  CHECK(same_file(f("new.h5"), f("sub/../new.h5")));  // neither exists yet
  CHECK_FALSE(same_file(f("in.yaml"), f("new.h5")));
  CHECK_FALSE(same_file(f("a.h5"), f("sub/a.h5")));
}

TEST_CASE("RunFiles refuses an output that is an input or another output", "[output_paths]") {
  Folder f;
  RunFiles ok;
  ok.input("--study", f("in.yaml"));
  ok.output("-o", f("run.h5"));
  ok.output("--trace", f("run.json"));
  ok.output("--unused", "");
  CHECK(refusal(ok).empty());

  RunFiles input;
  input.input("--study", f("in.yaml"));
  input.output("-o", f("sub/../in.yaml"));
  CHECK(refusal(input) == "error: <command line>: -o: '" + f("sub/../in.yaml") +
                              "' is also the --study input: writing it would destroy the input; "
                              "choose another output path");

  RunFiles twice;
  twice.output("-o", f("run.h5"));
  twice.output("--trace", f("./run.h5"));
  CHECK_THAT(refusal(twice), Catch::Contains("--trace: '") &&
                                 Catch::Contains("is also the -o output: two results of one run"));
}
