// setenv, putenv, unsetenv and clearenv for the worker, in place of
// glibc's: the same behaviour, but the environment's array and strings live
// in one mapping reserved on first use, never on the heap.
//
// Why: glibc's setenv allocates a new array of (variables + 2) pointers on
// the heap, so every allocation after it lands where the number of
// variables puts it, and counts follow (memcmp's path depends on where a
// tensor's shape lies): numpy sets OPENBLAS_MAIN_FREE while torch is
// imported, and add's Python case counted 12 instructions a run apart
// between two sides that differed by one exported variable nothing reads.
// A program's own definitions of these functions take the place of libc's
// for every library it loads (libpython's os.putenv included). Each string
// starts a page of its own (heap_free_environment.h says why).

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cstddef>

#include "worker/internal/heap_free_environment.h"

extern "C" char** environ;

namespace {

// The one mapping: the array first, the strings after it, each from the
// start of a page. 64 MiB of address space, reserved once (MAP_NORESERVE:
// untouched pages cost nothing), so that it is one mapping of one size in
// every run.
constexpr size_t kReserved = size_t{64} << 20;
constexpr size_t kPage = 4096;
constexpr size_t kArrayEntries = 256 * 1024;  // 2 MiB of pointers
pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
char* area = nullptr;
char** array = nullptr;  // environ once a variable is added
size_t next_string = kArrayEntries * sizeof(char*);

bool Reserve() {
  if (area != nullptr) return true;
  void* mapping = mmap(nullptr, kReserved, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED) return false;
  area = static_cast<char*>(mapping);
  array = reinterpret_cast<char**>(area);
  return true;
}

size_t Count(char** entries) {
  size_t n = 0;
  while (entries != nullptr && entries[n] != nullptr) ++n;
  return n;
}

// environ in our array, with room for one more entry; false (ENOMEM) when
// the mapping is full.
bool OwnArray() {
  if (!Reserve()) return false;
  if (environ != array) {
    const size_t n = Count(environ);
    if (n + 2 > kArrayEntries) return false;
    if (n > 0) memmove(array, environ, n * sizeof(char*));
    array[n] = nullptr;
    environ = array;
  }
  return Count(array) + 2 <= kArrayEntries;
}

// Room for `size` bytes at the start of the next free page; null when the
// mapping is full.
char* NextPages(size_t size) {
  if (!Reserve() || next_string + size > kReserved) return nullptr;
  char* start = area + next_string;
  next_string += (size + kPage - 1) / kPage * kPage;
  return start;
}

char* CopyEntry(const char* name, size_t name_length, const char* value) {
  const size_t value_length = strlen(value);
  char* entry = NextPages(name_length + 1 + value_length + 1);
  if (entry == nullptr) return nullptr;
  memcpy(entry, name, name_length);
  entry[name_length] = '=';
  memcpy(entry + name_length + 1, value, value_length + 1);
  return entry;
}

// The index of `name`'s entry in environ, or -1.
long Find(const char* name, size_t name_length) {
  for (size_t i = 0; environ != nullptr && environ[i] != nullptr; ++i) {
    if (strncmp(environ[i], name, name_length) == 0 && environ[i][name_length] == '=') {
      return static_cast<long>(i);
    }
  }
  return -1;
}

bool ValidName(const char* name) { return *name != '\0' && strchr(name, '=') == nullptr; }

// Puts `entry` (NAME=VALUE) in place of name's entry, or adds it.
int Place(const char* name, size_t name_length, char* entry) {
  if (!OwnArray()) {
    errno = ENOMEM;
    return -1;
  }
  const long found = Find(name, name_length);
  if (found >= 0) {
    environ[found] = entry;
  } else {
    const size_t n = Count(environ);
    environ[n] = entry;
    environ[n + 1] = nullptr;
  }
  return 0;
}

void Remove(const char* name, size_t name_length) {
  if (environ == nullptr) return;
  size_t kept = 0;
  for (size_t i = 0; environ[i] != nullptr; ++i) {
    if (!(strncmp(environ[i], name, name_length) == 0 && environ[i][name_length] == '=')) {
      environ[kept++] = environ[i];
    }
  }
  environ[kept] = nullptr;
}

class Lock {
 public:
  Lock() { pthread_mutex_lock(&mutex); }
  ~Lock() { pthread_mutex_unlock(&mutex); }
};

}  // namespace

namespace icount::worker::internal {

void PutEachVariableOnAPageOfItsOwn() {
  Lock lock;
  if (!OwnArray()) return;
  for (size_t i = 0; environ[i] != nullptr; ++i) {
    const size_t size = strlen(environ[i]) + 1;
    char* copy = NextPages(size);
    if (copy == nullptr) return;  // left where it was: still correct
    memcpy(copy, environ[i], size);
    environ[i] = copy;
  }
}

}  // namespace icount::worker::internal

extern "C" {

int setenv(const char* name, const char* value, int overwrite) {
  if (!ValidName(name)) {
    errno = EINVAL;
    return -1;
  }
  Lock lock;
  const size_t name_length = strlen(name);
  if (!overwrite && Find(name, name_length) >= 0) return 0;
  char* entry = CopyEntry(name, name_length, value);
  if (entry == nullptr) {
    errno = ENOMEM;
    return -1;
  }
  return Place(name, name_length, entry);
}

int putenv(char* string) {
  const char* equals = strchr(string, '=');
  Lock lock;
  if (equals == nullptr) {  // glibc: "NAME" alone removes NAME
    Remove(string, strlen(string));
    return 0;
  }
  return Place(string, static_cast<size_t>(equals - string), string);
}

int unsetenv(const char* name) {
  if (!ValidName(name)) {
    errno = EINVAL;
    return -1;
  }
  Lock lock;
  Remove(name, strlen(name));
  return 0;
}

int clearenv() {
  Lock lock;
  environ = nullptr;
  return 0;
}

}  // extern "C"
