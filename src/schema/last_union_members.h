#pragma once

#include <utility>
#include <vector>

#include "schema/schema.h"

namespace etpack {

// The member type each union field last held while a file or a value stream
// is read: the guess for a union whose value comes before its `_type` member
// (a JSON object's keys come in any order). A schema has few union fields,
// so a short list searched in order; a field never seen guesses 0 (NONE).
template <typename Member>
class LastUnionMembers {
 public:
  Member of(const FieldDef* field) const {
    for (const auto& [known, member] : members_)
      if (known == field) return member;
    return 0;
  }
  void remember(const FieldDef* field, Member member) {
    for (auto& [known, last] : members_)
      if (known == field) {
        last = member;
        return;
      }
    members_.emplace_back(field, member);
  }

 private:
  std::vector<std::pair<const FieldDef*, Member>> members_;
};

}  // namespace etpack
