#ifndef ICOUNT_WORKER_FRAMING_H_
#define ICOUNT_WORKER_FRAMING_H_

// The byte streams between the runner, the worker and its zygote: whole
// reads and writes that survive EINTR and short transfers, and frames of a
// 4-byte little-endian length followed by a serialised message.
//
//   ICOUNT_RETURN_IF_ERROR(WriteFrame(fd, order.SerializeAsString()));
//   absl::StatusOr<std::optional<std::string>> frame = ReadFrame(fd);
//   // nullopt: the stream ended cleanly between frames

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace icount::worker {

// Writes all `size` bytes; false on an error or a closed stream.
bool WriteAll(int fd, const char* data, size_t size);
// Reads exactly `size` bytes; returns the number read before the end of
// the stream or an error.
size_t ReadAll(int fd, char* data, size_t size);

absl::Status WriteFrame(int fd, const std::string& bytes);
// nullopt at a clean end of stream; DataLoss for a truncated frame.
absl::StatusOr<std::optional<std::string>> ReadFrame(int fd);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_FRAMING_H_
