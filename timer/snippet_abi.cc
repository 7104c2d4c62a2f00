#include "timer/snippet_abi.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "base/text.h"
#include "third_party/libtorch/libtorch_install.h"

namespace icount::timer {

std::string BlockControlDeclaration() {
  return "extern \"C\" {\n"
         "typedef struct IcountBlockControl {\n"
         "  void* context;\n"
         "  int64_t (*next_block)(void* context);\n"
         "  void (*begin_block)(void* context);\n"
         "  void (*end_block)(void* context);\n"
         "} IcountBlockControl;\n"
         "}\n";
}

std::string SnippetFunctionSource(const std::string& function_name, const std::string& setup,
                                  const std::string& stmt, const std::string& setup_line,
                                  const std::string& stmt_line) {
  return absl::StrCat(
      "int ", function_name,
      "(const IcountBlockControl* control, char* error, size_t size) {\n"
      "  try {\n",
      setup_line, "\n", setup,
      "\n#line 1 \"<icount harness>\"\n"
      "    auto icount_stmt = [&]() __attribute__((always_inline)) {\n",
      stmt_line, "\n", stmt,
      "\n#line 1 \"<icount harness>\"\n"
      "    };\n"
      "    icount_stmt();  // warm-up run, as torch.utils.benchmark's C++ template does\n"
      "    for (int64_t number; (number = control->next_block(control->context)) >= 0;) {\n"
      "      control->begin_block(control->context);\n"
      "      for (int64_t i = 0; i < number; ++i) {\n"
      "        icount_stmt();\n"
      "        asm volatile(\"\" ::: \"memory\");  // keep each run inside the block\n"
      "      }\n"
      "      control->end_block(control->context);\n"
      "    }\n"
      "    return 0;\n"
      "  } catch (const std::exception& e) {\n"
      "    std::strncpy(error, e.what(), size - 1);\n"
      "  } catch (...) {\n"
      "    std::strncpy(error, \"unknown C++ exception\", size - 1);\n"
      "  }\n"
      "  error[size - 1] = '\\0';\n"
      "  return 1;\n"
      "}\n");
}

std::string ArtifactPathDefinition(bool cpp, const std::string& value) {
  return cpp ? absl::StrCat("const std::string ", kArtifactPathName, " = ", value, ";\n")
             : absl::StrCat(kArtifactPathName, " = ", value, "\n");
}

std::string TorchImportPrelude() {
  const std::string path = libtorch_install::kTorchPythonPath;
  if (path.empty()) return "";
  return absl::StrCat("import sys\nsys.path.insert(0, ", base::PythonRawLiteral(path), ")\n");
}

}  // namespace icount::timer
