#include "server/request_hub.h"

namespace lwb::server {

RequestStream::Update RequestStream::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [this] { return !pending_.deltas.empty() || pending_.finished.has_value(); });
  Update out = std::move(pending_);
  pending_ = {};
  return out;
}

void RequestStream::deliver(const TokenDelta& d) {
  {
    std::lock_guard lock(mu_);
    pending_.deltas.push_back(d);
  }
  cv_.notify_all();
}

void RequestStream::deliver(const RequestFinishedEvent& f) {
  {
    std::lock_guard lock(mu_);
    pending_.finished = f;
  }
  cv_.notify_all();
}

RequestHub::RequestHub(EngineLoop& loop, ServerMetrics& metrics)
    : loop_(loop), metrics_(metrics), events_(loop.subscribe()) {
  thread_ = std::thread([this] { run(); });
}

RequestHub::~RequestHub() {
  stop_ = true;
  events_->close();
  thread_.join();
}

std::shared_ptr<RequestStream> RequestHub::submit(RequestInput input) {
  std::lock_guard lock(mu_);  // the dispatcher cannot route this id before it is registered
  const RequestId id = loop_.submit(std::move(input));
  auto stream = std::make_shared<RequestStream>(id);
  open_[id] = stream;
  return stream;
}

size_t RequestHub::numOpen() const {
  std::lock_guard lock(mu_);
  return open_.size();
}

void RequestHub::abortOpen() {
  std::lock_guard lock(mu_);
  for (const auto& entry : open_) loop_.abort(entry.first);
}

void RequestHub::route(EngineEvent& e) {
  if (auto* step = std::get_if<StepRecord>(&e)) {
    metrics_.observeStep(*step);
  } else if (auto* d = std::get_if<TokenDelta>(&e)) {
    std::lock_guard lock(mu_);
    if (auto it = open_.find(d->id); it != open_.end()) it->second->deliver(*d);
  } else if (auto* f = std::get_if<RequestFinishedEvent>(&e)) {
    metrics_.observeFinished(f->timeline);
    std::lock_guard lock(mu_);
    if (auto it = open_.find(f->timeline.id); it != open_.end()) {
      it->second->deliver(*f);
      open_.erase(it);
    }
  }
}

void RequestHub::run() {
  while (!stop_)
    for (EngineEvent& e : events_->waitAndDrain(std::chrono::milliseconds(200))) route(e);
}

}  // namespace lwb::server
