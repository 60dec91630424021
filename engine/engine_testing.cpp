#include "engine/engine_testing.h"

#include "engine/engine_impl.h"

namespace lwb {

void EngineTesting::setBeforeForwardHook(Engine& engine, std::function<void(const ForwardBatch&)> hook) {
  engine.impl_->beforeForward = std::move(hook);
}

void EngineTesting::setProposer(Engine& engine, std::unique_ptr<Proposer> proposer) {
  engine.impl_->proposer = std::move(proposer);
}

void EngineTesting::setPrefixMissAccounting(Engine& engine, bool on) {
  engine.impl_->prefixMissAccounting = on;
  engine.impl_->buildKv();
}

}  // namespace lwb
