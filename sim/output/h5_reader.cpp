#include "sim/output/h5_reader.hpp"

#include <H5Cpp.h>

#include <cstdint>
#include <filesystem>
#include <system_error>
#include <vector>

#include "sim/base/error.hpp"

namespace scoville::output {

namespace {

constexpr int64_t kReadableSchemaVersion = 1;

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw InputError(SourceLocation{path, 0, 0}, "", message);
}

AttributeValue read_attribute(const H5::Attribute& attribute) {
  const H5T_class_t type_class = attribute.getTypeClass();
  if (type_class == H5T_FLOAT) {
    double v = 0;
    attribute.read(H5::PredType::NATIVE_DOUBLE, &v);
    return v;
  }
  if (type_class == H5T_INTEGER) {
    int64_t v = 0;
    attribute.read(H5::PredType::NATIVE_INT64, &v);
    return v;
  }
  if (type_class == H5T_STRING && attribute.getSpace().getSimpleExtentNpoints() == 1) {
    std::string text;
    attribute.read(attribute.getStrType(), text);
    return text;
  }
  return std::string("<unsupported attribute type>");
}

std::vector<std::string> read_string_array(const H5::DataSet& dataset, hsize_t rows) {
  std::vector<char*> raw(rows, nullptr);
  const H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  if (rows > 0) dataset.read(raw.data(), type);
  std::vector<std::string> out;
  out.reserve(rows);
  for (char* s : raw) out.emplace_back(s ? s : "");
  if (rows > 0) {
    H5::DataSpace space = dataset.getSpace();
    H5Dvlen_reclaim(type.getId(), space.getId(), H5P_DEFAULT, raw.data());
  }
  return out;
}

std::vector<std::string> read_columns_attribute(const H5::Group& group) {
  const H5::Attribute attribute = group.openAttribute("columns");
  const hsize_t count = static_cast<hsize_t>(attribute.getSpace().getSimpleExtentNpoints());
  std::vector<char*> raw(count, nullptr);
  const H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  if (count > 0) attribute.read(type, raw.data());
  std::vector<std::string> names;
  for (char* s : raw) names.emplace_back(s ? s : "");
  if (count > 0) {
    H5::DataSpace space = attribute.getSpace();
    H5Dvlen_reclaim(type.getId(), space.getId(), H5P_DEFAULT, raw.data());
  }
  return names;
}

std::string text_attribute(const H5::H5Object& object, const char* name) {
  if (!object.attrExists(name)) return "";
  const AttributeValue v = read_attribute(object.openAttribute(name));
  const std::string* text = std::get_if<std::string>(&v);
  return text ? *text : "";
}

Table read_table(const std::string& file, const H5::Group& group, const std::string& path) {
  Table table;
  table.path = path;
  for (const std::string& name : read_columns_attribute(group)) {
    if (!group.nameExists(name))
      fail(file, "table " + path + " lists a missing column '" + name + "'");
    const H5::DataSet dataset = group.openDataSet(name);
    const H5::DataSpace space = dataset.getSpace();
    if (space.getSimpleExtentNdims() != 1) {
      fail(file, "column " + path + "/" + name + " is not one-dimensional");
    }
    hsize_t rows = 0;
    space.getSimpleExtentDims(&rows);
    Column column;
    column.name = name;
    column.units = text_attribute(dataset, "units");
    switch (dataset.getTypeClass()) {
      case H5T_FLOAT: {
        std::vector<double> values(rows);
        if (rows > 0) dataset.read(values.data(), H5::PredType::NATIVE_DOUBLE);
        column.values = std::move(values);
        break;
      }
      case H5T_INTEGER: {
        std::vector<int64_t> values(rows);
        if (rows > 0) dataset.read(values.data(), H5::PredType::NATIVE_INT64);
        column.values = std::move(values);
        break;
      }
      case H5T_STRING:
        column.values = read_string_array(dataset, rows);
        break;
      default:
        fail(file, "column " + path + "/" + name + " has a type this reader does not know");
    }
    table.columns.push_back(std::move(column));
  }
  return table;
}

void visit(const std::string& file, const H5::Group& group, const std::string& path,
           H5Document& doc) {
  for (hsize_t i = 0; i < group.getNumObjs(); ++i) {
    const std::string name = group.getObjnameByIdx(i);
    const std::string child = (path == "/" ? "/" : path + "/") + name;
    const H5G_obj_t type = group.getObjTypeByIdx(i);
    if (type == H5G_GROUP) {
      const H5::Group sub = group.openGroup(name);
      if (text_attribute(sub, "kind") == "table") {
        doc.tables.push_back(read_table(file, sub, child));
      } else {
        visit(file, sub, child, doc);
      }
    } else if (type == H5G_DATASET) {
      const H5::DataSet dataset = group.openDataSet(name);
      if (dataset.getTypeClass() == H5T_STRING &&
          dataset.getSpace().getSimpleExtentType() == H5S_SCALAR) {
        std::string text;
        dataset.read(text, dataset.getStrType());
        doc.strings.push_back({child, text});
      }
    }
  }
}

}  // namespace

H5Document read_results_file(const std::string& path) {
  H5::Exception::dontPrint();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    fail(path, "no such file (expected a results file written by `scoville run -o`)");
  }
  H5Document doc;
  try {
    if (!H5::H5File::isHdf5(path.c_str())) {
      fail(path, "not an HDF5 file (expected a results file written by `scoville run -o`)");
    }
    const H5::H5File file(path, H5F_ACC_RDONLY);
    const H5::Group root = file.openGroup("/");
    for (int i = 0; i < root.getNumAttrs(); ++i) {
      const H5::Attribute attribute = root.openAttribute(static_cast<unsigned>(i));
      doc.root_attributes.emplace_back(attribute.getName(), read_attribute(attribute));
    }
    const std::string schema = attribute_text(doc, "schema");
    const std::string version = attribute_text(doc, "schema_version");
    if (schema != "scoville.results" || version != std::to_string(kReadableSchemaVersion)) {
      fail(path, "schema '" + schema + "' version '" + version +
                     "' is not one this build reads (scoville.results version " +
                     std::to_string(kReadableSchemaVersion) + ")");
    }
    visit(path, root, "/", doc);
  } catch (const H5::Exception& e) {
    fail(path, "cannot read HDF5 content: " + e.getDetailMsg());
  }
  return doc;
}

std::string attribute_text(const H5Document& doc, const std::string& name) {
  for (const auto& [key, value] : doc.root_attributes) {
    if (key != name) continue;
    if (const auto* text = std::get_if<std::string>(&value)) return *text;
    if (const auto* integer = std::get_if<int64_t>(&value)) return std::to_string(*integer);
    if (const auto* real = std::get_if<double>(&value)) return std::to_string(*real);
  }
  return "";
}

}  // namespace scoville::output
