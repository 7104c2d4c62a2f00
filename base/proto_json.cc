#include "base/proto_json.h"

#include <memory>
#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

namespace icount::base {

namespace {

constexpr char kTypeUrlPrefix[] = "type.googleapis.com";

// MessageToJsonString prints map entries in the order of a protobuf Map's
// iteration, which is seeded per process: two runs that record the same
// metadata would write different bytes. Printing from a deterministic
// serialization (map entries sorted by key) makes the JSON a function of
// the message alone, so results files of identical runs compare equal.
std::string Print(const google::protobuf::Message& message,
                  const google::protobuf::util::JsonPrintOptions& options) {
  std::string binary;
  {
    google::protobuf::io::StringOutputStream stream(&binary);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  const google::protobuf::DescriptorPool* pool = message.GetDescriptor()->file()->pool();
  static google::protobuf::util::TypeResolver* const generated =
      google::protobuf::util::NewTypeResolverForDescriptorPool(
          kTypeUrlPrefix, google::protobuf::DescriptorPool::generated_pool());
  std::unique_ptr<google::protobuf::util::TypeResolver> other;
  if (pool != google::protobuf::DescriptorPool::generated_pool()) {
    other.reset(google::protobuf::util::NewTypeResolverForDescriptorPool(kTypeUrlPrefix, pool));
  }
  std::string json;
  // Printing a well-formed message cannot fail.
  (void)google::protobuf::util::BinaryToJsonString(
      other ? other.get() : generated,
      std::string(kTypeUrlPrefix) + "/" + message.GetDescriptor()->full_name(), binary, &json,
      options);
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
