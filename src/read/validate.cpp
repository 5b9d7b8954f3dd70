#include "read/validate.h"

namespace etpack {

Json ValidationReport::to_json() const {
  auto list = [](const std::vector<Finding>& findings) {
    Json out = Json::array();
    for (const Finding& f : findings) {
      Json j = Json::object();
      j.set("code", Json::string(f.code));
      j.set("message", Json::string(f.message));
      j.set("file", Json::string(f.file));
      j.set("offset", f.offset ? Json::unsigned_integer(*f.offset) : Json::null());
      j.set("path", f.path.empty() ? Json::null() : Json::string(f.path));
      out.push(std::move(j));
    }
    return out;
  };
  Json out = Json::object();
  out.set("ok", Json::boolean(ok()));
  out.set("errors", list(errors));
  out.set("warnings", list(warnings));
  return out;
}

// Placeholder until the full checker lands: reports nothing.
ValidationReport validate_artifacts(const Blob&, const std::vector<std::pair<std::string, Blob>>&) { return {}; }
ValidationReport validate_ptd(const std::string&, const Blob&) { return {}; }

}  // namespace etpack
