#include "worker/framing.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace icount::worker {

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Reads exactly `size` bytes; returns the number read before EOF.
size_t ReadAll(int fd, char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

absl::Status WriteFrame(int fd, const std::string& bytes) {
  std::string frame(4, '\0');
  const uint32_t size = static_cast<uint32_t>(bytes.size());
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((size >> (8 * i)) & 0xff);
  frame += bytes;
  if (!WriteAll(fd, frame.data(), frame.size())) {
    return absl::UnavailableError(
        absl::StrCat("cannot write to fd ", fd, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> ReadFrame(int fd) {
  unsigned char header[4];
  const size_t got = ReadAll(fd, reinterpret_cast<char*>(header), 4);
  if (got == 0) return std::optional<std::string>();
  if (got != 4) return absl::DataLossError("truncated frame header");
  const uint32_t size =
      header[0] | (header[1] << 8) | (header[2] << 16) | (static_cast<uint32_t>(header[3]) << 24);
  std::string bytes(size, '\0');
  if (ReadAll(fd, bytes.data(), size) != size) {
    return absl::DataLossError(absl::StrCat("truncated frame: expected ", size, " bytes"));
  }
  return std::optional<std::string>(std::move(bytes));
}

}  // namespace icount::worker
