#include "sim/output/h5_writer.hpp"

#include <H5Cpp.h>

#include <cstdio>
#include <set>
#include <stdexcept>
#include <utility>

#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"

namespace scoville::output {

namespace {

// ~64k rows per chunk (FORMATS.md §3): large enough to compress well, small enough that reading a
// slice does not inflate a whole column.
constexpr hsize_t kChunkRows = 65536;
constexpr int kDeflateLevel = 4;

// ---- Document validation: programming errors, reported before any file exists. ----

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin < path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string::npos) end = path.size();
    if (end > begin) parts.push_back(path.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

[[noreturn]] void malformed(const std::string& message) {
  throw std::logic_error("H5Document: " + message);
}

void require_absolute(const std::string& path, bool may_be_root) {
  if (path.empty() || path[0] != '/') malformed("path '" + path + "' is not absolute");
  if (!may_be_root && split_path(path).empty()) malformed("a dataset cannot be at '/'");
}

size_t row_count(const Column& column) {
  return std::visit([](const auto& values) { return values.size(); }, column.values);
}

void validate_columns(const Table& table) {
  std::set<std::string> names;
  for (const Column& column : table.columns) {
    const std::string where = "column '" + column.name + "' of table " + table.path;
    if (column.name.empty() || column.name.find('/') != std::string::npos) {
      malformed("bad name for " + where);
    }
    if (!names.insert(column.name).second) malformed("duplicate " + where);
    const Column& first = table.columns.front();
    if (row_count(column) != row_count(first)) {
      malformed(where + " has " + std::to_string(row_count(column)) + " rows, column '" +
                first.name + "' has " + std::to_string(row_count(first)));
    }
  }
}

void validate_table(const Table& table) {
  require_absolute(table.path, true);
  validate_columns(table);
  for (const auto& attribute : table.attributes) {
    const std::string& name = attribute.first;
    if (name == "kind" || name == "columns" || name == "nrows") {
      malformed("attribute '" + name + "' of table " + table.path + " is reserved");
    }
  }
}

void validate(const H5Document& doc) {
  for (const Group& group : doc.groups) require_absolute(group.path, true);
  for (const Table& table : doc.tables) validate_table(table);
  for (const StringDataset& string : doc.strings) require_absolute(string.path, false);
}

// ---- HDF5 writing. ----

H5::StrType utf8_string_type() {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  return type;
}

// Creation times in object headers would make two writes of one document differ.
void disable_time_tracking(const H5::PropList& plist) {
  if (H5Pset_obj_track_times(plist.getId(), false) < 0) {
    throw H5::PropListIException("H5Pset_obj_track_times", "cannot disable time tracking");
  }
}

void create_group(const H5::H5File& file, const std::string& path) {
  // A class id makes PropList create a fresh list that it owns.
  H5::PropList gcpl(H5P_GROUP_CREATE);
  disable_time_tracking(gcpl);
  const hid_t id = H5Gcreate2(file.getId(), path.c_str(), H5P_DEFAULT, gcpl.getId(), H5P_DEFAULT);
  if (id < 0) throw H5::GroupIException("H5Gcreate2", "cannot create group " + path);
  H5Gclose(id);
}

// Opens the group at the given components, creating it and its missing ancestors.
H5::Group ensure_group(const H5::H5File& file, const std::vector<std::string>& parts) {
  std::string path;
  for (const std::string& part : parts) {
    path += "/" + part;
    if (!file.nameExists(path)) create_group(file, path);
  }
  return file.openGroup(path.empty() ? "/" : path);
}

H5::Group ensure_group(const H5::H5File& file, const std::string& path) {
  return ensure_group(file, split_path(path));
}

H5::Group ensure_parent(const H5::H5File& file, const std::string& path) {
  std::vector<std::string> parts = split_path(path);
  parts.pop_back();
  return ensure_group(file, parts);
}

void write_attribute(const H5::H5Object& object, const std::string& name,
                     const AttributeValue& value) {
  const H5::DataSpace scalar(H5S_SCALAR);
  if (const auto* d = std::get_if<double>(&value)) {
    object.createAttribute(name, H5::PredType::IEEE_F64LE, scalar)
        .write(H5::PredType::NATIVE_DOUBLE, d);
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    object.createAttribute(name, H5::PredType::STD_I64LE, scalar)
        .write(H5::PredType::NATIVE_INT64, i);
  } else {
    const H5::StrType type = utf8_string_type();
    const char* text = std::get<std::string>(value).c_str();
    object.createAttribute(name, type, scalar).write(type, &text);
  }
}

void write_attributes(const H5::H5Object& object, const Attributes& attributes) {
  for (const auto& [name, value] : attributes) write_attribute(object, name, value);
}

// vlen strings are written from an array of C string pointers into the caller's strings.
std::vector<const char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<const char*> pointers;
  pointers.reserve(strings.size());
  for (const std::string& s : strings) pointers.push_back(s.c_str());
  return pointers;
}

void write_column_names(const H5::Group& group, const std::vector<Column>& columns) {
  std::vector<std::string> names;
  for (const Column& column : columns) names.push_back(column.name);
  const hsize_t count = names.size();
  const H5::StrType type = utf8_string_type();
  H5::Attribute attribute = group.createAttribute("columns", type, H5::DataSpace(1, &count));
  if (count > 0) attribute.write(type, c_strings(names).data());
}

H5::DSetCreatPropList column_creation_plist(hsize_t rows) {
  H5::DSetCreatPropList dcpl;
  disable_time_tracking(dcpl);
  if (rows > kChunkRows) {
    dcpl.setChunk(1, &kChunkRows);
    dcpl.setShuffle();
    dcpl.setDeflate(kDeflateLevel);
  }
  return dcpl;
}

H5::DataSet create_column(const H5::Group& group, const std::string& name,
                          const H5::DataType& file_type, hsize_t rows) {
  return group.createDataSet(name, file_type, H5::DataSpace(1, &rows), column_creation_plist(rows));
}

// Zero-row columns skip the write: there is nothing to transfer and no buffer to point at.
H5::DataSet write_values(const H5::Group& group, const std::string& name,
                         const std::vector<double>& values) {
  H5::DataSet dataset = create_column(group, name, H5::PredType::IEEE_F64LE, values.size());
  if (!values.empty()) dataset.write(values.data(), H5::PredType::NATIVE_DOUBLE);
  return dataset;
}

H5::DataSet write_values(const H5::Group& group, const std::string& name,
                         const std::vector<int64_t>& values) {
  H5::DataSet dataset = create_column(group, name, H5::PredType::STD_I64LE, values.size());
  if (!values.empty()) dataset.write(values.data(), H5::PredType::NATIVE_INT64);
  return dataset;
}

H5::DataSet write_values(const H5::Group& group, const std::string& name,
                         const std::vector<std::string>& values) {
  const H5::StrType type = utf8_string_type();
  H5::DataSet dataset = create_column(group, name, type, values.size());
  if (!values.empty()) dataset.write(c_strings(values).data(), type);
  return dataset;
}

void write_column(const H5::Group& group, const Column& column) {
  const H5::DataSet dataset = std::visit(
      [&](const auto& values) { return write_values(group, column.name, values); }, column.values);
  write_attribute(dataset, "units", column.units);
}

void write_table(const H5::H5File& file, const Table& table) {
  const H5::Group group = ensure_group(file, table.path);
  const int64_t rows =
      table.columns.empty() ? 0 : static_cast<int64_t>(row_count(table.columns[0]));
  write_attribute(group, "kind", std::string("table"));
  write_column_names(group, table.columns);
  write_attribute(group, "nrows", rows);
  write_attributes(group, table.attributes);
  for (const Column& column : table.columns) write_column(group, column);
}

void write_string_dataset(const H5::H5File& file, const StringDataset& string) {
  const H5::Group parent = ensure_parent(file, string.path);
  H5::DSetCreatPropList dcpl;
  disable_time_tracking(dcpl);
  const H5::StrType type = utf8_string_type();
  const char* text = string.text.c_str();
  parent.createDataSet(split_path(string.path).back(), type, H5::DataSpace(H5S_SCALAR), dcpl)
      .write(&text, type);
}

void write_document(const H5::H5File& file, const H5Document& doc) {
  write_attributes(file.openGroup("/"), doc.root_attributes);
  for (const Group& group : doc.groups) {
    write_attributes(ensure_group(file, group.path), group.attributes);
  }
  for (const Table& table : doc.tables) write_table(file, table);
  for (const StringDataset& string : doc.strings) write_string_dataset(file, string);
}

// The C++ exception carries only the failing API call ("H5Fcreate failed"); the innermost entry of
// the C error stack carries the cause (errno text, names). The stack is cleared by the next API
// call, which unwinding makes before any handler runs, so the cause is recorded as it happens.
class ErrorRecorder {
 public:
  ErrorRecorder() {
    H5Eget_auto2(H5E_DEFAULT, &saved_func_, &saved_data_);
    H5Eset_auto2(H5E_DEFAULT, &ErrorRecorder::record, this);
  }
  ~ErrorRecorder() { H5Eset_auto2(H5E_DEFAULT, saved_func_, saved_data_); }
  ErrorRecorder(const ErrorRecorder&) = delete;
  ErrorRecorder& operator=(const ErrorRecorder&) = delete;

