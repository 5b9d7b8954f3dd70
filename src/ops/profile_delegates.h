// The delegates' decoded graphs as profile's join needs them: for each
// delegate of each method, its nodes by debug handle (XNNPACK's
// XNode.debug_handle, Vulkan's OperatorCall.node_id), so a delegate's
// internal events (delegate_debug_id_int) can be joined to the nodes they
// time.
#pragma once

#include "format/file_source.h"
#include "ops/profile.h"
#include "read/pte_reader.h"

namespace etpack {

// Decodes every delegate blob of `file` once (delegate_blobs.h bounds; a
// blob that is not where the program says, too large or not decodable has
// no nodes). The lookup owns what it needs and outlives `pte` and `file`.
DelegateNodeLookup delegate_node_lookup(const FileSource& pte, const PteFile& file);

}  // namespace etpack
