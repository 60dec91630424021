#pragma once
// The order in which a drawing lays out a remote engine's blocks (rebuilt from its KV
// events; remote_block_map.h): vLLM's events name hashes, not block ids, so the drawing
// cannot put a block where the server keeps it. It groups them instead: every prefix
// tree (the blocks that descend from one head block) is laid out depth first, so a
// shared system prompt and the prompts that continue it sit side by side. A block held
// in several copies appears once per copy.
#include <vector>

#include "remote/remote_block_map.h"

namespace lwb::remote {

struct RemoteBlockCell {
  BlockHashText hash;
  int copy = 0;   // 0 .. numCopies-1
  int tree = 0;   // index of its prefix tree (0, 1, ... in layout order)
  int depth = 0;  // 0 for a head block: its tokens start at depth × block size
};

// Blocks whose parent the map does not hold (evicted, or stored before the subscriber
// joined) head trees of their own. [map.numBlocks()] cells.
std::vector<RemoteBlockCell> layoutRemoteBlocks(const RemoteBlockMap& map);

}  // namespace lwb::remote