  std::string describe(const H5::Exception& e) const {
    if (cause_.empty()) return e.getDetailMsg();
    return e.getDetailMsg() + " (" + cause_ + ")";
  }

 private:
  static herr_t record(hid_t stack, void* self) {
    H5Ewalk2(stack, H5E_WALK_UPWARD, &ErrorRecorder::keep_innermost, self);
    return 0;
  }
  static herr_t keep_innermost(unsigned n, const H5E_error2_t* entry, void* self) {
    if (n == 0 && entry->desc != nullptr) static_cast<ErrorRecorder*>(self)->cause_ = entry->desc;
    return 0;
  }

  H5E_auto2_t saved_func_ = nullptr;
  void* saved_data_ = nullptr;
  std::string cause_;
};

// The whole file is built in memory (HDF5 core driver, no backing store) and then written with the
// same write/fsync/rename as text outputs. HDF5 1.10 writing straight to disk crashes in
// H5File's destructor when a flush fails (disk full, file size limit), after the error was
// already reported; in memory, a full disk is only ever met by our own checked write().
std::string hdf5_file_image(const H5Document& doc, const std::string& path) {
  H5::FileAccPropList fapl;
  // Objects left open must not keep the file open past close(), or errors would go unreported.
  fapl.setFcloseDegree(H5F_CLOSE_STRONG);
  constexpr size_t kGrowBy = size_t{1} << 20;  // bytes the in-memory image grows by
  fapl.setCore(kGrowBy, false);
  H5::H5File file(path, H5F_ACC_TRUNC, H5::FileCreatPropList::DEFAULT, fapl);
  write_document(file, doc);
  file.flush(H5F_SCOPE_GLOBAL);
  const ssize_t size = H5Fget_file_image(file.getId(), nullptr, 0);
  if (size < 0) throw H5::FileIException("H5Fget_file_image", "cannot size the file image");
  std::string image(static_cast<size_t>(size), '\0');
  if (H5Fget_file_image(file.getId(), image.data(), image.size()) != size) {
    throw H5::FileIException("H5Fget_file_image", "cannot copy the file image");
  }
  file.close();
  return image;
}

}  // namespace

void write_h5_atomically(const H5Document& doc, const std::string& path) {
  validate(doc);
  H5::Exception::dontPrint();
  std::string image;
  {
    ErrorRecorder errors;
    try {
      image = hdf5_file_image(doc, path);
    } catch (const H5::Exception& e) {
      throw OutputError("cannot write '" + path + "': " + errors.describe(e));
    }
  }
  write_text_atomically(path, image);
}

}  // namespace scoville::output
