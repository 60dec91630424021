// WeightStore (declared in safetensors.h): the tensors of a model folder, from a single
// model.safetensors or the shards named by model.safetensors.index.json.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/gguf.h"
#include "engine/model/safetensors.h"

namespace lwb {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// weight_map of model.safetensors.index.json: tensor name → shard file name.
std::map<std::string, std::string> readWeightMap(const std::string& indexPath) {
  const json index = readJsonFile(indexPath);
  check(index.is_object() && index.contains("weight_map") && index["weight_map"].is_object(),
        indexPath + ": missing object field 'weight_map'");
  std::map<std::string, std::string> map;
  for (const auto& [name, shard] : index["weight_map"].items()) {
    check(shard.is_string(), indexPath + ": weight_map[\"" + name + "\"] must be a file name string");
    const std::string file = shard.get<std::string>();
    check(!file.empty() && file.find('/') == std::string::npos && file != "." && file != "..",
          indexPath + ": weight_map[\"" + name + "\"] = \"" + file + "\" must be a file name in the model folder");
    map.emplace(name, file);
  }
  check(!map.empty(), indexPath + ": weight_map is empty");
  return map;
}

}  // namespace

WeightStore::WeightStore() = default;
WeightStore::~WeightStore() = default;

std::unique_ptr<WeightStore> WeightStore::openFolder(const std::string& dir) {
  auto store = std::make_unique<WeightStore>();
  store->dir_ = dir;
  const std::string single = (fs::path(dir) / "model.safetensors").string();
  const std::string indexPath = (fs::path(dir) / "model.safetensors.index.json").string();
  if (fs::exists(single)) {
    store->files_.push_back(SafetensorsFile::open(single));
    store->tensors_ = store->files_.back()->tensors();
    return store;
  }
  check(fs::exists(indexPath), dir + ": no weights found (looked for model.safetensors and model.safetensors.index.json)");

  const auto weightMap = readWeightMap(indexPath);
  std::map<std::string, size_t> shardIndex;  // file name → index into files_
  for (const auto& [name, shard] : weightMap) {
    if (shardIndex.count(shard)) continue;
    shardIndex.emplace(shard, store->files_.size());
    store->files_.push_back(SafetensorsFile::open((fs::path(dir) / shard).string()));
  }
  for (const auto& [name, shard] : weightMap) {
    const SafetensorsFile& file = *store->files_[shardIndex.at(shard)];
    auto it = file.tensors().find(name);
    check(it != file.tensors().end(),
          indexPath + ": tensor " + name + " is mapped to " + shard + ", which does not contain it");
    store->tensors_.emplace(name, it->second);
  }
  return store;
}

const TensorView* WeightStore::find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

const TensorView& WeightStore::require(const std::string& name, const std::vector<int64_t>& shape) const {
  const TensorView* t = find(name);
  check(t != nullptr, describeLocation() + ": missing tensor " + name + " (expected shape " + shapeToString(shape) + ")");
  check(t->shape == shape,
        t->file + ": tensor " + t->name + ": expected shape " + shapeToString(shape) + ", found " + shapeToString(t->shape));
  return *t;
}

size_t WeightStore::totalBytes() const {
  size_t total = 0;
  for (const auto& [name, t] : tensors_) total += t.numBytes();
  return total;
}

std::string WeightStore::describeLocation() const {
  if (gguf_) return gguf_->path();
  if (files_.size() == 1) return files_.front()->path();
  return dir_ + " (" + std::to_string(files_.size()) + " shards)";
}

}  // namespace lwb
