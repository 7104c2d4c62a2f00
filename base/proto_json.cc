#include "base/proto_json.h"

#include <string>

#include <google/protobuf/util/json_util.h>

namespace icount::base {

namespace {

std::string Print(const google::protobuf::Message& message,
                  const google::protobuf::util::JsonPrintOptions& options) {
  std::string json;
  // Printing a well-formed message cannot fail.
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

}  // namespace

std::string ProtoToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  return Print(message, options);
}

std::string ProtoToJsonAllFields(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  return Print(message, options);
}

}  // namespace icount::base
