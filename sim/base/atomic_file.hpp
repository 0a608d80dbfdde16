// Atomic replacement of result files: readers (and a crashed run) see either the old file or the
// complete new one, never a torn one. Both the text and the HDF5 writers go through here.
#pragma once

#include <string>

namespace scoville {

// "<path>.tmp.<pid>": in the same directory as path, so that rename() cannot cross filesystems,
// and unique per process, so that concurrent runs writing the same path do not collide.
std::string temporary_path_for(const std::string& path);

// Writes content to temporary_path_for(path), fsyncs it and renames it over path.
// Throws scoville::OutputError naming path and the OS reason; leaves no temporary behind.
void write_text_atomically(const std::string& path, const std::string& content);

// Fsyncs an already written and closed temporary, then renames it over path.
// Throws scoville::OutputError naming path and the OS reason after removing the temporary.
void commit_temporary(const std::string& temporary, const std::string& path);

}  // namespace scoville
