#ifndef ICOUNT_TIMER_INTERNAL_KERNEL_H_
#define ICOUNT_TIMER_INTERNAL_KERNEL_H_

#include <cstdint>
#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "timer/snippet_abi.h"

namespace icount::timer::internal {

// Runs a statement's blocks (see timer/snippet_abi.h).
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual absl::Status Run(const IcountBlockControl& control) = 0;
  // The same loop around an empty statement, for the baseline; nullptr:
  // the language's (MakeBaselineKernel, callgrind_collect.h).
  virtual std::shared_ptr<Kernel> EmptyStatement() const { return nullptr; }
};

// An empty body of its own for each callable type F, so that its loop is
// compiled where F's is, with the same flags (a test's -O0, a program's
// -O2): the loops then cost the same, and an empty callable counts 0.
template <typename F>
struct EmptyBodyFor {
  void operator()() const {}
};
template <typename F>
struct IsEmptyBody : std::false_type {};
template <typename F>
struct IsEmptyBody<EmptyBodyFor<F>> : std::true_type {};

// The statement is the callable's body, inlined into the timed loop: no
// type-erased call per run, one per block.
template <typename F>
class CallableKernel final : public Kernel {
 public:
  explicit CallableKernel(F callable) : callable_(std::move(callable)) {}

  std::shared_ptr<Kernel> EmptyStatement() const override {
    if constexpr (IsEmptyBody<F>::value) {
      return std::make_shared<CallableKernel<F>>(F{});
    } else {
      return std::make_shared<CallableKernel<EmptyBodyFor<F>>>(EmptyBodyFor<F>{});
    }
  }

  absl::Status Run(const IcountBlockControl& control) override {
    try {
      for (int64_t number; (number = control.next_block(control.context)) >= 0;) {
        control.begin_block(control.context);
        for (int64_t i = 0; i < number; ++i) {
          callable_();
          // A compiler barrier, not an instruction: keeps every run inside
          // the block even when the body has no visible side effects.
          asm volatile("" ::: "memory");
        }
        control.end_block(control.context);
      }
    } catch (const std::exception& e) {  // c10::Error included
      return absl::AbortedError(absl::StrCat("C++ callable threw: ", e.what()));
    } catch (...) {
      return absl::AbortedError("C++ callable threw a non-std::exception");
    }
    return absl::OkStatus();
  }

 private:
  F callable_;
};

// Runs a statement compiled to the snippet ABI (timer/snippet_abi.h): a
// run-time compiled snippet or a case compiled into the binary at build time.
absl::Status RunSnippetEntry(IcountSnippetEntry entry, const IcountBlockControl& control);

class SnippetEntryKernel final : public Kernel {
 public:
  explicit SnippetEntryKernel(IcountSnippetEntry entry) : entry_(entry) {}
  absl::Status Run(const IcountBlockControl& control) override {
    return RunSnippetEntry(entry_, control);
  }

 private:
  IcountSnippetEntry entry_;
};

// Sets LibTorch's intra-op thread count for its scope and restores the
// previous count on exit.
class ScopedTorchThreads {
 public:
  explicit ScopedTorchThreads(int num_threads);
  ~ScopedTorchThreads();
  ScopedTorchThreads(const ScopedTorchThreads&) = delete;
  ScopedTorchThreads& operator=(const ScopedTorchThreads&) = delete;

 private:
  int previous_;
};

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_KERNEL_H_
