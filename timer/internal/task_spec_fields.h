#ifndef ICOUNT_TIMER_INTERNAL_TASK_SPEC_FIELDS_H_
#define ICOUNT_TIMER_INTERNAL_TASK_SPEC_FIELDS_H_

// TaskSpec <-> the task-spec fields of a generated proto message. Both
// MeasurementProto (flat, by contract) and TaskSpecProto carry the same
// field names, so one template serves both.

#include "timer/measurement.pb.h"
#include "timer/task_spec.h"

namespace icount::timer::internal {

template <typename Proto>
void WriteTaskSpecFields(const TaskSpec& spec, Proto* proto) {
  if (spec.label) proto->set_label(*spec.label);
  if (spec.sub_label) proto->set_sub_label(*spec.sub_label);
  if (spec.description) proto->set_description(*spec.description);
  if (spec.env) proto->set_env(*spec.env);
  proto->set_num_threads(spec.num_threads);
  proto->set_stmt(spec.stmt);
  proto->set_setup(spec.setup);
  proto->set_global_setup(spec.global_setup);
  // Language: in icount::timer, Language is the proto's enum.
  proto->set_language(spec.language == Language::kCpp ? timer::CPP : timer::PYTHON);
}

// An absent num_threads reads as 1 and an unspecified language as Python,
// the reference's defaults.
template <typename Proto>
TaskSpec ReadTaskSpecFields(const Proto& proto) {
  TaskSpec spec;
  if (proto.has_label()) spec.label = proto.label();
  if (proto.has_sub_label()) spec.sub_label = proto.sub_label();
  if (proto.has_description()) spec.description = proto.description();
  if (proto.has_env()) spec.env = proto.env();
  spec.num_threads = proto.has_num_threads() ? proto.num_threads() : 1;
  spec.stmt = proto.stmt();
  spec.setup = proto.setup();
  spec.global_setup = proto.global_setup();
  spec.language = proto.language() == timer::CPP ? Language::kCpp : Language::kPython;
  return spec;
}

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_TASK_SPEC_FIELDS_H_
