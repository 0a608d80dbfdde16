#include <H5Cpp.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"
#include "sim/output/h5_writer.hpp"

using namespace scoville;
using namespace scoville::output;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test case, removed at the end even when a check fails.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() / ("scoville-output-test-" + std::to_string(::getpid()) +
                                         "-" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }

  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(path_)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

 private:
  fs::path path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

H5::StrType vlen_utf8() {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  return type;
}

hsize_t length_of(const H5::DataSet& dataset) {
  const H5::DataSpace space = dataset.getSpace();
  REQUIRE(space.getSimpleExtentNdims() == 1);
  hsize_t rows = 0;
  space.getSimpleExtentDims(&rows);
  return rows;
}

std::vector<double> read_doubles(const H5::H5File& file, const std::string& path) {
  const H5::DataSet dataset = file.openDataSet(path);
  CHECK(dataset.getTypeClass() == H5T_FLOAT);
  std::vector<double> values(length_of(dataset));
  if (!values.empty()) dataset.read(values.data(), H5::PredType::NATIVE_DOUBLE);
  return values;
}

std::vector<int64_t> read_int64s(const H5::H5File& file, const std::string& path) {
  const H5::DataSet dataset = file.openDataSet(path);
  CHECK(dataset.getTypeClass() == H5T_INTEGER);
  CHECK(dataset.getIntType().getSize() == 8);
  std::vector<int64_t> values(length_of(dataset));
  if (!values.empty()) dataset.read(values.data(), H5::PredType::NATIVE_INT64);
  return values;
}

std::vector<std::string> take_strings(std::vector<char*>& buffer, const H5::DataType& type,
                                      const H5::DataSpace& space) {
  std::vector<std::string> strings(buffer.begin(), buffer.end());
  if (!buffer.empty()) H5::DataSet::vlenReclaim(buffer.data(), type, space);
  return strings;
}

void check_vlen_utf8(const H5::StrType& type) {
  CHECK(type.isVariableStr());
  CHECK(type.getCset() == H5T_CSET_UTF8);
}

std::vector<std::string> read_strings(const H5::H5File& file, const std::string& path) {
  const H5::DataSet dataset = file.openDataSet(path);
  check_vlen_utf8(dataset.getStrType());
  std::vector<char*> buffer(length_of(dataset));
  const H5::StrType type = vlen_utf8();
  if (!buffer.empty()) dataset.read(buffer.data(), type);
  return take_strings(buffer, type, dataset.getSpace());
}

std::string read_string_attribute(const H5::H5Object& object, const std::string& name) {
  const H5::Attribute attribute = object.openAttribute(name);
  check_vlen_utf8(attribute.getStrType());
  std::string value;
  attribute.read(vlen_utf8(), value);
  return value;
}

double read_double_attribute(const H5::H5Object& object, const std::string& name) {
  const H5::Attribute attribute = object.openAttribute(name);
  CHECK(attribute.getTypeClass() == H5T_FLOAT);
  double value = 0;
  attribute.read(H5::PredType::NATIVE_DOUBLE, &value);
  return value;
}

int64_t read_int64_attribute(const H5::H5Object& object, const std::string& name) {
  const H5::Attribute attribute = object.openAttribute(name);
  CHECK(attribute.getTypeClass() == H5T_INTEGER);
  CHECK(attribute.getIntType().getSize() == 8);
  int64_t value = 0;
  attribute.read(H5::PredType::NATIVE_INT64, &value);
  return value;
}

std::vector<std::string> read_string_array_attribute(const H5::H5Object& object,
                                                     const std::string& name) {
  const H5::Attribute attribute = object.openAttribute(name);
  check_vlen_utf8(attribute.getStrType());
  const H5::DataSpace space = attribute.getSpace();
  REQUIRE(space.getSimpleExtentNdims() == 1);
  hsize_t count = 0;
  space.getSimpleExtentDims(&count);
  std::vector<char*> buffer(count);
  const H5::StrType type = vlen_utf8();
  if (count > 0) attribute.read(type, buffer.data());
  return take_strings(buffer, type, space);
}

