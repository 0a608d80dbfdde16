#include "sim/base/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "sim/base/error.hpp"

namespace scoville {

namespace {

// What the user can do about the usual reasons a write fails.
std::string advice_for(int error) {
  switch (error) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return "; free space (or raise the file size limit) or write to another place with -o";
    case EACCES:
    case EPERM:
    case EROFS:
      return "; choose a writable place with -o";
    case ENOENT:
    case ENOTDIR:
      return "; create the folder first or choose another place with -o";
    default:
      return "";
  }
}

[[noreturn]] void fail(const std::string& path, const std::string& temporary, int error) {
  std::remove(temporary.c_str());
  throw OutputError("cannot write '" + path + "': " + std::strerror(error) + advice_for(error));
}

bool write_all(int fd, const std::string& content) {
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

void write_and_sync(const std::string& temporary, const std::string& content,
                    const std::string& path) {
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail(path, temporary, errno);
  if (!write_all(fd, content) || ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    fail(path, temporary, error);
  }
  // close() can report a deferred write error (e.g. on NFS), so it is checked too.
  if (::close(fd) != 0) fail(path, temporary, errno);
}

void sync_existing(const std::string& temporary, const std::string& path) {
  const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, temporary, errno);
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    fail(path, temporary, error);
  }
  ::close(fd);
}

// Makes the rename itself durable. Best effort: some filesystems refuse fsync on directories,
// and the new file is complete and in place either way.
void sync_parent_directory(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void rename_over(const std::string& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) != 0) fail(path, temporary, errno);
  sync_parent_directory(path);
}

}  // namespace

std::string temporary_path_for(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid());
}

void write_text_atomically(const std::string& path, const std::string& content) {
  const std::string temporary = temporary_path_for(path);
  write_and_sync(temporary, content, path);
  rename_over(temporary, path);
}

void commit_temporary(const std::string& temporary, const std::string& path) {
  sync_existing(temporary, path);
  rename_over(temporary, path);
}

}  // namespace scoville
