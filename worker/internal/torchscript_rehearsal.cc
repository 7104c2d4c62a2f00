#include "worker/internal/torchscript_rehearsal.h"

#include <torch/script.h>

#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace icount::worker::internal {

absl::Status RehearseTorchScript(std::string_view model) {
  try {
    std::istringstream archive{std::string(model)};
    torch::jit::script::Module module = torch::jit::load(archive);
    // As many calls as a TorchScript case's setup makes (expand's
    // JitSetup): the profiling executor profiles the first, optimises the
    // graph for the second and runs that from then on.
    for (int call = 0; call < 3; ++call) {
      std::vector<torch::jit::IValue> inputs{torch::ones({2, 4, 4, 4}),
                                             torch::ones({4}, torch::requires_grad())};
      module.forward(inputs).toTensor().backward();
    }
  } catch (const std::exception& e) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the TorchScript rehearsal (icount's model from "
        "worker/internal/torchscript_rehearsal_model.py, loaded and run before a worker forks "
        "TorchScript cases) failed: ",
        e.what(),
        "\nThis LibTorch cannot run a model scripted by the build's python3-torch: run without "
        "--rehearse_torchscript."));
  }
  return absl::OkStatus();
}

}  // namespace icount::worker::internal
