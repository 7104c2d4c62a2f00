#ifndef ICOUNT_WORKER_INTERNAL_HEAP_FREE_ENVIRONMENT_H_
#define ICOUNT_WORKER_INTERNAL_HEAP_FREE_ENVIRONMENT_H_

// The worker's environment (heap_free_environment.cc replaces setenv & co.
// so that it never touches the heap), laid out so that measured code that
// reads it counts the same whatever else it holds:
//
//   int main(int argc, char** argv) {
//     unsetenv(...);                          // what the worker alone reads
//     icount::worker::internal::PutEachVariableOnAPageOfItsOwn();
//     ...
//
// Why: PyTorch 2.14's TorchScript calls getenv on every run, and glibc's
// getenv compares names with strncmp, whose path depends on where each
// string lies in its page. On the initial stack every string's place
// follows the lengths of those before it, so one variable more or longer
// moved a rehearsed TorchScript case by 20 instructions a run.

namespace icount::worker::internal {

// Moves every variable's string to the start of a page of its own in the
// environment's mapping (setenv puts later ones there too). Values, order
// and what getenv returns are unchanged.
void PutEachVariableOnAPageOfItsOwn();

}  // namespace icount::worker::internal

#endif  // ICOUNT_WORKER_INTERNAL_HEAP_FREE_ENVIRONMENT_H_
