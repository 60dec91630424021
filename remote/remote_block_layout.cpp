#include "remote/remote_block_layout.h"

#include <map>
#include <set>
#include <utility>

namespace lwb::remote {

namespace {

using Children = std::map<BlockHashText, std::vector<BlockHashText>>;

// Depth first with an explicit stack: a long chain (a 32k-token prompt is 2k blocks)
// must not recurse that deep.
void layTree(const RemoteBlockMap& map, const Children& children, const BlockHashText& head, int tree,
             std::set<BlockHashText>& placed, std::vector<RemoteBlockCell>& out) {
  std::vector<std::pair<BlockHashText, int>> stack{{head, 0}};
  while (!stack.empty()) {
    auto [hash, depth] = std::move(stack.back());
    stack.pop_back();
    if (!placed.insert(hash).second) continue;  // a cycle in malformed events
    const RemoteBlock& b = map.blocks().at(hash);
    for (int c = 0; c < b.numCopies; ++c) out.push_back({hash, c, tree, depth});
    if (auto it = children.find(hash); it != children.end())
      for (auto child = it->second.rbegin(); child != it->second.rend(); ++child) stack.push_back({*child, depth + 1});
  }
}

}  // namespace

std::vector<RemoteBlockCell> layoutRemoteBlocks(const RemoteBlockMap& map) {
  Children children;
  std::vector<BlockHashText> heads;
  for (const auto& [hash, block] : map.blocks()) {
    if (block.parent && map.blocks().count(*block.parent)) children[*block.parent].push_back(hash);
    else heads.push_back(hash);
  }
  std::vector<RemoteBlockCell> out;
  out.reserve(size_t(map.numBlocks()));
  std::set<BlockHashText> placed;
  int tree = 0;
  for (const BlockHashText& h : heads) layTree(map, children, h, tree++, placed, out);
  for (const auto& [hash, block] : map.blocks())  // only blocks on a parent cycle are left
    if (!placed.count(hash)) layTree(map, children, hash, tree++, placed, out);
  return out;
}

}  // namespace lwb::remote