Table ops_table() {
  return Table{"/ops",
               {Column{"dur_s", "s", std::vector<double>{1.5e-6, 2.0, 0.0}},
                Column{"flops", "FLOP", std::vector<int64_t>{1, -2, int64_t{1} << 62}},
                Column{"op", "1", std::vector<std::string>{"matmul", "", "attention → µs"}}},
               {{"description", std::string("per-op timing")}, {"layers", int64_t{80}}}};
}

H5Document sample_document() {
  H5Document doc;
  doc.root_attributes = {{"schema", std::string("scoville.results")},
                         {"schema_version", int64_t{1}},
                         {"seed", int64_t{-42}},
                         {"scale", 0.125}};
  doc.groups = {Group{"/summary", {{"total_time_s", 3.25}, {"tokens_out", int64_t{1024}}}}};
  doc.tables = {ops_table()};
  std::vector<double> big(70000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>(i) * 0.5;
  doc.tables.push_back(Table{"/timeseries/power_W", {Column{"value", "W", big}}, {}});
  doc.strings = {StringDataset{"/config/resolved_yaml", "chip: h200\n"},
                 StringDataset{"/config/inputs/h200.yaml", "name: H200 — 141 GB\n"}};
  return doc;
}

bool has_temporary(const TempDir& dir) {
  for (const std::string& name : dir.entries()) {
    if (name.find(".tmp.") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("temporary path sits next to the target and names the process", "[output]") {
  CHECK(temporary_path_for("/a/b/run.h5") == "/a/b/run.h5.tmp." + std::to_string(::getpid()));
}

TEST_CASE("a table round-trips every column type with units and table attributes", "[output][h5]") {
  TempDir dir;
  H5Document doc;
  doc.tables = {ops_table()};
  write_h5_atomically(doc, dir.file("run.h5"));

  H5::H5File file(dir.file("run.h5"), H5F_ACC_RDONLY);
  CHECK(read_doubles(file, "/ops/dur_s") == std::vector<double>{1.5e-6, 2.0, 0.0});
  CHECK(read_int64s(file, "/ops/flops") == std::vector<int64_t>{1, -2, int64_t{1} << 62});
  CHECK(read_strings(file, "/ops/op") == std::vector<std::string>{"matmul", "", "attention → µs"});

  CHECK(read_string_attribute(file.openDataSet("/ops/dur_s"), "units") == "s");
  CHECK(read_string_attribute(file.openDataSet("/ops/flops"), "units") == "FLOP");
  CHECK(read_string_attribute(file.openDataSet("/ops/op"), "units") == "1");

  const H5::Group ops = file.openGroup("/ops");
  CHECK(read_string_attribute(ops, "kind") == "table");
  CHECK(read_string_array_attribute(ops, "columns") ==
        std::vector<std::string>{"dur_s", "flops", "op"});
  CHECK(read_int64_attribute(ops, "nrows") == 3);
  CHECK(read_string_attribute(ops, "description") == "per-op timing");
  CHECK(read_int64_attribute(ops, "layers") == 80);
}

TEST_CASE("root and group attributes keep their types", "[output][h5]") {
  TempDir dir;
  const H5Document doc = sample_document();
  write_h5_atomically(doc, dir.file("run.h5"));

  H5::H5File file(dir.file("run.h5"), H5F_ACC_RDONLY);
  const H5::Group root = file.openGroup("/");
  CHECK(read_string_attribute(root, "schema") == "scoville.results");
  CHECK(read_int64_attribute(root, "schema_version") == 1);
  CHECK(read_int64_attribute(root, "seed") == -42);
  CHECK(read_double_attribute(root, "scale") == 0.125);
  const H5::Group summary = file.openGroup("/summary");
  CHECK(read_double_attribute(summary, "total_time_s") == 3.25);
  CHECK(read_int64_attribute(summary, "tokens_out") == 1024);
}

TEST_CASE("string datasets are scalar vlen UTF-8 under created intermediate groups",
          "[output][h5]") {
  TempDir dir;
  H5Document doc;
  doc.groups = {Group{"/a/b/c", {{"depth", int64_t{3}}}}};
  doc.strings = {StringDataset{"/config/resolved_yaml", "chip: h200\n"},
                 StringDataset{"/config/inputs/h200.yaml", "name: H200 — 141 GB\n"}};
  write_h5_atomically(doc, dir.file("run.h5"));

  H5::H5File file(dir.file("run.h5"), H5F_ACC_RDONLY);
  CHECK(read_int64_attribute(file.openGroup("/a/b/c"), "depth") == 3);
  CHECK(file.childObjType("/a/b") == H5O_TYPE_GROUP);
  CHECK(file.childObjType("/config/inputs") == H5O_TYPE_GROUP);
  for (const auto& string : doc.strings) {
    const H5::DataSet dataset = file.openDataSet(string.path);
    CHECK(dataset.getSpace().getSimpleExtentType() == H5S_SCALAR);
    check_vlen_utf8(dataset.getStrType());
    std::string text;
    dataset.read(text, vlen_utf8());
    CHECK(text == string.text);
  }
}

TEST_CASE("empty tables are written with zero-length columns", "[output][h5]") {
  TempDir dir;
  H5Document doc;
  doc.tables = {Table{"/requests",
                      {Column{"arrival_s", "s", std::vector<double>{}},
                       Column{"req_id", "1", std::vector<int64_t>{}},
                       Column{"name", "1", std::vector<std::string>{}}},
                      {}},
                Table{"/nothing", {}, {}}};
  write_h5_atomically(doc, dir.file("run.h5"));

  H5::H5File file(dir.file("run.h5"), H5F_ACC_RDONLY);
  CHECK(read_doubles(file, "/requests/arrival_s").empty());
  CHECK(read_int64s(file, "/requests/req_id").empty());
  CHECK(read_strings(file, "/requests/name").empty());
  CHECK(read_int64_attribute(file.openGroup("/requests"), "nrows") == 0);
  CHECK(read_string_array_attribute(file.openGroup("/nothing"), "columns").empty());
  CHECK(read_int64_attribute(file.openGroup("/nothing"), "nrows") == 0);
}

TEST_CASE("long columns are chunked and compressed, short ones contiguous", "[output][h5]") {
  TempDir dir;
  std::vector<std::string> names(65537, "op");
  names.back() = "last";
  H5Document doc = sample_document();
  doc.tables.push_back(Table{"/long_strings", {Column{"name", "1", names}}, {}});
  write_h5_atomically(doc, dir.file("run.h5"));

  H5::H5File file(dir.file("run.h5"), H5F_ACC_RDONLY);
  for (const char* path : {"/timeseries/power_W/value", "/long_strings/name"}) {
    const H5::DSetCreatPropList dcpl = file.openDataSet(path).getCreatePlist();
    REQUIRE(dcpl.getLayout() == H5D_CHUNKED);
    hsize_t chunk = 0;
    dcpl.getChunk(1, &chunk);
    CHECK(chunk == 65536);
    CHECK(dcpl.getNfilters() == 2);
    CHECK(dcpl.allFiltersAvail());
  }
  CHECK(file.openDataSet("/ops/dur_s").getCreatePlist().getLayout() == H5D_CONTIGUOUS);
  const std::vector<double> power = read_doubles(file, "/timeseries/power_W/value");
  REQUIRE(power.size() == 70000);
  CHECK(power[69999] == 69999 * 0.5);
  CHECK(read_strings(file, "/long_strings/name") == names);
}

TEST_CASE("columns of unequal length are a logic error and create no file", "[output][h5]") {
  TempDir dir;
  H5Document doc;
  doc.tables = {Table{"/ops",
                      {Column{"a", "s", std::vector<double>{1.0, 2.0}},
                       Column{"b", "1", std::vector<std::string>{"x"}}},
                      {}}};
  CHECK_THROWS_AS(write_h5_atomically(doc, dir.file("run.h5")), std::logic_error);
  CHECK(dir.entries().empty());
}

TEST_CASE("malformed documents are logic errors", "[output][h5]") {
  TempDir dir;
  H5Document duplicate;
  duplicate.tables = {
      Table{"/t",
            {Column{"a", "s", std::vector<double>{}}, Column{"a", "s", std::vector<double>{}}},
            {}}};
  H5Document reserved;
  reserved.tables = {Table{"/t", {}, {{"nrows", int64_t{3}}}}};
  H5Document relative;
  relative.strings = {StringDataset{"config/x", "y"}};
  for (const H5Document* doc : {&duplicate, &reserved, &relative}) {
    CHECK_THROWS_AS(write_h5_atomically(*doc, dir.file("run.h5")), std::logic_error);
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("an unwritable directory is an OutputError that names the path", "[output][h5]") {
  const std::string path = "/nonexistent-scoville-dir/x.h5";
  CHECK_THROWS_WITH(write_h5_atomically(sample_document(), path),
                    Catch::Contains(path) && Catch::Contains("No such file or directory"));
  CHECK_THROWS_AS(write_h5_atomically(sample_document(), path), OutputError);
  CHECK_FALSE(fs::exists(temporary_path_for(path)));
}

TEST_CASE("a failed rename removes the HDF5 temporary", "[output][h5]") {
  TempDir dir;
  // A non-empty directory at the target: the temporary is written, then rename() fails.
  fs::create_directories(dir.file("run.h5/inside"));
  CHECK_THROWS_AS(write_h5_atomically(sample_document(), dir.file("run.h5")), OutputError);
  CHECK_FALSE(has_temporary(dir));
}

TEST_CASE("HDF5 errors after the temporary exists remove it", "[output][h5]") {
  TempDir dir;
  H5Document doc;
  // A string dataset below a dataset: HDF5 fails mid-write, after the temporary was created.
  doc.tables = {ops_table()};
  doc.strings = {StringDataset{"/ops/dur_s/x", "y"}};
  CHECK_THROWS_WITH(write_h5_atomically(doc, dir.file("run.h5")),
                    Catch::Contains(dir.file("run.h5")));
  CHECK(dir.entries().empty());
}

TEST_CASE("two writes of one document are byte-identical", "[output][h5]") {
  TempDir dir;
  const H5Document doc = sample_document();
  write_h5_atomically(doc, dir.file("first.h5"));
  write_h5_atomically(doc, dir.file("second.h5"));
  const std::string first = read_bytes(dir.file("first.h5"));
  CHECK_FALSE(first.empty());
  CHECK(first == read_bytes(dir.file("second.h5")));
}

TEST_CASE("an HDF5 write replaces an existing file", "[output][h5]") {
  TempDir dir;
  write_text_atomically(dir.file("run.h5"), "not hdf5");
  write_h5_atomically(sample_document(), dir.file("run.h5"));
  H5::H5File file(dir.file("run.h5"), H5F_ACC_RDONLY);
  CHECK(read_int64_attribute(file.openGroup("/"), "schema_version") == 1);
  CHECK(dir.entries() == std::vector<std::string>{"run.h5"});
}

TEST_CASE("write_text_atomically replaces a file and leaves no temporary", "[output]") {
  TempDir dir;
  const std::string path = dir.file("report.json");
  write_text_atomically(path, "old contents that are longer\n");
  write_text_atomically(path, "{\"new\": 1}\n");
  CHECK(read_bytes(path) == "{\"new\": 1}\n");
  write_text_atomically(path, "");
  CHECK(read_bytes(path).empty());
  CHECK(dir.entries() == std::vector<std::string>{"report.json"});
}

TEST_CASE("write_text_atomically failures are OutputErrors naming the path", "[output]") {
  const std::string missing = "/nonexistent-scoville-dir/report.json";
  CHECK_THROWS_WITH(write_text_atomically(missing, "x"),
                    Catch::Contains(missing) && Catch::Contains("No such file or directory"));
  CHECK_THROWS_AS(write_text_atomically(missing, "x"), OutputError);

  TempDir dir;
  fs::create_directories(dir.file("report.json/inside"));
  CHECK_THROWS_AS(write_text_atomically(dir.file("report.json"), "x"), OutputError);
  CHECK_FALSE(has_temporary(dir));
}
